#!/usr/bin/env bash
# Installs what is missing and builds dtriage with the given CMake preset (default: dev; arm64 is
# the cross-build for aarch64, whose tests run under qemu-user).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-dev}"
if [ "$preset" = arm64 ]; then
  bash tools/install-deps.sh arm64
else
  bash tools/install-deps.sh
fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
