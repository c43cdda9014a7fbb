#!/usr/bin/env python3
"""The fleet view on jobs whose answers are known before the scan (issue 26).

Builds a week-by-week archive of failed jobs out of the lab's real torchrun jobs (tests/lab/cases):
each job is one of a few lab cases with its hosts renamed (drawn names, FQDNs among them) and every
date in its logs moved to a drawn day, packed as a folder or a tar.gz. One host, gpu-a17, is made
the culprit's node of several jobs of different causes and an innocent node of others; a README.txt
lies beside the jobs. Then `scan --summary --reports` and `summary` must give exactly:
- one group per lab case used (the same cause on other hosts, days and packings is one group);
- gpu-a17 first among the bad nodes, with its culprit jobs and the jobs it ran; every other node
  the culprit of at most one job;
- the failed jobs per ISO week as drawn, and `--since` / `--until` keeping one week's;
- the README.txt skipped, not healthy; each job's report written and linked from the HTML summary;
- one closing line on stderr.
Usage: fleet_summary.py DTRIAGE SOURCE_DIR [--keep DIR]
"""
import datetime
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

FAILS = []
BAD = "gpu-a17"
MONDAY = datetime.date(2026, 10, 5)  # four ISO weeks from here: 2026-W41 .. W44


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print("FAIL: " + what)


def truth_of(case):
    with open(os.path.join(case, "TRUTH.json")) as f:
        return json.load(f)


def rename(text, names, day):
    for old, new in sorted(names.items(), key=lambda kv: -len(kv[0])):
        text = re.sub(r"(?<![\w.-])" + re.escape(old) + r"(?![\w-])", new, text)
    return re.sub(r"\b20\d\d-\d\d-\d\d(?=[T _])", day, text)


