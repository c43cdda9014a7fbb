#!/usr/bin/env bash
# Installs every Debian package dtriage needs to build and test. Idempotent: packages already
# present are skipped, `apt-get update` runs at most once, nothing prompts.
# This file is the one list of packages; nothing else installs anything.
#   tools/install-deps.sh         the native build (amd64 or arm64 alike)
#   tools/install-deps.sh arm64   also the cross-build for aarch64 on an amd64 machine (the arm64
#                                 preset): cross compiler, :arm64 libraries, qemu-user
set -euo pipefail
cd "$(dirname "$0")/.."

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
  # Chinese reports (--lang zh) render their CJK text in the browser test and the screenshot
  fonts-noto-cjk
  # the package check: `man dtriage` and completion as an interactive bash loads it
  man-db bash-completion
  # optional: libFuzzer targets (cmake --preset fuzz)
  clang libclang-rt-14-dev
)

# The cross-build for aarch64 (cmake/aarch64-linux-gnu.cmake). libsimdjson-dev and libyaml-cpp-dev
# are not Multi-Arch: same (installing their :arm64 builds would remove the amd64 ones), so their
# arm64 files (with the libraries they point at) are unpacked under build/sysroot-arm64 instead.
ARM64_PACKAGES=(
  crossbuild-essential-arm64 qemu-user
  libre2-dev:arm64 libarchive-dev:arm64 libvectorscan-dev:arm64
  zlib1g-dev:arm64 libbz2-dev:arm64 liblzma-dev:arm64 libzstd-dev:arm64
  libsimdjson14:arm64 libyaml-cpp0.7:arm64
  libgtest-dev:arm64 libgmock-dev:arm64
)
ARM64_UNPACKED=(libsimdjson-dev:arm64 libsimdjson14:arm64 libyaml-cpp-dev:arm64 libyaml-cpp0.7:arm64)
ARM64_ROOT=build/sysroot-arm64

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
updated=0
update() {
  [ "$updated" = 1 ] || $SUDO apt-get update -q
  updated=1
}

if [ "${1:-}" = arm64 ]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "install-deps: adding the arm64 architecture" >&2
    $SUDO dpkg --add-architecture arm64
    update
  fi
  PACKAGES+=("${ARM64_PACKAGES[@]}")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  update
  # --no-remove: fail rather than let an :arm64 package push out its amd64 twin
  $SUDO apt-get install -y -q --no-install-recommends --no-remove "${missing[@]}"
fi

if [ "${1:-}" = arm64 ] && [ ! -e "$ARM64_ROOT/.unpacked" ]; then
  echo "install-deps: unpacking ${ARM64_UNPACKED[*]} under $ARM64_ROOT" >&2
  update
  debs=$(mktemp -d)
  (cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "${ARM64_UNPACKED[@]}")
  mkdir -p "$ARM64_ROOT"
  for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$ARM64_ROOT"; done
  rm -rf "$debs"
  touch "$ARM64_ROOT/.unpacked"
fi
