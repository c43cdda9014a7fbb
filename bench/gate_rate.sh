#!/usr/bin/env bash
# The line gate on every preset of bench/make_job.py: fails when the share of lines that hold one
# of the gate's literals (they go to the parsers and the rule engine) is above BOUND percent on
# any preset, or when analyze does not name the planted cause, node and rank.
#   bench/gate_rate.sh [--size 64M] [--bound 2] [--seed N]
# The seed (drawn at random unless given) picks host names, the culprit, the print styles and the
# mix's weights; each run prints it, so a failure can be made again. Builds the release preset.
set -euo pipefail
cd "$(dirname "$0")/.."
size=64M
bound=2
seed=$((RANDOM * 32768 + RANDOM))
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size="$2"; shift 2 ;;
    --bound) bound="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    *) echo "usage: bench/gate_rate.sh [--size 64M] [--bound PERCENT] [--seed N]" >&2; exit 2 ;;
  esac
done
bash tools/build.sh release >/dev/null
bin=build/release/analyzer/dtriage
rate=build/release/bench/dtriage_gate_rate
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0
echo "seed $seed, $size per preset, bound $bound %"
for preset in progress nccl plog table mix; do
  out="$work/$preset"
  python3 bench/make_job.py --out "$out" --preset "$preset" --nodes 4 --ranks 8 --size "$size" --seed "$seed" >/dev/null
  rc=0
  text="$("$rate" --max "$bound" "$out/logs" 2>/dev/null)" || rc=$?
  line="${text%%$'\n'*}"
  case "$rc" in
    0) ;;
    1) fail=1; line="$line  ABOVE THE BOUND" ;;
    *) fail=1; line="dtriage_gate_rate failed ($rc)" ;;
  esac
  named="$(python3 - "$bin" "$out" <<'PY'
import json, subprocess, sys
dtriage, out = sys.argv[1], sys.argv[2]
truth = json.load(open(out + "/TRUTH.json"))
v = json.loads(subprocess.run([dtriage, "analyze", "--format", "json", out + "/logs"], capture_output=True, text=True).stdout)["verdict"]
ok = v["category"] == truth["category"] and (v.get("node") or "").split(".")[0] == truth["node"] and v.get("rank") == truth["rank"]
print(("named" if ok else "MISSED (%s %s %s, truth %s %s %s)" % (v["category"], v.get("node"), v.get("rank"),
      truth["category"], truth["node"], truth["rank"])))
PY
)" || named="MISSED (analyze gave no verdict)"
  [ "${named#named}" = "$named" ] && fail=1
  printf '%-9s %s; %s\n' "$preset" "$line" "$named"
done
exit $fail
