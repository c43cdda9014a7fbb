#!/usr/bin/env python3
"""Writes dtriage's man page (docs/dtriage.1) and shell completions (docs/completions/dtriage.bash,
docs/completions/_dtriage) from the CLI's own --help, so that they say what the binary accepts.
The test suite runs it with --check: a change to the CLI that is not carried into them fails.
Usage: tools/make-docs.py DTRIAGE [--check]
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def helptext(binary, *args):
    out = subprocess.run([binary, *args, "--help"], capture_output=True, text=True).stdout
    return out.replace(binary, "dtriage")


def parse(text):
    """Sections of a CLI11 help: description, usage, positionals, options, subcommands."""
    lines = text.splitlines()
    desc = lines[0].strip() if lines else ""
    usage = ""
    sections = {"Positionals": [], "Options": [], "Subcommands": []}
    current = None
    for l in lines[1:]:
        if l.startswith("Usage:"):
            usage = l[len("Usage:"):].strip()
            continue
        m = re.match(r"^(Positionals|Options|Subcommands):\s*$", l)
        if m:
            current = m.group(1)
            continue
        if current is None or not l.strip():
            continue
        if re.match(r"^  \S", l):  # a new entry: name (and type) then two or more spaces then text
            m = re.match(r"^  (\S.*?)(?:\s{2,}(\S.*))?$", l)
            sections[current].append([m.group(1).strip(), (m.group(2) or "").strip()])
        elif sections[current]:  # continuation of the text
            sections[current][-1][1] = (sections[current][-1][1] + " " + l.strip()).strip()
    return desc, usage, sections


def roff(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", s)


def option_names(spec):
    names = []
    for part in spec.split()[0].split(","):
        if part.startswith("-"):
            names.append(part)
    return names


def main():
    binary = sys.argv[1]
    check = "--check" in sys.argv
    desc, usage, top = parse(helptext(binary))
    subs = [name for name, _ in top["Subcommands"]]
    per = {s: parse(helptext(binary, s)) for s in subs}

    man = [".\\\" Written by tools/make-docs.py from dtriage's --help; edit the CLI or that script, not this file.",
           '.TH DTRIAGE 1 "" "dtriage" "User Commands"',
           ".SH NAME", "dtriage \\- " + roff(desc.replace("dtriage: ", "")),
           ".SH SYNOPSIS"]
    for s in subs:
        man += [".B dtriage " + s, roff(per[s][1].split(" " + s + " ", 1)[-1]) if " " + s + " " in per[s][1] else "", ".br"]
    man += [".SH DESCRIPTION",
            "A distributed training job dies and leaves logs on many nodes: CANN plog files, HCCL and NCCL",
            "output, torchrun launcher output and per-rank files, Python tracebacks, npu\\-smi and nvidia\\-smi",
            "output, often packed in tar.gz archives. dtriage reads all of it without unpacking to disk,",
            "correlates it per node, rank, device and process, and names the root cause in one sentence with",
            "its values and the log lines behind it. Before a launch, \\fBdtriage check\\fR runs the six",
            "multi\\-node checks over node snapshots and the DDP smoke test's output.",
            ".SH COMMANDS"]
    for name, text in top["Subcommands"]:
        d, u, sec = per[name]
        man += [".SS " + name, roff(text), ".PP", "Usage: " + roff(u)]
        for pname, ptext in sec["Positionals"]:
            man += [".TP", "\\fI" + roff(pname.split()[0]) + "\\fR", roff(ptext)]
        for oname, otext in sec["Options"]:
            if oname.startswith("-h,--help"):
                continue
            man += [".TP", "\\fB" + roff(oname) + "\\fR", roff(otext)]
    man += [".SH EXIT STATUS",
            "0: the analysis is done, whatever it found. 1: done, but some input could not be read (listed",
            "in the report's inputs and on standard error). 2: a usage error, or nothing readable.",
            "\\fBdtriage check\\fR adds 3: a pre\\-launch check failed.",
            "\\fBdtriage analyze \\-\\-ci\\fR puts the verdict in the exit code: 0 healthy, 3 failed,",
            "4 inconclusive (1 and 2 win over them). A PATH that does not exist is a usage error (2).",
            ".SH FILES",
            ".TP", "/usr/share/dtriage/rules",
            "The rule pack (one YAML file per rule). \\fB\\-\\-rules DIR\\fR adds rules of your own;",
            "\\fBDTRIAGE_RULES_DIR\\fR replaces the pack's folder.",
            ".TP", "/usr/share/dtriage/dtriage-snapshot.sh",
            "The node snapshot collector, as \\fBdtriage snapshot\\-script\\fR prints it.",
            ".TP", "/usr/share/dtriage/ddp_smoke_test.py",
            "The minimal DDP validation whose output \\fBdtriage check\\fR judges.",
            ".SH EXAMPLES",
            ".nf",
            "dtriage analyze /data/incidents/job\\-4711/",
            "dtriage analyze job.tar.gz \\-\\-format markdown \\-\\-redact > ticket.md",
            "dtriage scan /archive/failed\\-jobs \\-o results.jsonl \\-\\-summary summary.html",
            "dtriage check snapshots/ smoke\\-*.log \\-\\-launch \"torchrun \\-\\-nnodes 2 \\-\\-nproc_per_node 8 train.py\"",
            ".fi", ""]
    man_text = "\n".join(l for l in man if l is not None) + "\n"

    # bash: sub-commands first, then each one's options (and file names for its arguments).
    cases = []
    for s in subs:
        opts = sorted({n for oname, _ in per[s][2]["Options"] for n in option_names(oname)})
        words = " ".join(opts)
        if s == "rules":
            words = "list show test lint fields patterns literals " + words
        cases.append('    %s) opts="%s" ;;' % (s, words))
    bash = """# bash completion for dtriage (written by tools/make-docs.py from dtriage's --help)
