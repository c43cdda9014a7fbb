#!/usr/bin/env bash
# Time and peak memory of `dtriage analyze` on a generated job whose plog holds SIZE_MB of INFO
# lines (the shape of a debug-level plog). Usage: bench/analyze_memory.sh [SIZE_MB] (default 256).
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb="${1:-256}"
bash tools/build.sh release >/dev/null
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/job/node1/plog"
python3 - "$dir/job/node1/plog/plog-51302_20250604101405123.log" "$size_mb" <<'PY'
import sys
path, mb = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    i = 0
    while f.tell() < mb << 20:
        f.write("".join(
            f"[INFO] RUNTIME(51302,python3):2025-06-04-10:{(j // 60000) % 60:02d}:{(j // 1000) % 60:02d}.{j % 1000:03d}.000"
            f" [logger.cc:159] 51302 TaskFinished: device_id={j % 8}, stream_id=3, task_id={j % 65536}, task_finish_num={j}\n"
            for j in range(i, i + 10000)))
        i += 10000
PY
python3 - "$dir/job" build/release/analyzer/dtriage <<'PY'
import os, resource, subprocess, sys, time
job, exe = sys.argv[1], sys.argv[2]
size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(job) for f in fs)
t = time.perf_counter()
subprocess.run([exe, "analyze", "--format", "json", job], stdout=subprocess.DEVNULL, check=True)
d = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"input {size >> 20} MiB: {d:.2f} s ({size / d / 2**20:.0f} MiB/s), peak RSS {rss / 1024:.1f} MiB")
PY
