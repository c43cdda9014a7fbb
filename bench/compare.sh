#!/usr/bin/env bash
# dtriage analyze next to rg, cat and gzip on the same job, same machine, same run.
#
#   bench/compare.sh [--runs N] [--bin DTRIAGE] JOB_LOGS_DIR
#
# JOB_LOGS_DIR is typically made by bench/make_job.py (its logs/ folder). Runs alternate between
# the commands (the page cache is warmed first), and medians are printed with the ratios:
#   analyze -jN        dtriage with every core (the default), and -j1
#   rg -f PATTERNS     ripgrep with the rule pack's own event regexes (dtriage rules patterns),
#                      counting matching lines per file, on every core (-z when the job has .gz)
#   cat                reading every file (cat FILES > /dev/null)
#   gzip -dc           decompressing the .gz / .tar.gz files alone (when the job has any)
# Peak RSS of analyze comes from GNU time. Without --bin, the release preset is built first.
# --rg-limit S stops a run of rg after S seconds (default 120; reported as "> S"): its Unicode-aware
# classes crawl on lines of tqdm's block characters, minutes per run on the progress presets.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5
bin=""
rg_limit=120
while [ $# -gt 1 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --rg-limit) rg_limit="$2"; shift 2 ;;
    *) break ;;
  esac
done
job="${1:?usage: bench/compare.sh [--runs N] [--bin DTRIAGE] [--rg-limit S] JOB_LOGS_DIR}"
if [ -z "$bin" ]; then
  bash tools/build.sh release >/dev/null
  bin=build/release/analyzer/dtriage
fi
command -v rg >/dev/null || { echo "compare.sh: rg (Debian package ripgrep) is not installed" >&2; exit 2; }
patterns="$(mktemp)"
trap 'rm -f "$patterns"' EXIT
"$bin" rules patterns > "$patterns"
python3 - "$bin" "$job" "$patterns" "$runs" "$rg_limit" <<'PY'
import math, os, statistics, subprocess, sys, time
dtriage, job, patterns, runs, rg_limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(job) for f in fs)
size = sum(os.path.getsize(f) for f in files)
gz = [f for f in files if f.endswith(".gz")]
cores = os.cpu_count()
cmds = {
    "analyze -j%d" % cores: [dtriage, "analyze", "-j", str(cores), job],
    "analyze -j1": [dtriage, "analyze", "-j", "1", job],
    "rg -f (%d patterns)" % sum(1 for _ in open(patterns)): ["rg", "-c", "-f", patterns] + (["-z"] if gz else []) + [job],
    "cat": ["cat"] + files,
}
if gz:
    cmds["gzip -dc"] = ["gzip", "-dc"] + gz
for f in files:  # warm the page cache
    with open(f, "rb") as h:
        while h.read(1 << 24):
            pass
times = {k: [] for k in cmds}
for _ in range(runs):
    for name, cmd in cmds.items():
        if name.startswith("rg") and times[name] and math.isinf(times[name][-1]):
            times[name].append(math.inf)  # stopped once: not run again
            continue
        t = time.perf_counter()
        try:
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=rg_limit if name.startswith("rg") else None)
            times[name].append(time.perf_counter() - t)
        except subprocess.TimeoutExpired:
            times[name].append(math.inf)
rss = subprocess.run(["/usr/bin/time", "-f", "%M", dtriage, "analyze", job], stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE, text=True).stderr.strip().splitlines()[-1]
verdict = subprocess.run([dtriage, "analyze", "--format", "json", job], capture_output=True, text=True).stdout
med = {k: statistics.median(v) for k, v in times.items()}
print("job: %s, %d files, %.1f MB, %d cores, %d runs each (median, min-max)" % (job, len(files), size / 1e6, cores, runs))
for name, m in med.items():
    if math.isinf(m):
        print("  %-22s   > %.0f s  (stopped)" % (name, rg_limit))
        continue
    print("  %-22s %7.3f s  (%.3f-%.3f)  %7.0f MB/s" % (name, m, min(times[name]), max(times[name]), size / 1e6 / m))
a, a1 = med["analyze -j%d" % cores], med["analyze -j1"]
rg = [v for k, v in med.items() if k.startswith("rg")][0]
print("ratios: analyze/rg %s   analyze-j1/cat %.1f   analyze-j1/analyze-j%d %.2f   analyze-j1 %.0f MB/s" %
      ("< %.3f" % (a / rg_limit) if math.isinf(rg) else "%.2f" % (a / rg), a1 / med["cat"], cores, a1 / a, size / 1e6 / a1))
if gz:
    print("        analyze/gzip -dc %.2f" % (a / med["gzip -dc"]))
print("analyze peak RSS: %.1f MiB" % (int(rss) / 1024))
import json
v = json.loads(verdict)["verdict"]
print("verdict: %s [%s] node %s rank %s: %s" % (v["status"], v["category"], v["node"], v["rank"], v["summary"]))
PY