def build_job(case, names, day, out, packing):
    """The lab case's logs with its hosts renamed and its dates moved, as a folder or a tar.gz."""
    src = os.path.join(case, "logs")
    stage = out + ".d"
    for base, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            full = os.path.join(base, f)
            rel = rename(os.path.relpath(full, src), names, day)
            dst = os.path.join(stage, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(full, encoding="utf-8", errors="surrogateescape") as i, \
                    open(dst, "w", encoding="utf-8", errors="surrogateescape") as o:
                o.write(rename(i.read(), names, day))
    if packing == "dir":
        os.rename(stage, out)
        return out
    with tarfile.open(out + ".tar.gz", "w:gz") as t:
        t.add(stage, arcname=os.path.basename(out))
    shutil.rmtree(stage)
    return out + ".tar.gz"


def scan(dtriage, root, *extra):
    return subprocess.run([dtriage, "scan", "-j", "2", *extra, root], capture_output=True, text=True, timeout=600)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    dtriage, source = sys.argv[1], sys.argv[2]
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    cases_dir = os.path.join(source, "tests", "lab", "cases")
    if not os.path.isdir(cases_dir):
        print("no lab cases: skipped")
        return 77
    work = keep or tempfile.mkdtemp(prefix="dtriage-fleet-")
    os.makedirs(work, exist_ok=True)
    rng = random.Random(2026)
    try:
        # Templates: per fault, the first lab case whose renamed, redated copy scans to its truth
        # (category and culprit node) with its day read from its logs.
        faults = ["oom", "exception", "sigsegv", "exit", "hang", "mismatch"]
        by_fault = {}
        for c in sorted(os.listdir(cases_dir)):
            t = truth_of(os.path.join(cases_dir, c))
            if t.get("status") == "failed" and t.get("fault") in faults and t.get("node") and not t.get("archives"):
                by_fault.setdefault(t["fault"], []).append(c)
        trial = os.path.join(work, "trial")
        os.makedirs(trial)
        tried = {}
        for fault in faults:
            for c in by_fault.get(fault, [])[:6]:
                t = truth_of(os.path.join(cases_dir, c))
                names = {n: "try%02d-%s" % (len(tried), n.replace(".", "-")) + "x" for n in t["nodes"]}
                name = build_job(os.path.join(cases_dir, c), names, "2026-09-15", os.path.join(trial, c), "dir")
                tried[os.path.basename(name)] = (fault, c, names[t["node"]], t["category"])
        r = scan(dtriage, trial, "-q")
        templates = {}
        for line in r.stdout.splitlines():
            j = json.loads(line)
            fault, c, node, cat = tried[j["job"]]
            if fault not in templates and j["category"] == cat and j["node"] == node and j["date"] == "2026-09-15" \
                    and j["date_from"] == "logs":
                templates[fault] = c
        print("templates: %s" % templates)
        check(len(templates) >= 4, "at least four lab cases scan to their truth after renaming: %s" % templates)

        # The archive: 30 failed jobs over four weeks, gpu-a17 the culprit's node of 6 of them
        # (of three causes) and an innocent node of 4 more; 3 healthy jobs; a README.txt.
        root = os.path.join(work, "root")
        os.makedirs(root)
        kinds = sorted(templates)
        bad_jobs = set(rng.sample(range(30), 6))
        innocent = set(rng.sample(sorted(set(range(30)) - bad_jobs), 4))
        prefixes = ["gpu-", "node", "cn-", "trn-", "dgx-h100-", "r07-c11-n"]
        expected_groups, expected_weeks = {}, {}
        ran_a17 = 0
        for i in range(30):
            fault = kinds[i % len(kinds)]
            case = os.path.join(cases_dir, templates[fault])
            t = truth_of(case)
            day = MONDAY + datetime.timedelta(days=rng.randrange(28))
            names = {}
            for k, n in enumerate(t["nodes"]):
                p = rng.choice(prefixes)
                names[n] = "%s%03d%s" % (p, i * 4 + k, ".hpc.example.edu" if rng.random() < 0.3 else "")
            if i in bad_jobs:
                names[t["node"]] = BAD
            elif i in innocent:
                other = [n for n in t["nodes"] if n != t["node"]]
                if other:
                    names[other[0]] = BAD
                else:
                    innocent.discard(i)
            if BAD in names.values():
                ran_a17 += 1
            build_job(case, names, day.isoformat(), os.path.join(root, "job-%03d-%s" % (i, fault)), "dir" if i % 2 else "tar.gz")
            expected_groups[fault] = expected_groups.get(fault, 0) + 1
            week = "%04d-W%02d" % day.isocalendar()[:2]
            expected_weeks[week] = expected_weeks.get(week, 0) + 1
        healthy = [c for c in sorted(os.listdir(cases_dir))
                   if truth_of(os.path.join(cases_dir, c)).get("status") == "healthy" and not truth_of(os.path.join(cases_dir, c)).get("archives")]
        for h in range(3):
            case = os.path.join(cases_dir, healthy[h])
            t = truth_of(case)
            names = {n: "ok%02d-%d" % (h, k) for k, n in enumerate(t["nodes"])}
            if h == 0:
                names[t["nodes"][0]] = BAD
                ran_a17 += 1
            build_job(case, names, (MONDAY + datetime.timedelta(days=h)).isoformat(), os.path.join(root, "ok-%d" % h), "dir")
        with open(os.path.join(root, "README.txt"), "w") as f:
            f.write("Failed jobs of October 2026, one folder or archive each.\nAsk the platform team for access.\n")

        reports = os.path.join(work, "reports")
        r = scan(dtriage, root, "-o", os.path.join(work, "results.jsonl"), "--summary", os.path.join(work, "summary.json"),
                 "--reports", reports)
        check(r.returncode == 0, "scan exit 0: %d %s" % (r.returncode, r.stderr[-400:]))
        check(re.search(r"dtriage: scan: 34 jobs in [0-9.]+ s \(30 failed, 3 healthy, 1 skipped\); wrote ", r.stderr) is not None,
              "the closing line: %r" % r.stderr[-300:])
        lines = [json.loads(x) for x in open(os.path.join(work, "results.jsonl"))]
        by_job = {x["job"]: x for x in lines}
        check(by_job.get("README.txt", {}).get("status") == "skipped", "README.txt skipped: %s" % by_job.get("README.txt"))
        with open(os.path.join(work, "summary.json")) as f:
            s = json.load(f)
        check(s["jobs"] == 34 and s["by_status"].get("failed") == 30, "jobs by status: %s %s" % (s["jobs"], s["by_status"]))

        # One group per lab case used.
        groups = {}
        for g in s["causes"]:
            faults_in = {(re.match(r"job-\d+-([a-z]+)", e["job"]) or re.match("(.*)", e["job"])).group(1) for e in g["examples"]}
            check(len(faults_in) == 1, "a group of one cause: %s" % g["pattern"])
            groups[faults_in.pop()] = g["jobs"]
        check(groups == expected_groups, "groups %s, expected %s" % (groups, expected_groups))

        # Bad nodes.
        bad = s["bad_nodes"]
        check(bool(bad) and bad[0]["node"] == BAD and bad[0]["culprit_jobs"] == 6 and bad[0]["jobs_ran"] == ran_a17,
              "%s first: 6 of %d jobs it ran: %s" % (BAD, ran_a17, bad[:2]))
        check(all(b["culprit_jobs"] == 1 for b in bad[1:]), "every other node the culprit of one job")
        check(len({c["category"] for c in bad[0]["by_category"]}) >= 3, "%s's jobs of three causes: %s" % (BAD, bad[0]["by_category"]))

        # Weeks, and one week alone.
        weeks = {w["week"]: w["jobs"] for w in s["weeks"]}
        check(weeks == expected_weeks, "weeks %s, expected %s" % (weeks, expected_weeks))
        first = min(expected_weeks)
        monday = datetime.date.fromisocalendar(int(first[:4]), int(first[6:]), 1)
        one = subprocess.run([dtriage, "summary", "--format", "json", "--since", monday.isoformat(), "--until",
                              (monday + datetime.timedelta(days=6)).isoformat(), os.path.join(work, "results.jsonl")],
                             capture_output=True, text=True, timeout=60)
        w = json.loads(one.stdout)
        check(w["by_status"].get("failed") == expected_weeks[first], "--since/--until: %s failed, expected %d" % (w["by_status"], expected_weeks[first]))

        # Reports and the HTML summary's links.
        html = os.path.join(work, "summary.html")
        subprocess.run([dtriage, "summary", "--format", "html", "-o", html, os.path.join(work, "results.jsonl")], check=True, timeout=60)
        links = re.findall(r'href="([^"]+)"', open(html).read())
        check(len(links) >= len(expected_groups), "the summary links example jobs: %d links" % len(links))
        check(all(os.path.isfile(os.path.join(work, l)) for l in links), "every link reaches a report: %s" % links[:3])
        check(all(os.path.isfile(x["report"]) for x in lines if x["status"] in ("failed", "healthy")), "a report per job")
        text = subprocess.run([dtriage, "summary", os.path.join(work, "results.jsonl")], capture_output=True, text=True, timeout=60).stdout
        check(("%s: 6 of %d jobs it ran" % (BAD, ran_a17)) in text, "the text summary names the bad node")

        # The same archive scanned in Chinese: every job's sentence in Chinese with its English
        # beside it, and the same fingerprints and patterns (groups do not depend on the language).
        zh = scan(dtriage, root, "-q", "--lang", "zh")
        zh_lines = {j["job"]: j for j in map(json.loads, zh.stdout.splitlines())}
        failed = [x for x in lines if x["status"] == "failed"]
        check(all(zh_lines[x["job"]]["fingerprint"] == x["fingerprint"] and zh_lines[x["job"]]["pattern"] == x["pattern"]
                  for x in failed), "fingerprints and patterns are the same in Chinese")
        check(all(zh_lines[x["job"]].get("summary_en") == x["summary"] and zh_lines[x["job"]]["summary"] != x["summary"]
                  for x in failed), "each Chinese line carries the English summary beside its own")
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print("%d check(s) failed" % len(FAILS) if FAILS else "ok")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
