#!/usr/bin/env python3
"""Validates real `dtriage analyze --format json` output against docs/report.schema.json: the
bundled samples, every case of ../shared/corpus when present, and an unreadable-input run."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (tools/install-deps.sh installs it): skipped")
    sys.exit(77)

dtriage, source = sys.argv[1], sys.argv[2]
with open(os.path.join(source, "docs", "report.schema.json")) as f:
    schema = json.load(f)
validator = jsonschema.Draft202012Validator(schema)

inputs = [os.path.join(source, "samples", d) for d in sorted(os.listdir(os.path.join(source, "samples")))
          if os.path.isdir(os.path.join(source, "samples", d))]
corpus = os.path.join(source, "..", "shared", "corpus")
if os.path.isdir(corpus):
    for family in sorted(os.listdir(corpus)):
        fam = os.path.join(corpus, family)
        if not os.path.isdir(fam):
            continue
        for case in sorted(os.listdir(fam)):
            logs = os.path.join(fam, case, "logs")
            if os.path.isdir(logs):
                inputs.append(logs)
tmp = tempfile.mkdtemp()
with open(os.path.join(tmp, "cut.gz"), "wb") as f:
    f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00")
with open(os.path.join(tmp, "ok.log"), "w") as f:
    f.write("plain line\n")
inputs.append(tmp)

# The samples in Chinese too: lang and each sentence's English beside it.
runs = [(path, []) for path in inputs]
samples = os.path.join(source, "samples")
runs += [(os.path.join(samples, d), ["--lang", "zh"]) for d in sorted(os.listdir(samples))]
failed = 0
for path, extra in runs:
    out = subprocess.run([dtriage, "analyze", "--format", "json", *extra, path], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        print(f"FAIL {path}: exit {out.returncode}: {out.stderr.strip()}")
        failed += 1
        continue
    errors = sorted(validator.iter_errors(json.loads(out.stdout)), key=lambda e: list(e.path))
    for e in errors[:5]:
        print(f"FAIL {path}: {'/'.join(map(str, e.path))}: {e.message}")
    if extra and not errors:
        j = json.loads(out.stdout)
        if j.get("lang") != "zh" or not j["verdict"].get("summary_en") or j["verdict"]["summary_en"] == j["verdict"]["summary"]:
            print(f"FAIL {path} {' '.join(extra)}: no Chinese summary with its English beside it")
            errors = [True]
    failed += 1 if errors else 0
print(f"schema: {len(runs) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
