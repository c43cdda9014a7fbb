#!/usr/bin/python3
"""Scores dtriage on lab cases: runs `DTRIAGE analyze --format json <case>/logs` on every case
(a folder with TRUTH.json and logs/) found under the given folders, and compares the verdict with
the truth: the category (or "(healthy)"), and the node and rank where the truth names them.

  tools/lab/score.py build/dev/analyzer/dtriage /tmp/lab [more case folders ...]

Prints one line per case (ok / MISS, what was wanted and got, and the case's dimensions) and the
totals. Exit code 0 always (it reports; it does not judge).
"""
import json
import os
import subprocess
import sys


def cases(paths):
    for top in paths:
        if os.path.isfile(os.path.join(top, "TRUTH.json")):
            yield top
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            if "TRUTH.json" in filenames and "logs" in dirnames:
                yield dirpath
                dirnames[:] = []
            dirnames.sort()


def want_of(truth):
    return truth["category"] if truth.get("category") else "(" + truth.get("status", "healthy") + ")"


def verdict(binary, logs):
    try:
        p = subprocess.run([binary, "analyze", "--format", "json", logs], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    if p.returncode not in (0, 1, 2, 3):
        return None, f"exit {p.returncode}: {p.stderr.strip()[-200:]}"
    try:
        return json.loads(p.stdout).get("verdict", {}), None
    except json.JSONDecodeError:
        return None, f"no JSON on stdout (exit {p.returncode})"


def srun_task_is(truth, node):
    """Under `srun -l` with one task per node, task N runs on the allocation's N-th node (the lab
    starts task N on truth["nodes"][N]): where no line names a host, "srun task N" is as far as the
    logs go, and it names the truth's node."""
    if truth.get("output") != "srun" or not isinstance(node, str) or not node.startswith("srun task "):
        return False
    n = node[len("srun task "):]
    nodes = truth.get("nodes") or []
    return n.isdigit() and int(n) < len(nodes) and nodes[int(n)] == truth.get("node")


def dims(t):
    shape = "+".join(str(n) for n in t.get("nproc_per_node", [])) if isinstance(t.get("nproc_per_node"), list) else str(t.get("nproc_per_node"))
    parts = [f"shape {shape}", f"which {t.get('which')}", f"when {t.get('when')}",
             f"restarts {t.get('restarts')}" + (f"({t.get('max_restarts')})" if t.get("max_restarts") else ""),
             f"rdzv {t.get('rendezvous', 'static')}", f"out {t.get('output', t.get('keep'))}" +
             (f"/{t['launcher_mode']}" if t.get("launcher_mode") else ""), "logging" if t.get("logging") else "print",
             f"pack {t.get('packing', 'tar.gz per node' if t.get('archives') else 'folders')}", f"names {t.get('names')}",
             f"hello {t.get('hello', 'lab')}", f"launcher log {t.get('launcher_log', 'warning')}", f"noise {len(t.get('noise', []))}"]
    if t.get("run", "finished") != "finished":
        parts.append("stopped")
    return ", ".join(parts)


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binary, paths = argv[1], argv[2:]
    n = right = named = named_right = named_tied = 0
    for c in sorted(cases(paths)):
        with open(os.path.join(c, "TRUTH.json")) as f:
            truth = json.load(f)
        want = want_of(truth)
        v, err = verdict(binary, os.path.join(c, "logs"))
        n += 1
        name = os.path.basename(c.rstrip("/"))
        if v is None:
            got = f"(error: {err})"
            v = {}
        else:
            got = v.get("category") if v.get("category") and v.get("status") != "healthy" else f"({v.get('status')})"
        ok = got == want
        right += ok
        line = f"{'ok  ' if ok else 'MISS'} {name}: want {want}" + ("" if ok else f", got {got}")
        if truth.get("node") is not None or truth.get("rank") is not None:
            named += 1
            node_ok = truth.get("node") is None or v.get("node") == truth.get("node") or srun_task_is(truth, v.get("node"))
            rank_ok = truth.get("rank") is None or v.get("rank") == truth.get("rank")
            # No rank named, the node right, the truth among the ranks said to be tied.
            tied = node_ok and not rank_ok and v.get("rank") is None and truth.get("rank") in v.get("ranks_tied", [])
            named_right += node_ok and rank_ok
            named_tied += tied
            line += f"; culprit {truth.get('node')} rank {truth.get('rank')}"
            line += (" named" if node_ok and rank_ok else f" among the tied ranks {v.get('ranks_tied')}" if tied
                     else f", got {v.get('node')} rank {v.get('rank')}")
            if ok and not (node_ok and rank_ok) and not tied:
                line = "MISS" + line[4:]
        print(f"{line}  [{dims(truth)}]")
    print(f"categories right: {right}/{n}; culprit node+rank right: {named_right}/{named} (cases naming one); "
          f"node right and the rank among the tied ranks said: {named_tied}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
