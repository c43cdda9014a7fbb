#!/usr/bin/python3
"""Runs one real torchrun job on the CPU (gloo) as N simulated nodes x M processes, injects one
fault, keeps the logs the way real deployments keep them, and records the truth.

Each node is its own torchrun in its own UTS namespace (`unshare -u`, so its own host name), all on
127.0.0.1. Everything about the case (nodes, processes, host names, fault, its rank and step, how
logs are kept) is drawn from --seed, so a case can be made again.

  tools/lab/run_case.py --seed 7 --out tests/lab/cases [--fault hang]

Writes <out>/<case>/TRUTH.json and <out>/<case>/logs/: one folder per node (launcher output,
per-rank files from --log-dir, dmesg where the kernel had something to say), or one <node>.tar.gz
per node.
Needs root (unshare, cgroups) and Debian's python3-torch.
"""
import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"

FAULTS = ["none", "noisy", "exception", "exit", "sigkill", "sigsegv", "hang", "mismatch", "oom",
          "node-missing", "nnodes-differ", "wrong-port", "port-busy"]

# What the fault is, in the contract's categories; who is to blame.
TRUTH = {
    "none": ("healthy", None), "noisy": ("healthy", None),
    "exception": ("failed", "worker-exception"), "exit": ("failed", "worker-exception"),
    "sigkill": ("failed", "worker-signal"), "sigsegv": ("failed", "worker-signal"),
    "hang": ("failed", "collective-timeout"), "mismatch": ("failed", "collective-mismatch"),
    "oom": ("failed", "host-oom-killed"),
    "node-missing": ("failed", "rendezvous-failure"), "nnodes-differ": ("failed", "world-size-mismatch"),
    "wrong-port": ("failed", "rendezvous-failure"), "port-busy": ("failed", "port-in-use"),
}

