#!/usr/bin/env bash
# Generates a batch of lab cases, one after the other (each job uses the machine's cores).
#   tools/lab/make_batch.sh OUT FIRST_SEED LAST_SEED
set -u
out=$1; first=$2; last=$3
mkdir -p "$out"
for s in $(seq "$first" "$last"); do
  /usr/bin/python3 "$(dirname "$0")/run_case.py" --seed "$s" --out "$out" || echo "seed $s: failed ($?)" >&2
done
