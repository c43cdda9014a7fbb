#!/usr/bin/env bash
# Installs what is missing, builds dtriage, and analyzes a bundled sample (default: the seed
# incident). Extra arguments go to `dtriage analyze`, e.g. --format json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh dev >&2
sample="samples/seed-nproc-sdma"
if [ $# -gt 0 ] && [ -e "$1" ]; then sample="$1"; shift; fi
exec build/dev/analyzer/dtriage analyze "$sample" "$@"