# Host names as sites name them; `k` is drawn once per case, `i` is the node's index.
NAME_STYLES = [
    lambda k, i: f"gpu-a{i + 1:02d}",
    lambda k, i: f"rack{k % 9 + 1}-n{i + 1:02d}",
    lambda k, i: f"ip-10-0-{k % 10}-{10 + i}",
    lambda k, i: "host" + "ABCDEFGH"[i],
    lambda k, i: f"trn{k % 90 + 10}-{i}",
    lambda k, i: f"dgx-{['h100', 'a100'][k % 2]}-{i + 1:03d}",
    lambda k, i: f"worker-{i}",
    lambda k, i: f"node{i}",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def memory_cgroup(name, limit_mb):
    """A memory cgroup (v1 or v2) for one worker; None where none can be made."""
    for base in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup/memory", "/sys/fs/cgroup"):
        own = None
        try:
            with open("/proc/self/cgroup") as f:
                for line in f:
                    parts = line.strip().split(":", 2)
                    if (base.endswith("memory") and "memory" in parts[1].split(",")) or (not base.endswith("memory") and parts[1] == ""):
                        own = parts[2]
        except OSError:
            continue
        if own is None:
            continue
        path = os.path.join(base + own, name)
        try:
            os.makedirs(path, exist_ok=True)
            limit_file = "memory.max" if os.path.exists(os.path.join(path, "memory.max")) else "memory.limit_in_bytes"
            with open(os.path.join(path, limit_file), "w") as f:
                f.write(str(limit_mb << 20))
            return path
        except OSError:
            continue
    return None


def dmesg_lines():
    try:
        return subprocess.run(["dmesg"], capture_output=True, text=True, timeout=10).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fault", choices=FAULTS)
    ap.add_argument("--timeout", type=int, default=150, help="seconds before the whole case is stopped")
    args = ap.parse_args()
    r = random.Random(args.seed)
    fault = args.fault or FAULTS[args.seed % len(FAULTS)]  # every fault in turn, the rest drawn
    nnodes = r.choice([2, 2, 3]) if fault not in ("nnodes-differ", "node-missing", "wrong-port") else r.choice([2, 3])
    nproc = r.choice([1, 2, 2, 3]) if nnodes == 2 else r.choice([1, 2])
    style = r.choice(NAME_STYLES)
    k = r.randrange(1000)
    hosts = [style(k, i) for i in range(nnodes)]
    world = nnodes * nproc
    target_rank = r.randrange(world)
    target_node = target_rank // nproc
    odd_node = r.randrange(1, nnodes)  # the node a launch-level fault hits (never the master)
    step = r.randint(1, 3)
    keep = r.choice(["tee", "tee", "redirect", "plain"])  # how worker output is kept
    launcher_name = r.choice(["launcher.log", "train.log", "stdout.txt", "torchrun.out"])
    archives = r.random() < 0.25
    port = free_port()
    case = f"lab-{args.seed:04d}-{fault}"
    root = os.path.join(args.out, case)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    work = os.path.join(root, ".work")
    os.makedirs(work)

    env = dict(os.environ, LAB_FAULT=fault if fault in ("exception", "exit", "sigkill", "sigsegv", "hang", "mismatch", "oom", "noisy") else "none",
               LAB_RANK=str(target_rank), LAB_STEP=str(step), LAB_EXIT=str(r.choice([1, 2, 3, 7, 42])),
               LAB_TIMEOUT="20", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.pop("LAB_CGROUP", None)
    cgroup = None
    if fault == "oom":
        cgroup = memory_cgroup(f"dtriage-lab-{args.seed}", 400)
        if cgroup is None:
            print("no memory cgroup can be made here; oom case skipped", file=sys.stderr)
            shutil.rmtree(root)
            return 3
        env["LAB_CGROUP"] = cgroup
    dmesg_before = len(dmesg_lines())

    blocker = None
    if fault == "port-busy":  # a leftover process holds the master port
        blocker = socket.socket()
        blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
        blocker.bind(("0.0.0.0", port))
        blocker.listen(1)

    procs = []
    start = time.time()
    for i, host in enumerate(hosts):
        if fault == "node-missing" and i == odd_node:
            continue  # it never started: no logs, no folder
        node_dir = os.path.join(work, host)
        os.makedirs(node_dir, exist_ok=True)
        cmd = [PY, os.path.join(HERE, "torchrun.py"),
               "--nnodes", str(nnodes + 1 if fault == "nnodes-differ" and i == odd_node else nnodes),
               "--nproc_per_node", str(nproc), "--node_rank", str(i),
               "--master_addr", "127.0.0.1",
               "--master_port", str(port + 1 if fault == "wrong-port" and i == odd_node else port),
               "--max_restarts", "0"]
        if keep != "plain":
            cmd += ["--log_dir", "torchrun_logs"]  # relative to the node's folder, as a job's working directory
            cmd += ["--tee", "3"] if keep == "tee" else ["--redirects", "3"]
        cmd += [os.path.join(HERE, "train.py")]
        shell = "hostname " + host + " && echo '+ torchrun " + " ".join(cmd[2:-1]) + " train.py' && exec " + " ".join(cmd)
        log = open(os.path.join(node_dir, launcher_name), "w")
        procs.append(subprocess.Popen(["unshare", "-u", "sh", "-c", shell], stdout=log, stderr=subprocess.STDOUT, env=env,
                                      cwd=node_dir, start_new_session=True))
        time.sleep(r.uniform(0.2, 1.5))
    status = "finished"
    # Launch-level faults leave the launchers waiting in rendezvous, and a hung rank keeps its
    # node's launcher waiting: the logs stop there (as when an operator kills a stuck job).
    limit = 50 if fault in ("node-missing", "nnodes-differ", "wrong-port", "port-busy", "hang") else args.timeout
    while any(p.poll() is None for p in procs):
        if time.time() - start > limit:
            status = "stopped after the time limit"
            for p in procs:
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
            break
        time.sleep(0.5)
    if blocker is not None:
        blocker.close()
    new_kernel = dmesg_lines()[dmesg_before:]
    if cgroup:
        kernel = [l for l in new_kernel if "Killed process" in l or "oom-kill" in l or "out of memory" in l]
        if kernel:
            with open(os.path.join(work, hosts[target_node], "dmesg.txt"), "w") as f:
                f.write("\n".join(kernel) + "\n")
        try:
            os.rmdir(cgroup)
        except OSError:
            pass

    # Per-rank files: keep them under the node folder as torchrun laid them out.
    for i, host in enumerate(hosts):
        src = os.path.join(work, host)
        if not os.path.isdir(src):
            continue
        os.makedirs(os.path.join(root, "logs"), exist_ok=True)
        if archives:
            with tarfile.open(os.path.join(root, "logs", host + ".tar.gz"), "w:gz") as t:
                t.add(src, arcname=host)
        else:
            shutil.copytree(src, os.path.join(root, "logs", host))
    shutil.rmtree(work)

    st, cat = TRUTH[fault]
    truth = {"status": st, "category": cat, "node": None, "rank": None, "fault": fault, "seed": args.seed,
             "nodes": hosts, "nproc_per_node": nproc, "keep": keep, "archives": archives, "run": status,
             "seconds": round(time.time() - start, 1)}
    if fault in ("exception", "exit", "sigkill", "sigsegv", "hang", "mismatch", "oom"):
        truth["node"], truth["rank"] = hosts[target_node], target_rank
    elif fault in ("nnodes-differ", "wrong-port"):
        truth["node"] = hosts[odd_node]
    # node-missing: the node left no logs, so no name can be read from them; mismatch: which side of
    # a size mismatch detects it depends on the algorithm, so the logs cannot tell the odd rank.
    if fault == "mismatch":
        truth["node"], truth["rank"] = None, None
    elif fault == "port-busy":
        truth["node"] = hosts[0]
    with open(os.path.join(root, "TRUTH.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")
    print(case, st, cat, truth["node"], truth["rank"], status, truth["seconds"], "s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
