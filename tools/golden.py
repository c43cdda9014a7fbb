#!/usr/bin/env python3
"""Golden reports: every bundled sample in every format, in English and in Chinese (--lang zh), with
the version scrubbed.

  tools/golden.py --update [DTRIAGE]   rewrite tests/golden/ from the current build (then review the diff)
  tools/golden.py --check  [DTRIAGE]   compare (ctest runs this)
"""
import difflib
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
GOLDEN = os.path.join(ROOT, "tests", "golden")
FORMATS = {"text": "txt", "json": "json", "markdown": "md", "html": "html"}


def scrub(text):
    text = re.sub(r'"dtriage": "[^"]*"', '"dtriage": "VERSION"', text)
    text = re.sub(r"Report by dtriage [^ <_]+\.", "Report by dtriage VERSION.", text)
    text = re.sub(r"由 dtriage [^ <_]+ 生成", "由 dtriage VERSION 生成", text)
    text = re.sub(r'"loaded": \d+', '"loaded": N', text)  # grows with the rule pack
    return text


def render(dtriage, sample, fmt, redact, lang):
    args = [dtriage, "analyze", "--format", fmt, "--color", "never"] if fmt == "text" else [dtriage, "analyze", "--format", fmt]
    if redact:
        args.append("--redact")
    args += ["--lang", lang]
    # A fixed time of analysis (the HTML report's head), as reproducible builds fix theirs.
    env = dict(os.environ, SOURCE_DATE_EPOCH="1767225600")
    out = subprocess.run(args + [os.path.join("samples", sample)], cwd=ROOT, capture_output=True, text=True, env=env)
    return scrub(out.stdout)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    dtriage = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.join(ROOT, "build", "dev", "analyzer", "dtriage")
    samples = sorted(d for d in os.listdir(os.path.join(ROOT, "samples")) if os.path.isdir(os.path.join(ROOT, "samples", d)))
    os.makedirs(GOLDEN, exist_ok=True)
    bad = 0
    total = 0
    for sample in samples:
        for fmt, ext in FORMATS.items():
            for redact, lang in ((False, "en"), (True, "en"), (False, "zh")):
                if redact and fmt not in ("text", "markdown"):
                    continue
                name = f"{sample}{'.redacted' if redact else ''}{'.zh' if lang != 'en' else ''}.{ext}"
                path = os.path.join(GOLDEN, name)
                got = render(dtriage, sample, fmt, redact, lang)
                total += 1
                want = open(path).read() if os.path.exists(path) else None
                if mode == "--update":
                    # Every change is shown, so that an update is reviewed, not waved through.
                    if want != got:
                        bad += 1
                        print(f"{'NEW' if want is None else 'CHANGED'} {name}:")
                        sys.stdout.writelines(difflib.unified_diff((want or "").splitlines(True), got.splitlines(True), name, "now"))
                    with open(path, "w") as f:
                        f.write(got)
                    continue
                if want is None:
                    bad += 1
                    print(f"FAIL {name}: no golden file (tools/golden.py --update, then review)")
                    continue
                if got != want:
                    bad += 1
                    print(f"FAIL {name} differs from the golden file (tools/golden.py --update, then review):")
                    sys.stdout.writelines(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), name, "now"))[:40])
    if mode == "--update":
        print(f"wrote {total} golden files to tests/golden/, {bad} of them changed")
        return 0
    print(f"golden: {total - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
