#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs what is missing, builds with
# warnings as errors, runs every test (unit, corpus regression, rule examples, fuzz replays,
# hostile inputs, batch scans, the smoke test and the Slurm array).
# Tests that need ../shared/corpus skip cleanly where it is absent.
#   tools/test.sh          the normal build, then the same suite under address + undefined sanitizers,
#                          then (on amd64) the aarch64 cross-build's suite under qemu-user
#   tools/test.sh dev      the normal build only
#   tools/test.sh asan     the sanitizer build only
#   tools/test.sh arm64    the aarch64 cross-build only (its tests run under qemu-user; the package
#                          test builds and checks the arm64 .deb)
set -euo pipefail
cd "$(dirname "$0")/.."
default="dev asan"
if [ "$(dpkg --print-architecture)" = amd64 ]; then
  default="$default arm64"
fi
presets=("${@:-$default}")
for preset in ${presets[@]}; do
  echo "== tools/test.sh: $preset" >&2
  bash tools/build.sh "$preset"
  ctest --preset "$preset" -j "$(nproc)" --timeout 900
done
