#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what is missing, builds with
# warnings as errors, runs every test (unit, corpus regression, rule examples, fuzz replays).
# Tests that need ../shared/corpus skip cleanly where it is absent.
#   tools/test.sh          dev preset
#   tools/test.sh asan     the same under address + undefined sanitizers
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-dev}"
bash tools/build.sh "$preset"
ctest --preset "$preset" -j "$(nproc)" --timeout 600
