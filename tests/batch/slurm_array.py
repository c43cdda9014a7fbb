#!/usr/bin/env python3
"""The README's Slurm recipe for real: a one-node Slurm (Debian's slurm-wlm and munge, started
here in a scratch folder and stopped after) runs tools/slurm-scan.sbatch as a 3-task job array
over generated job archives; the merged shards must give the summary of a direct scan.
Exits 77 (skipped) with a message where the daemons cannot start (not root, packages missing).
Usage: slurm_array.py DTRIAGE SOURCE_DIR [--root JOBS_DIR] [--tasks N]
With --root, the jobs are those below JOBS_DIR (a benchmark's: bench/scan_bench.py builds 10,000),
and the times of the array, the merge and the summary are printed.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scan_at_scale import build_jobs  # noqa: E402

SKIP = 77


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def main():
    dtriage, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    rest = sys.argv[3:]
    root = os.path.abspath(rest[rest.index("--root") + 1]) if "--root" in rest else None
    tasks = int(rest[rest.index("--tasks") + 1]) if "--tasks" in rest else 3
    tools = ["slurmctld", "slurmd", "munged", "munge", "unmunge", "sbatch", "sinfo", "squeue", "runuser"]
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        print("skipped: not installed: %s (tools/install-deps.sh installs slurm-wlm and munge)" % " ".join(missing))
        return SKIP
    if os.geteuid() != 0:
        print("skipped: the one-node Slurm needs root (munged runs as the munge user, slurmd as root)")
        return SKIP
    scratch = tempfile.mkdtemp(prefix="dtriage-slurm-")
    os.chmod(scratch, 0o755)
    pids = []
    env = dict(os.environ)
    try:
        # munge: a key of our own, its socket in the scratch folder.
        mdir = os.path.join(scratch, "munge")
        os.makedirs(mdir)
        key = os.path.join(mdir, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        sock = os.path.join(mdir, "munge.socket")
        subprocess.run(["chown", "-R", "munge:munge", mdir], check=True)
        os.chmod(key, 0o400)
        os.chmod(mdir, 0o755)
        r = subprocess.run(["runuser", "-u", "munge", "--", "munged", "--key-file", key, "--socket", sock,
                            "--pid-file", os.path.join(mdir, "munged.pid"), "--log-file", os.path.join(mdir, "munged.log"),
                            "--seed-file", os.path.join(mdir, "munged.seed")], capture_output=True, text=True)
        if r.returncode != 0:
            print("skipped: munged did not start: %s" % (r.stderr.strip() or r.stdout.strip()))
            return SKIP
        pids.append(os.path.join(mdir, "munged.pid"))
        cred = subprocess.run("munge -n -S %s | unmunge -S %s" % (sock, sock), shell=True, capture_output=True, text=True)
        if "Success" not in cred.stdout:
            print("skipped: munge does not answer: %s" % cred.stderr.strip())
            return SKIP

        host = socket.gethostname().split(".")[0]
        ctl_port, d_port = free_port(), free_port()
        for d in ("state", "spool", "out"):
            os.makedirs(os.path.join(scratch, d))
        conf = os.path.join(scratch, "slurm.conf")
        with open(conf, "w") as f:
            f.write("\n".join([
                "ClusterName=dtriagetest", "SlurmctldHost=%s" % host, "SlurmUser=root", "SlurmdUser=root",
                "AuthType=auth/munge", "AuthInfo=socket=%s" % sock, "CredType=cred/munge",
                "SlurmctldPort=%d" % ctl_port, "SlurmdPort=%d" % d_port,
                "StateSaveLocation=%s/state" % scratch, "SlurmdSpoolDir=%s/spool" % scratch,
                "SlurmctldPidFile=%s/slurmctld.pid" % scratch, "SlurmdPidFile=%s/slurmd.pid" % scratch,
                "SlurmctldLogFile=%s/slurmctld.log" % scratch, "SlurmdLogFile=%s/slurmd.log" % scratch,
                "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "SelectType=select/cons_tres",
                "ReturnToService=2", "MpiDefault=none", "JobAcctGatherType=jobacct_gather/none",
                "NodeName=%s CPUs=%d State=UNKNOWN" % (host, os.cpu_count() or 1),
                "PartitionName=debug Nodes=%s Default=YES MaxTime=INFINITE State=UP" % host, ""]))
        env["SLURM_CONF"] = conf
        for daemon, pidfile in (("slurmctld", "slurmctld.pid"), ("slurmd", "slurmd.pid")):
            r = subprocess.run([daemon], env=env, capture_output=True, text=True)
            pids.append(os.path.join(scratch, pidfile))
            if r.returncode != 0:
                print("skipped: %s did not start: %s" % (daemon, (r.stderr or r.stdout).strip()[-400:]))
                return SKIP
        deadline = time.time() + 60
        state = ""
        while time.time() < deadline:
            state = subprocess.run(["sinfo", "-h", "-o", "%T"], env=env, capture_output=True, text=True).stdout.strip()
            if state.startswith("idle"):
                break
            time.sleep(0.5)
        if not state.startswith("idle"):
            log = ""
            for name in ("slurmctld.log", "slurmd.log"):
                p = os.path.join(scratch, name)
                if os.path.exists(p):
                    log += open(p).read()[-600:]
            print("skipped: the node never became idle (%r): %s" % (state, log))
            return SKIP

        jobs = root or os.path.join(scratch, "jobs")
        if root is None:
            build_jobs(source, jobs)
        expected = len(os.listdir(jobs))
        out = os.path.join(scratch, "out")
        env["DTRIAGE"] = dtriage
        started = time.time()
        r = subprocess.run(["sbatch", "--parsable", "--array=0-%d" % (tasks - 1), "--cpus-per-task=1", "--output=%s/task-%%a.log" % out,
                            os.path.join(source, "tools", "slurm-scan.sbatch"), jobs, out], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL: sbatch: %s" % r.stderr)
            return 1
        array = r.stdout.strip().split(";")[0]
        deadline = time.time() + (240 if root is None else 3600)
        while time.time() < deadline:
            q = subprocess.run(["squeue", "-h", "-j", array], env=env, capture_output=True, text=True)
            if q.returncode == 0 and not q.stdout.strip():
                break
            time.sleep(1)
        array_seconds = time.time() - started
        shards = [os.path.join(out, "shard-%d.jsonl" % k) for k in range(tasks)]
        ok = True
        for k, p in enumerate(shards):
            if not os.path.exists(p):
                log = os.path.join(out, "task-%d.log" % k)
                print("FAIL: task %d wrote no shard: %s" % (k, open(log).read()[-500:] if os.path.exists(log) else "(no log)"))
                ok = False
        if not ok:
            return 1
        merged = os.path.join(scratch, "merged.jsonl")
        t0 = time.time()
        subprocess.run([dtriage, "merge", "-o", merged] + shards, check=True)
        t1 = time.time()
        got = json.loads(subprocess.run([dtriage, "summary", "--format", "json", merged], capture_output=True, text=True).stdout)
        t2 = time.time()
        direct = os.path.join(scratch, "direct.jsonl")
        subprocess.run([dtriage, "scan", "-q", "-o", direct, jobs])
        want = json.loads(subprocess.run([dtriage, "summary", "--format", "json", direct], capture_output=True, text=True).stdout)
        n = sum(1 for _ in open(merged))
        if got != want or n != expected:
            print("FAIL: the array's merged summary differs from a direct scan (%d lines of %d)" % (n, expected))
            return 1
        print("slurm array: %d tasks, %d jobs, merged summary equals the direct scan's" % (tasks, n))
        if root is not None:
            print("  array (sbatch to the last task's end) %.1f s, %.0f jobs/s; merge %.2f s; summary %.2f s"
                  % (array_seconds, n / array_seconds, t1 - t0, t2 - t1))
        return 0
    finally:
        for pidfile in reversed(pids):
            try:
                pid = int(open(pidfile).read().strip())
                os.kill(pid, signal.SIGTERM)
                for _ in range(50):
                    os.kill(pid, 0)
                    time.sleep(0.1)
            except (OSError, ValueError):
                pass
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
