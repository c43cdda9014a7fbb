#!/usr/bin/env bash
# Line-reading throughput on a generated 1 GB log file, next to `cat FILE >/dev/null` on the same
# machine. Usage: bench/line_throughput.sh [SIZE_MB] (default 1024). Needs the release preset.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb="${1:-1024}"
bash tools/build.sh release >/dev/null
file="$(mktemp -d)/lines.log"
trap 'rm -rf "$(dirname "$file")"' EXIT
python3 - "$file" "$size_mb" <<'PY'
import sys
path, mb = sys.argv[1], int(sys.argv[2])
line = ("[ERROR] RUNTIME(51302,python3):2025-06-04-10:14:21.402.201 [stream.cc:1183]51302 GetError:"
        "Memory async copy failed, device_id=0, stream_id=2, task_id=2114, flip_num=0\n")
block = line * (1 << 14)
with open(path, "w") as f:
    for _ in range(mb * (1 << 20) // len(block) + 1):
        f.write(block)
PY
cat "$file" > /dev/null  # warm the page cache for both
python3 - "$file" build/release/bench/dtriage_count_lines <<'PY'
import os, subprocess, sys, time
path, counter = sys.argv[1], sys.argv[2]
size = os.path.getsize(path)
def run(cmd):
    best = None
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        d = time.perf_counter() - t
        best = d if best is None else min(best, d)
    return best
tc, tl = run(["cat", path]), run([counter, path])
print(f"file: {size >> 20} MiB (best of 3)")
print(f"cat >/dev/null:       {tc:6.2f} s  {size / tc / 2**20:7.0f} MiB/s")
print(f"dtriage line reader:  {tl:6.2f} s  {size / tl / 2**20:7.0f} MiB/s")
PY
