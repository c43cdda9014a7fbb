#!/usr/bin/env bash
# Installs every Debian package dtriage needs to build and test. Idempotent: packages already
# present are skipped, `apt-get update` runs at most once, nothing prompts.
# This file is the one list of packages; nothing else installs anything.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake pkg-config git ca-certificates
  # libraries
  libre2-dev libsimdjson-dev libarchive-dev libvectorscan-dev
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
  zlib1g-dev libbz2-dev liblzma-dev libzstd-dev
  # tests and benchmarks (ripgrep: bench/compare.sh runs the rule pack's patterns through rg)
  libgtest-dev libgmock-dev libbenchmark-dev ripgrep
  # real jobs on the CPU: the DDP smoke test (gloo) and the failure lab
  python3-torch
  # batch scans on a real one-node Slurm (started and stopped by the test)
  slurm-wlm munge
  # used by the test suite to build the codec matrix
  gzip bzip2 xz-utils zstd tar zip python3
  # report tests: JSON Schema validation, the HTML report in a real headless browser
  python3-jsonschema chromium fonts-dejavu-core
  # optional: libFuzzer targets (cmake --preset fuzz)
  clang libclang-rt-14-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
