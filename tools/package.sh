#!/usr/bin/env bash
# Builds the .deb from a build folder and checks it: unpacked into a scratch root, the installed
# binary must find its rule pack and give every bundled sample its expected verdict, and carry its
# man page, completions and snapshot collector.
# Usage: tools/package.sh [BUILD_DIR]   (default build/release; any configured build folder works)
set -euo pipefail
cd "$(dirname "$0")/.."
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
         usr/share/zsh/vendor-completions/_dtriage usr/share/dtriage/dtriage-snapshot.sh usr/share/dtriage/rules; do
  [ -e "$root/$f" ] || { echo "package lacks /$f" >&2; exit 1; }
done
bin="$root/usr/bin/dtriage"
"$bin" rules lint >/dev/null
python3 - "$bin" "$here" <<'PY'
import json, subprocess, sys
bin, here = sys.argv[1], sys.argv[2]
want = json.load(open(here + "/tests/samples_expected.json"))
bad = 0
for name, exp in sorted(want.items()):
    out = subprocess.run([bin, "analyze", "--format", "json", here + "/samples/" + name], capture_output=True, text=True, cwd="/")
    v = json.loads(out.stdout)["verdict"]
    ok = v["status"] == exp["status"] and v["category"] == exp["category"] and v["rule"] == exp["rule"]
    print("  %-22s %s %s" % (name, "ok  " if ok else "FAIL", v["category"]))
    bad += not ok
sys.exit(1 if bad else 0)
PY
echo "package check: ok"