_dtriage() {
  local cur cmd opts
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "%s --help --version" -- "$cur"))
    return
  fi
  cmd="${COMP_WORDS[1]}"
  case "$cmd" in
%s
    *) opts="" ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(printf '%%s ' $opts | tr ' ' '\\n' | grep -v '^-' | tr '\\n' ' ')" -- "$cur") $(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _dtriage dtriage
""" % (" ".join(subs), "\n".join(cases))

    zlines = ["#compdef dtriage", "# zsh completion for dtriage (written by tools/make-docs.py from dtriage's --help)",
              "_dtriage() {", "  local -a subcommands", "  subcommands=("]
    for name, text in top["Subcommands"]:
        zlines.append("    '%s:%s'" % (name, text.replace("'", "").replace(":", " -")[:70]))
    zlines += ["  )", "  if (( CURRENT == 2 )); then", "    _describe 'command' subcommands", "    return", "  fi",
               "  case ${words[2]} in"]
    for s in subs:
        specs = []
        for oname, otext in per[s][2]["Options"]:
            for n in option_names(oname):
                specs.append("'%s[%s]'" % (n, otext.replace("'", "").replace("[", "(").replace("]", ")").replace(":", " -")[:60]))
        zlines.append("    %s) _arguments -s %s '*:file:_files' ;;" % (s, " ".join(specs)))
    zlines += ["  esac", "}", '_dtriage "$@"', ""]
    zsh = "\n".join(zlines)

    outputs = {os.path.join(HERE, "docs", "dtriage.1"): man_text,
               os.path.join(HERE, "docs", "completions", "dtriage.bash"): bash,
               os.path.join(HERE, "docs", "completions", "_dtriage"): zsh}
    stale = []
    for path, text in outputs.items():
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            stale.append(os.path.relpath(path, HERE))
            if not check:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
    if check and stale:
        print("out of date with the CLI: %s (run tools/make-docs.py BINARY)" % ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
