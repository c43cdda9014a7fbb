#!/usr/bin/env python3
"""Batch scans at scale: 200 job archives built from the samples (mixed formats, a few corrupt).

Checks, with the real binary:
- `scan -j 2`: every job exactly once, in name order, each with its sample's verdict; the corrupt
  ones listed with their unreadable input;
- three shards (`--shard K/3`) are disjoint, cover every job, and `merge` + `summary` give the
  summary of the whole scan;
- a scan killed halfway (SIGKILL, plus a half-written line as a kill mid-write leaves) and then run
  with `--resume` gives every job exactly once and the same summary;
- `--job-timeout` turns an overrunning job into one error line; the scan goes on;
- the progress line shows on a terminal only, and not with --quiet.
Usage: scan_at_scale.py DTRIAGE SOURCE_DIR [--keep DIR] [--build-only DIR]
"""
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

FORMATS = ["dir", "tar.gz", "zip", "tar.xz", "tar.bz2", "tar"]


def add_tree(tar, root, arcname):
    for base, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            full = os.path.join(base, f)
            tar.add(full, arcname=os.path.join(arcname, os.path.relpath(full, root)), recursive=False)


def build_jobs(source, out):
    samples = sorted(d for d in os.listdir(os.path.join(source, "samples"))
                     if os.path.isdir(os.path.join(source, "samples", d)))
    with open(os.path.join(source, "tests", "samples_expected.json")) as f:
        expected = json.load(f)
    os.makedirs(out, exist_ok=True)
    truth = {}
    for i in range(200):
        sample = samples[i % len(samples)]
        fmt = FORMATS[(i // len(samples)) % len(FORMATS)]
        src = os.path.join(source, "samples", sample)
        name = "job-%03d-%s" % (i, sample)
        corrupt = i % 37 == 5
        if fmt == "dir":
            path = os.path.join(out, name)
            shutil.copytree(src, path)
        elif fmt == "zip":
            path = os.path.join(out, name + ".zip")
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                for base, dirs, files in os.walk(src):
                    dirs.sort()
                    for f in sorted(files):
                        full = os.path.join(base, f)
                        z.write(full, os.path.relpath(full, src))
        else:
            path = os.path.join(out, name + "." + fmt)
            mode = {"tar.gz": "w:gz", "tar.xz": "w:xz", "tar.bz2": "w:bz2", "tar": "w"}[fmt]
            with tarfile.open(path, mode) as t:
                add_tree(t, src, name)
        if corrupt and fmt != "dir":
            size = os.path.getsize(path)
            with open(path, "r+b") as f:
                f.truncate(min(size * 2 // 3, 1500))  # inside the content, not the tar padding
        job = os.path.basename(path)
        truth[job] = {"sample": sample, "corrupt": corrupt and fmt != "dir", "expected": expected[sample]}
    return truth


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def lines_of(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    dtriage, source = sys.argv[1], sys.argv[2]
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    if "--build-only" in sys.argv:
        build_jobs(source, sys.argv[sys.argv.index("--build-only") + 1])
        return 0
    work = keep or tempfile.mkdtemp(prefix="dtriage-scale-")
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)
            print("FAIL:", what)

    try:
        jobs = os.path.join(work, "jobs")
        truth = build_jobs(source, jobs)
        names = sorted(os.listdir(jobs))
        check(len(names) == 200, "200 jobs built")

        # The whole scan on both cores.
        full = os.path.join(work, "all.jsonl")
        r = run([dtriage, "scan", "-j", "2", "-o", full, "--summary", os.path.join(work, "all-summary.json"), jobs])
        check(r.returncode == 1, "scan exits 1 (some archives are corrupt): %d %s" % (r.returncode, r.stderr[-300:]))
        res = lines_of(full)
        check([x["job"] for x in res] == names, "every job once, in name order")
        for x in res:
            t = truth[x["job"]]
            if t["corrupt"]:
                check(x.get("unreadable", 0) >= 1 or x["status"] == "error", "corrupt %s listed as unreadable" % x["job"])
                continue
            exp = t["expected"]
            check(x["status"] == exp["status"] and x["category"] == exp["category"] and x["rule"] == exp["rule"],
                  "%s: %s/%s, want %s/%s" % (x["job"], x["status"], x["category"], exp["status"], exp["category"]))
        fps = {}
        for x in res:
            if x["status"] == "failed" and not truth[x["job"]]["corrupt"]:
                fps.setdefault(truth[x["job"]]["sample"], set()).add(x["fingerprint"])
        check(all(len(v) == 1 for v in fps.values()), "one fingerprint per sample's cause: %s" % fps)
        with open(os.path.join(work, "all-summary.json")) as f:
            whole = json.load(f)
        check(whole["jobs"] == 200, "summary counts 200 jobs")

        # Three shards, merged.
        shard_files = []
        seen = set()
        for k in range(3):
            p = os.path.join(work, "shard-%d.jsonl" % k)
            r = run([dtriage, "scan", "-j", "2", "--shard", "%d/3" % k, "-o", p, jobs])
            check(r.returncode in (0, 1), "shard %d runs" % k)
            mine = {x["job"] for x in lines_of(p)}
            check(not (mine & seen), "shard %d is disjoint from the others" % k)
            seen |= mine
            shard_files.append(p)
        check(seen == set(names), "the shards cover every job")
        merged = os.path.join(work, "merged.jsonl")
        r = run([dtriage, "merge", "-o", merged] + shard_files)
        check(r.returncode == 0, "merge exits 0: %s" % r.stderr)
        check([x["job"] for x in lines_of(merged)] == names, "merge gives every job once, in name order")
        r = run([dtriage, "summary", "--format", "json", merged])
        check(json.loads(r.stdout) == whole, "merged shards give the whole scan's summary")

        # Killed halfway, then resumed.
        killed = os.path.join(work, "killed.jsonl")
        p = subprocess.Popen([dtriage, "scan", "-j", "1", "-q", "-o", killed, jobs], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while time.time() < deadline:
            if os.path.exists(killed) and sum(1 for _ in open(killed)) >= 60:
                break
            if p.poll() is not None:
                break
            time.sleep(0.02)
        p.send_signal(signal.SIGKILL)
        p.wait()
        with open(killed) as f:  # whole lines only: a kill may in principle land inside a write
            before = sum(1 for l in f if l.endswith("\n"))
        check(0 < before < 200, "the scan was killed halfway (%d lines)" % before)
        with open(killed, "a") as f:
            f.write('{"job":"job-1')  # a line cut by the kill
        r = run([dtriage, "scan", "-j", "2", "-q", "--resume", "-o", killed, jobs])
        check(r.returncode == 1, "resume exits as a scan does: %d %s" % (r.returncode, r.stderr))
        check("half-written" in r.stderr, "resume says it dropped the half line")
        got = [x["job"] for x in lines_of(killed)]
        check(sorted(got) == names and len(got) == 200, "every job exactly once after resume (%d lines)" % len(got))
        r = run([dtriage, "summary", "--format", "json", killed])
        check(json.loads(r.stdout) == whole, "the resumed scan gives the same summary")
        r = run([dtriage, "scan", "--resume", jobs])
        check(r.returncode == 2, "--resume without -o is a usage error")

        # A time budget: every job overruns a microsecond and is one error line.
        few = os.path.join(work, "few")
        os.makedirs(few)
        for n in names[:3]:
            os.rename(os.path.join(jobs, n), os.path.join(few, n))
        r = run([dtriage, "scan", "--job-timeout", "0.000001", few])
        out = [json.loads(l) for l in r.stdout.splitlines()]
        check(len(out) == 3 and all(x["status"] == "error" and "timed out" in x["error"] for x in out),
              "overrunning jobs are error lines: %s" % r.stdout[:300])
        check(r.returncode == 1, "timeouts make exit code 1")

        # Progress: on a terminal only.
        if shutil.which("script"):
            r = run(["script", "-qec", "%s scan -o %s %s" % (dtriage, os.path.join(work, "tty.jsonl"), few), "/dev/null"])
            check("scan: 3/3 jobs" in r.stdout, "a progress line on a terminal: %r" % r.stdout[-200:])
            r = run(["script", "-qec", "%s scan -q -o %s %s" % (dtriage, os.path.join(work, "tty.jsonl"), few), "/dev/null"])
            check("scan:" not in r.stdout, "no progress line with --quiet")
        r = run([dtriage, "scan", "-o", os.path.join(work, "pipe.jsonl"), few])
        check("3/3 jobs" not in r.stderr, "no progress line when stderr is not a terminal")
        check("dtriage: scan: 3 jobs in " in r.stderr and "wrote " + os.path.join(work, "pipe.jsonl") in r.stderr,
              "one line when the scan ends: %r" % r.stderr[-300:])
        r = run([dtriage, "scan", "-q", "-o", os.path.join(work, "pipe.jsonl"), few])
        check("scan:" not in r.stderr, "nothing on stderr with --quiet: %r" % r.stderr[-300:])
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("scan at scale: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
