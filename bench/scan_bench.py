#!/usr/bin/env python3
"""Batch scan throughput: the 200 job archives of tests/batch/scan_at_scale.py (built once in DIR,
--copies K times), scanned with -j 1 and -j 2, RUNS times each, alternating; prints the medians as
jobs/s, MB/s of archives on disk and MB/s of decoded text.
Usage: bench/scan_bench.py [--runs N] [--bin build/release/analyzer/dtriage] [--copies K] DIR
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", default=os.path.join(HERE, "build/release/analyzer/dtriage"))
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("dir")
    a = ap.parse_args()
    jobs = os.path.join(a.dir, "jobs")
    if not os.path.isdir(jobs):
        one = os.path.join(a.dir, "one")
        subprocess.run([sys.executable, os.path.join(HERE, "tests/batch/scan_at_scale.py"), a.bin, HERE, "--build-only", one], check=True)
        os.makedirs(jobs)
        for c in range(a.copies):
            for f in sorted(os.listdir(one)):
                src, dst = os.path.join(one, f), os.path.join(jobs, "c%d-%s" % (c, f))
                (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, dst)
        shutil.rmtree(one)
    count = len(os.listdir(jobs))
    disk = sum(os.path.getsize(os.path.join(b, f)) for b, _, fs in os.walk(jobs) for f in fs)
    warm = os.path.join(a.dir, "warm.jsonl")
    subprocess.run([a.bin, "scan", "-q", "-o", warm, jobs], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    decoded = sum(json.loads(l).get("bytes", 0) for l in open(warm))
    times = {1: [], 2: []}
    for _ in range(a.runs):
        for j in (1, 2):
            s = time.perf_counter()
            subprocess.run([a.bin, "scan", "-q", "-j", str(j), "-o", os.path.join(a.dir, "out.jsonl"), jobs],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[j].append(time.perf_counter() - s)
    print("jobs %d, %.1f MB on disk, %.1f MB decoded, %d runs" % (count, disk / 1e6, decoded / 1e6, a.runs))
    for j in (1, 2):
        m = statistics.median(times[j])
        print("-j %d: %.3f s  %.0f jobs/s  %.1f MB/s on disk  %.1f MB/s decoded" % (j, m, count / m, disk / 1e6 / m, decoded / 1e6 / m))
    print("-j 2 / -j 1: %.2fx" % (statistics.median(times[1]) / statistics.median(times[2])))


if __name__ == "__main__":
    sys.exit(main())
