#!/usr/bin/env bash
# Builds the .deb from a build folder and checks it: unpacked into a scratch root, the installed
# binary must find its rule pack and give every bundled sample its expected verdict, and carry its
# man page, completions and snapshot collector.
# Usage: tools/package.sh [--install] [BUILD_DIR]   (default build/release; any configured build folder)
#   --install  also installs the package on this machine (root; dpkg -i, its dependencies already
#              present), checks `man dtriage`, bash completion of sub-commands and the installed
#              binary's verdicts, then removes it. Skipped, with a message, when dtriage is already
#              installed here (it is not ours to remove).
# A cross-built folder (the arm64 preset) gives the arm64 package; its binary is then run through
# the emulator named in DTRIAGE_EMULATOR (ctest sets it, e.g. "qemu-aarch64 -L /").
set -euo pipefail
cd "$(dirname "$0")/.."
install=0
if [ "${1:-}" = --install ]; then
  install=1
  shift
fi
build="${1:-build/release}"
here="$PWD"
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls -t "$build"/dtriage_*.deb | head -1)
echo "package: $deb"
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Architecture\|Section\|Description\):/  \1:/p'
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
for f in usr/bin/dtriage usr/share/man/man1/dtriage.1 usr/share/bash-completion/completions/dtriage \
         usr/share/zsh/vendor-completions/_dtriage usr/share/dtriage/dtriage-snapshot.sh usr/share/dtriage/rules \
         usr/share/dtriage/catalogues/nccl.yaml; do
  [ -e "$root/$f" ] || { echo "package lacks /$f" >&2; exit 1; }
done
arch=$(dpkg-deb -f "$deb" Architecture)
if [ -z "${DTRIAGE_EMULATOR:-}" ] && [ "$arch" = arm64 ] && [ "$(dpkg --print-architecture)" != arm64 ]; then
  DTRIAGE_EMULATOR="qemu-aarch64 -L /"   # as cmake/aarch64-linux-gnu.cmake runs the arm64 build
fi
read -r -a emulator <<< "${DTRIAGE_EMULATOR:-}"

# The installed binary finds its rule pack (and catalogues) and gives every sample its expected verdict.
check_binary() {
  local bin="$1"
  "${emulator[@]}" "$bin" rules lint >/dev/null
  "${emulator[@]}" "$bin" rules coverage >/dev/null   # and its catalogues
  python3 - "$bin" "$here" "${emulator[@]}" <<'PY'
import json, subprocess, sys
bin, here, emulator = sys.argv[1], sys.argv[2], sys.argv[3:]
want = json.load(open(here + "/tests/samples_expected.json"))
bad = 0
for name, exp in sorted(want.items()):
    out = subprocess.run(emulator + [bin, "analyze", "--format", "json", here + "/samples/" + name], capture_output=True, text=True, cwd="/")
    v = json.loads(out.stdout)["verdict"]
    ok = v["status"] == exp["status"] and v["category"] == exp["category"] and v["rule"] == exp["rule"]
    print("  %-22s %s %s" % (name, "ok  " if ok else "FAIL", v["category"]))
    bad += not ok
sys.exit(1 if bad else 0)
PY
}
check_binary "$root/usr/bin/dtriage"
echo "package check (unpacked): ok"

if [ "$install" = 1 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "package install check: skipped (not root)"
  elif dpkg-query -W -f='${Status}' dtriage 2>/dev/null | grep -q 'install ok installed'; then
    echo "package install check: skipped (a dtriage package is already installed on this machine)"
  else
    trap 'dpkg -r dtriage >/dev/null 2>&1 || true; rm -rf "$root"' EXIT
    dpkg -i "$deb" >/dev/null
    [ "$(command -v dtriage)" = /usr/bin/dtriage ] || { echo "installed dtriage is not /usr/bin/dtriage" >&2; exit 1; }
    page=$(man -w dtriage)
    MANPAGER=cat MANWIDTH=80 man dtriage 2>/dev/null | grep -q "dtriage analyze" || { echo "man dtriage does not render ($page)" >&2; exit 1; }
    # Completion as an interactive bash gets it: bash-completion's loader where installed, else the file.
    got=$(cd "$root" && bash -c 'if [ -f /usr/share/bash-completion/bash_completion ]; then
                     . /usr/share/bash-completion/bash_completion; _completion_loader dtriage
                   else . /usr/share/bash-completion/completions/dtriage; fi
                   f=$(complete -p dtriage | sed -n "s/.*-F \([^ ]*\).*/\1/p")
                   COMP_WORDS=(dtriage an); COMP_CWORD=1; COMPREPLY=(); "$f"; echo "${COMPREPLY[*]}"
                   COMP_WORDS=(dtriage rules li); COMP_CWORD=2; COMPREPLY=(); "$f"; echo "${COMPREPLY[*]}"')
    [ "$got" = "$(printf 'analyze\nlist lint literals')" ] || { echo "bash completion gave: $got" >&2; exit 1; }
    check_binary /usr/bin/dtriage
    dpkg -r dtriage >/dev/null
    echo "package install check: ok (man page at $page, bash completion, verdicts)"
  fi
fi
