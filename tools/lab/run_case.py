#!/usr/bin/python3
"""Runs one real torchrun job on the CPU (gloo) as simulated nodes, injects faults, keeps the logs
the way real deployments hand them over, and writes the truth the job itself recorded.

Each node is its own torchrun in its own UTS and mount namespace (`unshare -um`: its own host name,
and an /etc/hosts naming every node, as a cluster's DNS would), all on 127.0.0.1. Every dimension
of the case is drawn from --seed, each with its own draw (one random.Random(seed), drawn in a fixed
order, so one dimension never decides another):

  fault kind, nodes and processes per node (uneven, at most 12 in all), which rank, when (start-up,
  after many steps, during a restart), restarts (none, recovering, exhausted), rendezvous (static,
  c10d), output (launcher only, --tee, --redirects, srun -l, docker json-file, kubectl --prefix,
  Ray, pdsh host labels), python logging, packing (folders, tar.gz per node, one tar.gz, one zip), host names,
  launcher log file name, torchrun's log level (LOGLEVEL=INFO or its default), collective
  timeout, steps.

  tools/lab/run_case.py --seed 7 --out /tmp/lab [--fault hang] [--timeout 70]

Writes <out>/lab-<seed>-<fault>/TRUTH.json and <out>/lab-<seed>-<fault>/logs/. Collectors (srun -l,
docker, kubectl, Ray, pdsh) only add the prefix or wrapping their real counterpart adds, to lines as the
processes wrote them; no line is written by hand. The truth comes from what the workers recorded
(rank, host, pid, attempt) and what each fault recorded before it struck, in a scratch folder
outside the logs that is removed afterwards.
Needs root (unshare, mount, cgroups) and Debian's python3-torch.
"""
import argparse
import datetime
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
MAX_WORLD = 12

# Fault kinds and their weights (per cent): rank-level 75, healthy 8, launch-level 17.
WEIGHTS = {
    "exception": 12, "exit": 9, "sigkill": 3, "sigsegv": 3, "sigabrt": 3, "sigbus": 3, "hang": 8, "slow": 6,
    "memoryerror": 5, "oom": 6, "before-init": 6, "two-faults": 8, "mismatch": 3,
    "none": 5, "noisy": 3,
    "node-missing": 4, "nnodes-differ": 4, "wrong-port": 4, "port-busy": 5,
}
FAULTS = list(WEIGHTS)
LAUNCH = ("node-missing", "nnodes-differ", "wrong-port", "port-busy")
HEALTHY = ("none", "noisy")
NEEDS_PEERS = ("hang", "slow", "before-init", "mismatch", "two-faults")
TIMEOUT_KINDS = ("hang", "slow", "before-init")

# What an event is, in the contract's categories.
CATEGORY = {
    "exception": "worker-exception", "exit": "worker-exception", "memoryerror": "worker-exception",
    "before-init": "worker-exception", "pre": "worker-exception",
    "sigkill": "worker-signal", "sigsegv": "worker-signal", "sigabrt": "worker-signal", "sigbus": "worker-signal",
    "hang": "collective-timeout", "slow": "collective-timeout", "oom": "host-oom-killed",
    "mismatch": "collective-mismatch",
    "node-missing": "rendezvous-failure", "wrong-port": "rendezvous-failure",
    "nnodes-differ": "world-size-mismatch", "port-busy": "port-in-use",
}
EXCEPTIONS = ["ValueError", "KeyError", "RuntimeError", "AssertionError", "ZeroDivisionError", "FileNotFoundError", "IndexError"]
EXIT_MESSAGES = [
    "fatal: cannot read shard {step} of the dataset, giving up",
    "ERROR: checkpoint directory is not writable, exiting",
    "error: loss became NaN at step {step}, aborting the run",
    "train.py: error: argument --lr: invalid float value: '3e-4x'",
]
LAUNCHER_FILES = ["launcher.log", "train.log", "stdout.txt", "torchrun.out", "slurm-{jobid}.out", "output.log",
                  "job.out", "torchrun.log"]


# The kinds of harmless library output train.py can print (the keys of its NOISE; checked in main).
NOISE_KINDS = ["client-socket", "nccl-plugin", "nccl-retry", "best-guess-gpu", "grad-scaler", "tokenizers-fork",
               "hub-offline", "caffe2-fork", "unused-params", "loss-scale", "cache-flush", "wandb-retry", "reentrant",
               "ignored-at-exit"]

def weighted(r, table):
    keys = list(table)
    return r.choices(keys, weights=[table[k] for k in keys])[0]


def host_names(r, style, n):
    """n distinct host names in one of the ways sites name them."""
    nums = sorted(r.sample(range(1, 64), 5))[:n]
    if style == "short":
        p, width = r.choice([("gpu", 2), ("node", 3), ("cn", 3), ("dgx", 2), ("trn", 2), ("compute", 2)])
        return [f"{p}{k:0{width}d}" for k in nums]
    if style == "fqdn":
        p = r.choice(["n", "gpu", "node", "c"])
        dom = f"{r.choice(['hpc', 'cluster', 'ml', 'ai'])}.example.{r.choice(['edu', 'com', 'org'])}"
        return [f"{p}{k:03d}.{dom}" for k in nums]
    if style == "ip":
        a = r.randrange(0, 8)
        lead = r.choice(["ip-", ""])
        return [f"{lead}10-0-{a}-{k + 10}" for k in nums]
    if style == "pod":
        job = r.choice(["trainjob", "llm-pretrain", "bert-ft", "resnet-ddp"])
        h = "".join(r.choice("0123456789abcdef") for _ in range(5))
        if r.random() < 0.5:
            return [f"{job}-{h}-worker-{i}" for i in range(n)]
        return [f"{job}-master-0" if i == 0 else f"{job}-worker-{i - 1}" for i in range(n)]
    rack = r.randrange(1, 40)
    chassis = r.randrange(1, 12)
    return [f"r{rack:02d}-c{chassis + (k // 16):02d}-n{k % 16 + 1:02d}" for k in nums]


def free_port():
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port < 65000:
            with socket.socket() as s:  # the wrong-port fault uses port + 1: keep it free too
                try:
                    s.bind(("127.0.0.1", port + 1))
                    return port
                except OSError:
                    continue
    return port


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


def dmesg_stamp(line):
    """The seconds since boot a dmesg line starts with ("[66759.419892] ..."), or None."""
    m = re.match(r"\[\s*(\d+\.\d+)\]", line)
    return float(m.group(1)) if m else None


def dmesg_since(stamp):
    """The kernel's lines after the one stamped `stamp` (by their stamps: a full ring buffer drops
    its oldest lines, so counting lines loses the new ones)."""
    lines = dmesg_lines()
    if stamp is None:
        return lines
    return [l for l in lines if (dmesg_stamp(l) or 0.0) > stamp]


def read_jsonl(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    except OSError:
        pass
    return out


# ---- collectors: they add what the real tool adds to each line, as the line arrives ----

def pump(fd, sink):
    """Reads a pipe and hands each line (bytes, with its newline; a last partial line without) to sink."""
    def run():
        buf = b""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                sink(line + b"\n")
        if buf:
            sink(buf)
        os.close(fd)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def rfc3339nano(t_ns):
    """Go's time.RFC3339Nano in UTC, as docker writes it (trailing zeros of the fraction dropped)."""
    sec, ns = divmod(t_ns, 10 ** 9)
    base = datetime.datetime.fromtimestamp(sec, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    frac = f"{ns:09d}".rstrip("0")
    return base + ("." + frac if frac else "") + "Z"


def docker_json(line, stream):
    """One json-file record as docker's logger writes it (<, >, & escaped as Go's encoder does)."""
    text = line.decode("utf-8", "replace")
    enc = json.dumps(text, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    enc = enc.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return ('{"log":' + enc + ',"stream":"' + stream + '","time":"' + rfc3339nano(time.time_ns()) + '"}\n').encode()


class Locked:
    def __init__(self, path):
        self.f = open(path, "ab")
        self.lock = threading.Lock()

    def write(self, data):
        with self.lock:
            self.f.write(data)
            self.f.flush()

    def close(self):
        self.f.close()


def draw(seed, fault_override, nproc_override=None, nodes_override=None):
    """Every dimension of the case, each with its own draw, then the few fixes that make the
    combination valid (recorded in `adjusted`)."""
    r = random.Random(seed)
    d = {"seed": seed}
    # 1. fault kind (--fault replaces this draw only)
    d["fault"] = weighted(r, WEIGHTS)
    # 2. shape
    d["nnodes"] = weighted(r, {1: 10, 2: 30, 3: 25, 4: 20, 5: 15})
    nproc_all = [weighted(r, {1: 20, 2: 22, 3: 15, 4: 13, 5: 8, 6: 8, 7: 6, 8: 8}) for _ in range(5)]
    # 3. which rank
    d["which"] = weighted(r, {"first": 30, "middle": 25, "last": 30, "alone": 15})
    # 4. when
    d["when"] = weighted(r, {"start": 35, "late": 45, "restart": 20})
    # 5. restarts
    d["restarts"] = weighted(r, {"none": 55, "recovering": 25, "exhausted": 20})
    d["max_restarts"] = r.randint(1, 2)
    # 6. rendezvous
    d["rendezvous"] = weighted(r, {"static": 50, "c10d": 50})
    # 7. output, and python logging drawn apart
    d["output"] = weighted(r, {"launcher": 16, "tee": 16, "redirects": 12, "srun": 14, "docker": 14, "kubectl": 14, "ray": 14, "pdsh": 12})
    collector_launcher = r.choice(["launcher", "tee"])
    kubectl_files = r.choice(["one file", "file per pod"])
    container = r.choice(["pytorch", "trainer", "worker"])
    pdsh_label = r.choice(["as named", "short"])  # pdsh -w's host list: the names given, or their first label
    d["logging"] = r.random() < 0.35
    # 8. packing
    d["packing"] = weighted(r, {"folders": 40, "tar.gz per node": 20, "job tar.gz": 20, "job zip": 20})
    # 9. names
    d["names"] = weighted(r, {"short": 25, "fqdn": 20, "ip": 20, "pod": 15, "rack": 20})
    hosts_all = host_names(r, d["names"], 5)
    jobid = r.randrange(100000, 9999999)
    d["launcher_file"] = r.choice(LAUNCHER_FILES).format(jobid=jobid)
    # the rest
    d["collective_timeout"] = r.randint(15, 30)
    d["steps"] = r.randint(12, 30)
    late_step = r.randint(8, 20)
    restart_step = r.randint(0, 3)
    d["step_sleep"] = round(r.uniform(0.1, 0.3), 2)
    d["exception"] = r.choice(EXCEPTIONS)
    d["exit_code"] = r.choice([1, 1, 2, 3, 7, 42, 127, 255])
    exit_msg = r.choice(EXIT_MESSAGES + [""] * 3)
    first = r.choice(["exception", "exit", "sigsegv", "sigabrt", "memoryerror", "sigkill"])
    second = r.choice([k for k in ("sigkill", "exit", "exception", "sigsegv") if k != first])
    second_delay = round(r.uniform(2.0, 3.5), 1)
    pre_exc = r.choice([e for e in EXCEPTIONS if e != d["exception"]])
    gaps = [round(r.uniform(0.2, 1.5), 2) for _ in range(5)]
    docker_ids = ["".join(r.choice("0123456789abcdef") for _ in range(64)) for _ in range(5)]
    ray_job = "".join(r.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ123456789") for _ in range(16))
    ray_ips = [f"10.{r.randrange(0, 4)}.{r.randrange(0, 8)}.{r.randrange(10, 250)}" for _ in range(5)]
    archive = r.choice(["job-{jobid}", "logs-{jobid}", "{jobid}-artifacts", "run-{jobid}"]).format(jobid=jobid)

    if fault_override:
        d["fault"] = fault_override
    fault = d["fault"]
    adjusted = []
    n = d["nnodes"]
    if nodes_override:  # --nodes: the same job on more or fewer nodes (a pair for `dtriage diff`)
        n = max(1, min(nodes_override, len(hosts_all)))
        adjusted.append(f"nnodes {d['nnodes']} -> {n} (--nodes)")
    if fault in ("node-missing", "nnodes-differ", "wrong-port") and n < 2:
        n = 2
        adjusted.append("nnodes 1 -> 2 (a launch fault on one node of several)")
    nproc = nproc_all[:n]
    hosts = hosts_all[:n]
    if sum(nproc) > MAX_WORLD:  # scale down, keep the node count
        total = sum(nproc)
        nproc = [max(1, k * MAX_WORLD // total) for k in nproc]
        while sum(nproc) > MAX_WORLD:
            i = max(range(n), key=lambda j: nproc[j])
            nproc[i] -= 1
        adjusted.append(f"processes scaled down to {MAX_WORLD}")
    which = d["which"]
    # The node that holds rank 0: node_rank 0 (static); with c10d torch 1.13 orders agents by host
    # name, so the first name (the worker records say where rank 0 really was).
    node0 = 0 if d["rendezvous"] == "static" else min(range(n), key=lambda j: hosts[j])
    if which == "alone":
        if n == 1:
            which = "first"
            adjusted.append("which alone -> first (one node)")
        else:
            nproc[node0] = 1
    if nproc_override:  # --nproc: every node runs this many processes (a pair for `dtriage diff`)
        nproc = [nproc_override] * n
        adjusted.append(f"nproc_per_node {nproc_override} on every node (--nproc)")
    if fault in NEEDS_PEERS and sum(nproc) < 2:
        nproc[0] = 2
        adjusted.append("2 processes (the fault needs a peer)")
    when = d["when"]
    restarts, k = d["restarts"], d["max_restarts"]
    timeout = d["collective_timeout"]
    steps = d["steps"]
    if fault in LAUNCH or fault in HEALTHY:
        when = None
        restarts = "unused" if restarts != "none" else "none"
        if fault in HEALTHY:
            which = None
    else:
        if fault == "before-init" and when == "late":
            when = "start"
            adjusted.append("when late -> start (before init there are no steps)")
        if when == "restart" and restarts != "exhausted":
            adjusted.append(f"restarts {restarts} -> exhausted (a fault during a restart needs one)")
            restarts = "exhausted"
        if fault in TIMEOUT_KINDS + ("two-faults",) and restarts != "none":
            # each attempt waits out the collective timeout: one restart, the shortest timeout
            if k != 1 or timeout != 15:
                adjusted.append("max_restarts 1, timeout 15 s (a timeout fault with restarts, to fit the time limit)")
            k, timeout = 1, 15
            steps = min(steps, 14)
            late_step = min(late_step, 9)
    if restarts == "none":
        k = 0
    at_step = {"start": 0, "late": late_step, "restart": restart_step, None: 0}[when]
    if at_step >= steps - 1:
        steps = at_step + 3
        adjusted.append(f"steps -> {steps} (past the fault's step)")
    d.update(nodes=hosts, nproc_per_node=nproc, world=sum(nproc), which=which, when=when, restarts=restarts,
             max_restarts=k, collective_timeout=timeout, steps=steps, at_step=at_step, adjusted=adjusted)
    if d["output"] in ("srun", "docker", "kubectl", "pdsh"):
        d["launcher_mode"] = collector_launcher  # what torchrun itself was given under the collector
    if d["output"] == "pdsh":
        d["pdsh_label"] = pdsh_label
    if d["output"] == "kubectl":
        d["kubectl_files"] = kubectl_files
        d["container"] = container
    if fault not in ("exception", "before-init"):
        d.pop("exception")
    if fault == "two-faults":
        d["first_kind"], d["second_kind"], d["second_delay"] = first, second, second_delay
    if fault != "exit" and not (fault == "two-faults" and "exit" in (first, second)):
        d.pop("exit_code")
    else:
        d["exit_message"] = exit_msg
    if when == "restart":
        d["pre_exception"] = pre_exc
    priv = {"gaps": gaps, "docker_ids": docker_ids, "ray_job": ray_job, "ray_ips": ray_ips, "archive": archive,
            "node0": node0, "exit_msg": exit_msg, "pre_exc": pre_exc, "first": first, "second": second,
            "second_delay": second_delay}
    # 10. what each process says of itself when it joins, drawn apart (its own generator: the
    # draws above stay those of the seeds drawn before it existed)
    d["hello"] = weighted(random.Random(seed * 7919 + 17), {"lab": 30, "lightning": 20, "ray-train": 15, "hf": 15, "none": 20})
    # torchrun's own log level (LOGLEVEL): at INFO its agent prints the launch configs, each
    # rendezvous result (which global rank each local one got) and every worker group's state.
    d["launcher_log"] = weighted(random.Random(seed * 7919 + 29), {"warning": 60, "info": 40})
    # 11. harmless output of the libraries (train.py NOISE): how many kinds, and which, drawn apart
    rn = random.Random(seed * 7919 + 41)
    count = weighted(rn, {0: 25, 2: 25, 5: 30, 9: 20})
    d["noise"] = sorted(rn.sample(NOISE_KINDS, min(count, len(NOISE_KINDS))))
    # 12. how the launch names the master / rendezvous endpoint, drawn apart: the first node's host
    # name, as a cluster's job script writes it (its /etc/hosts resolves every node to this machine;
    # under c10d only the node whose name it is hosts the store, the others join as clients), or a
    # loopback address (every agent then takes itself for the host and all but one fall back)
    d["endpoint"] = weighted(random.Random(seed * 7919 + 53), {"first node's name": 65, "loopback": 35})
    return d, priv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fault", choices=FAULTS)
    ap.add_argument("--timeout", type=int, default=70, help="seconds before the whole case is stopped")
    # One change to a drawn job, for pairs of runs (`dtriage diff GOOD BAD`): the same seed run
    # twice, the second time with one of these.
    ap.add_argument("--nproc", type=int, help="processes on every node (instead of the drawn ones)")
    ap.add_argument("--nodes", type=int, help="number of nodes (1-5, instead of the drawn one)")
    ap.add_argument("--port", type=int, help="the master / rendezvous port (default: a free one drawn for each run); a pair "
                    "gives both runs the same, as a job script with a fixed MASTER_PORT does")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="exported by each node's launch script, which prints it as `set -x` does ('+ export NAME=VALUE')")
    args = ap.parse_args()
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "train.py")) as f:
        train = f.read()
    missing = [k for k in NOISE_KINDS if f'"{k}": (' not in train]
    if missing:
        ap.error(f"NOISE_KINDS not in train.py's NOISE: {missing}")
    for e in args.env:
        if "=" not in e or not e.split("=", 1)[0].isidentifier():
            ap.error(f"--env {e}: want NAME=VALUE")
    d, priv = draw(args.seed, args.fault, args.nproc, args.nodes)
    if args.env:
        d["env"] = dict(e.split("=", 1) for e in args.env)
    fault = d["fault"]
    hosts, nproc, n = d["nodes"], d["nproc_per_node"], len(d["nodes"])
    case = f"lab-{args.seed:04d}-{fault}"
    root = os.path.join(args.out, case)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    work = tempfile.mkdtemp(prefix=f"dtriage-lab-{args.seed}-")
    token = os.path.basename(work)
    try:
        return run(args, d, priv, fault, hosts, nproc, n, case, root, work, token)
    finally:
        sweep(token)
        shutil.rmtree(work, ignore_errors=True)


def sweep(token):
    """Kills any process this case started that is still alive (it carries LAB_CASE=token)."""
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"LAB_CASE={token}".encode() in f.read().split(b"\0"):
                    os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


def run(args, d, priv, fault, hosts, nproc, n, case, root, work, token):
    r_odd = {"first": 1, "middle": max(1, n // 2), "last": n - 1, "alone": 1, None: 1}
    odd_node = min(r_odd.get(d["which"], 1), n - 1) if n > 1 else 0  # the node a launch fault hits (never the first)
    port = args.port if args.port else free_port()
    records, events = os.path.join(work, "records.jsonl"), os.path.join(work, "events.jsonl")
    ckpt, marks = os.path.join(work, "checkpoints"), os.path.join(work, "marks")
    os.makedirs(ckpt)
    os.makedirs(marks)
    rank_fault = fault not in LAUNCH and fault not in HEALTHY
    attempts = "all"
    if d["restarts"] == "recovering":
        attempts = "first"
    if d["when"] == "restart":
        attempts = "later"
    env = dict(os.environ, LAB_CASE=token, LAB_FAULT=fault if (rank_fault or fault == "noisy") else "none",
               LAB_WHICH=d["which"] or "first", LAB_STEP=str(d["at_step"]), LAB_STEPS=str(d["steps"]),
               LAB_TIMEOUT=str(d["collective_timeout"]), LAB_ATTEMPTS=attempts, LAB_STEP_SLEEP=str(d["step_sleep"]),
               LAB_SEED=str(args.seed), LAB_RECORDS=records, LAB_EVENTS=events, LAB_CKPT=ckpt, LAB_MARKS=marks,
               LAB_EXC=d.get("exception", "ValueError"), LAB_EXIT=str(d.get("exit_code", 1)), LAB_EXIT_MSG=priv["exit_msg"],
               LAB_FIRST=priv["first"], LAB_SECOND=priv["second"], LAB_SECOND_DELAY=str(priv["second_delay"]),
               LAB_PRE="1" if d["when"] == "restart" else "0", LAB_PRE_EXC=priv["pre_exc"],
               LAB_LOGGING="1" if d["logging"] else "0", LAB_HELLO=d.get("hello", "lab"), LAB_NOISE=",".join(d.get("noise", [])), OMP_NUM_THREADS="1",
               PYTHONUNBUFFERED="1")
    if d.get("launcher_log") == "info":
        env["LOGLEVEL"] = "INFO"
    env.pop("LAB_CGROUP", None)
    cgroup = None
    if fault == "oom":
        cgroup = memory_cgroup(f"dtriage-lab-{args.seed}", 400)
        if cgroup is None:
            print("no memory cgroup can be made here; oom case skipped", file=sys.stderr)
            shutil.rmtree(root)
            return 3
        env["LAB_CGROUP"] = cgroup
    dmesg_before = next((t for t in map(dmesg_stamp, reversed(dmesg_lines())) if t is not None), None)

    blocker = None
    if fault == "port-busy":  # a leftover process holds the master / rendezvous port
        blocker = socket.socket()
        blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
        blocker.bind(("0.0.0.0", port))
        blocker.listen(1)

    out = d["output"]
    torchrun_mode = {"launcher": "launcher", "tee": "tee", "redirects": "redirects", "ray": "redirects"}.get(out) or d["launcher_mode"]
    shared = Locked(os.path.join(work, "shared.log")) if out in ("srun", "pdsh") else None  # every node's stream in one file
    kubectl_one = out == "kubectl" and d["kubectl_files"] == "one file"
    procs, pumps, files = [], [], []
    start = time.time()
    for i, host in enumerate(hosts):
        if fault == "node-missing" and i == odd_node:
            continue  # it never started: no logs, no folder
        node_dir = os.path.join(work, "nodes", host)
        os.makedirs(node_dir)
        hosts_file = os.path.join(work, f"hosts-{i}")
        with open(hosts_file, "w") as f:  # the node's own name first, as the site's /etc/hosts has it
            f.write(f"127.0.0.1\t{host}\n")
            for other in hosts:
                if other != host:
                    f.write(f"127.0.0.1\t{other}\n")
            f.write("127.0.0.1\tlocalhost\n")
        p = port + 1 if fault == "wrong-port" and i == odd_node else port
        nn = n + 1 if fault == "nnodes-differ" and i == odd_node else n
        flags = ["--nnodes", str(nn), "--nproc_per_node", str(nproc[i])]
        addr = "127.0.0.1" if d.get("endpoint", "loopback") == "loopback" else hosts[0]
        if d["rendezvous"] == "static":
            flags += ["--node_rank", str(i), "--master_addr", addr, "--master_port", str(p)]
        else:
            flags += ["--rdzv_backend", "c10d", "--rdzv_endpoint", f"{addr}:{p}", "--rdzv_id", f"lab{args.seed}"]
        flags += ["--max_restarts", str(d["max_restarts"])]
        if torchrun_mode != "launcher":
            flags += ["--log_dir", "torchrun_logs", "--tee" if torchrun_mode == "tee" else "--redirects", "3"]
        cmd = [PY, os.path.join(HERE, "torchrun.py")] + flags + [os.path.join(HERE, "train.py")]
        exports = "".join(f"export {k}={shlex.quote(v)} && echo {shlex.quote(f'+ export {k}={v}')} && "
                          for k, v in d.get("env", {}).items())
        shell = (f"mount --bind {hosts_file} /etc/hosts && hostname {host} && {exports}"
                 f"echo '+ torchrun {' '.join(flags)} train.py' && exec {' '.join(cmd)}")
        argv = ["unshare", "-u", "-m", "--propagation", "private", "sh", "-c", shell]
        if out in ("launcher", "tee", "redirects", "ray"):
            log = open(os.path.join(node_dir, d["launcher_file"]), "wb")
            files.append(log)
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=node_dir, start_new_session=True)
        elif out == "docker":
            jf = Locked(os.path.join(node_dir, priv["docker_ids"][i] + "-json.log"))
            files.append(jf)
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=node_dir, start_new_session=True)
            for stream, pipe in (("stdout", proc.stdout), ("stderr", proc.stderr)):
                pumps.append(pump(os.dup(pipe.fileno()), lambda line, s=stream, jf=jf: jf.write(docker_json(line, s))))
                pipe.close()
        else:  # srun -l labels, pdsh host labels, kubectl --prefix: one merged stream per node
            if out == "srun":
                label = f"{i}: "
            elif out == "pdsh":  # pdsh -w HOSTS 'torchrun ...': "HOST: line", every node's lines in pdsh's output
                label = (host.split(".")[0] if d.get("pdsh_label") == "short" else host) + ": "
            else:
                label = f"[pod/{host}/{d['container']}] "
            if out in ("srun", "pdsh"):
                sink = shared
            else:  # kubectl logs --prefix, one file per pod, or later all pods one after the other
                sink = Locked(os.path.join(work, f"pod-{i}.log") if kubectl_one else os.path.join(node_dir, d["launcher_file"]))
                files.append(sink)
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=node_dir, start_new_session=True)
            pumps.append(pump(os.dup(proc.stdout.fileno()), lambda line, lb=label.encode(), s=sink: s.write(lb + line)))
            proc.stdout.close()
        procs.append(proc)
        time.sleep(priv["gaps"][i])

    status = "finished"
    # Launch-level faults leave the launchers waiting in rendezvous, and a hung rank keeps its
    # node's launcher waiting: an operator stops the job (SIGTERM, then SIGKILL, as scancel does).
    limit = min(50 if fault in LAUNCH else 80 if d["max_restarts"] and rank_fault else 70, args.timeout)
    while any(p.poll() is None for p in procs):
        if time.time() - start > limit:
            status = "stopped after the time limit"
            for p in procs:
                if p.poll() is None:
                    try:
                        os.kill(p.pid, signal.SIGTERM)
                    except OSError:
                        pass
            t_end = time.time() + 6
            while any(p.poll() is None for p in procs) and time.time() < t_end:
                time.sleep(0.2)
            for p in procs:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
            break
        time.sleep(0.3)
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # no worker outlives its launcher
        except OSError:
            pass
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    sweep(token)
    for t in pumps:
        t.join(timeout=10)
    for f in files:
        f.close()
    if shared:
        shared.close()
    seconds = round(time.time() - start, 1)
    if blocker is not None:
        blocker.close()

    recs, evs = read_jsonl(records), read_jsonl(events)
    new_kernel = dmesg_since(dmesg_before)
    if cgroup:
        for _ in range(20):
            try:
                os.rmdir(cgroup)
                break
            except OSError:
                time.sleep(0.25)

    # ---- the logs as handed over ----
    if out in ("docker", "kubectl"):  # --log_dir files stay inside the container: `docker logs` / `kubectl logs` do not hand them over
        for host in hosts:
            shutil.rmtree(os.path.join(work, "nodes", host, "torchrun_logs"), ignore_errors=True)
    if out == "ray":
        ray_gather(d, priv, hosts, work, recs)  # per-rank files into the driver log
    if kubectl_one:
        with open(os.path.join(work, "shared.log"), "wb") as dst:
            for i in range(n):
                part = os.path.join(work, f"pod-{i}.log")
                if os.path.exists(part):
                    with open(part, "rb") as src:
                        shutil.copyfileobj(src, dst)
    top_files = []
    if out in ("srun", "pdsh") or kubectl_one:
        top_files.append((os.path.join(work, "shared.log"), d["launcher_file"]))
    if out == "ray" and os.path.getsize(os.path.join(work, "driver.log")) > 0:  # no workers ran: nothing gathered
        top_files.append((os.path.join(work, "driver.log"), f"job-driver-raysubmit_{priv['ray_job']}.log"))

    oom_events = [e for e in evs if e["kind"] == "oom"]
    kernel = [l for l in new_kernel if "Killed process" in l or "oom-kill" in l or "out of memory" in l]
    if kernel and oom_events:
        node_dir = os.path.join(work, "nodes", oom_events[-1]["host"])
        if os.path.isdir(node_dir):
            with open(os.path.join(node_dir, "dmesg.txt"), "w") as f:
                f.write("\n".join(kernel) + "\n")

    pack(d, priv, hosts, work, root, top_files)

    # ---- the truth, from what the job recorded ----
    truth = dict(d)
    truth.pop("nnodes", None)
    truth.update(status="failed", category=None, node=None, rank=None, run=status, seconds=seconds)
    t0 = start
    starts = [w for w in recs if w["what"] == "start"]
    for e in evs:  # the job's attempt: how many times this rank had started before (the agent's
        # TORCHELASTIC_RESTART_COUNT, kept as "attempt", counts that agent's own restarts only)
        e["job_attempt"] = sum(1 for w in starts if w["rank"] == e["rank"] and w["t"] <= e["t"]) - 1
    truth["events"] = [dict(kind=e["kind"], role=e["role"], rank=e["rank"], local_rank=e["local_rank"], host=e["host"],
                            pid=e["pid"], attempt=e["attempt"], job_attempt=e["job_attempt"], step=e["step"],
                            at=round(e["t"] - t0, 2), detail=e["detail"])
                       for e in sorted(evs, key=lambda e: e["t"])]
    truth["workers"] = sorted({(w["attempt"], w["rank"], w["local_rank"], w["host"], w["pid"]) for w in recs if w["what"] == "start"})
    truth["workers"] = [dict(zip(("attempt", "rank", "local_rank", "host", "pid"), w)) for w in truth["workers"]]
    # A rank records "done" after the final barrier, which every rank of its group must reach.
    completed = any(w["what"] == "done" for w in recs)
    faults = sorted((e for e in evs if e["role"] in ("primary", "pre")), key=lambda e: e["t"])
    problem = None
    if fault in LAUNCH:
        truth["category"] = CATEGORY[fault]
        if fault != "port-busy":
            truth["launch_fault_node"] = hosts[odd_node]  # the node started wrongly (or never), for reference
        if fault in ("nnodes-differ", "wrong-port"):
            truth["node"] = hosts[odd_node]
        elif fault == "port-busy" and (d["rendezvous"] == "static" or d.get("endpoint", "loopback") != "loopback"):
            truth["node"] = hosts[0]  # the master node (the one the c10d endpoint names), whose launcher cannot bind the port
        # node-missing: that node left no logs; port-busy under c10d at a loopback endpoint: every
        # agent tries to host the rendezvous store on the port, so no one node is to blame.
        if completed:
            problem = "the launch fault did not stop the job"
    elif completed:
        truth["status"] = "healthy"
        if faults:
            truth["survived"] = truth["events"]
        if rank_fault and d["restarts"] != "recovering":
            problem = "the job finished although the fault should have stopped it"
    elif not faults:
        problem = "the job failed without any fault firing" if fault in HEALTHY or rank_fault else None
    else:
        # The last attempt's fault: the last one that struck (the second of two faults, which
        # strikes a few seconds after the first, is not one of these).
        first = faults[-1]
        truth["category"] = CATEGORY[first["kind"]]
        truth["node"], truth["rank"] = first["host"], first["rank"]
        if first["kind"] == "mismatch":  # which side detects a size mismatch depends on the algorithm
            truth["node"], truth["rank"] = None, None
        truth["truth_event"] = {"kind": first["kind"], "job_attempt": first["job_attempt"], "rank": first["rank"], "host": first["host"]}
        if d["restarts"] == "recovering":
            problem = "the restarted group did not train to the end"
    if d.get("which") == "alone" and recs:
        on_node = [w for w in recs if w["what"] == "start" and w["attempt"] == 0 and w["rank"] == 0]
        if on_node:
            mates = {w["rank"] for w in recs if w["what"] == "start" and w["attempt"] == 0 and w["host"] == on_node[0]["host"]}
            truth["rank0_alone"] = mates == {0}
    with open(os.path.join(root, "TRUTH.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")
    if problem:
        print(f"{case}: unexpected outcome ({problem}); case removed", file=sys.stderr)
        shutil.rmtree(root)
        return 4
    print(case, truth["status"], truth["category"], truth["node"], truth["rank"], status, seconds, "s")
    return 0


def ray_gather(d, priv, hosts, work, recs):
    """Ray's log monitor: each worker's output into the driver's log, a prefix per line."""
    who = {}
    for w in recs:
        if w["what"] == "start":
            who[(w["host"], w["attempt"], w["local_rank"])] = (w["rank"], w["pid"])
    ip = {}
    for i, host in enumerate(hosts):
        if d["names"] == "ip":
            ip[host] = ".".join(host.split("-")[-4:])
        else:
            ip[host] = priv["ray_ips"][i]
    chunks = []
    for i, host in enumerate(hosts):
        tl = os.path.join(work, "nodes", host, "torchrun_logs")
        if not os.path.isdir(tl):
            continue
        for run_dir in sorted(os.listdir(tl)):
            for att in sorted(os.listdir(os.path.join(tl, run_dir))):
                a = int(att.split("_")[-1])
                adir = os.path.join(tl, run_dir, att)
                for lr in sorted(os.listdir(adir), key=lambda s: int(s) if s.isdigit() else 0):
                    if not lr.isdigit():
                        continue
                    rank, pid = who.get((host, a, int(lr)), (None, None))
                    if pid is None:
                        continue  # a worker that never ran python code has no pid to name
                    prefix = f"(RayTrainWorker pid={pid}, ip={ip[host]}) ".encode()
                    body = b""
                    for stream in ("stdout.log", "stderr.log"):
                        path = os.path.join(adir, lr, stream)
                        if os.path.exists(path):
                            with open(path, "rb") as f:
                                for line in f.read().splitlines(keepends=True):
                                    body += prefix + line
                    chunks.append(((a, rank), body))
        shutil.rmtree(tl)
    with open(os.path.join(work, "driver.log"), "wb") as f:
        for _, body in sorted(chunks, key=lambda c: c[0]):
            f.write(body)


def pack(d, priv, hosts, work, root, top_files):
    logs = os.path.join(root, "logs")
    os.makedirs(logs)
    nodes = [h for h in hosts if os.path.isdir(os.path.join(work, "nodes", h)) and os.listdir(os.path.join(work, "nodes", h))]
    packing = d["packing"]
    if packing in ("folders", "tar.gz per node"):
        for h in nodes:
            src = os.path.join(work, "nodes", h)
            if packing == "folders":
                shutil.copytree(src, os.path.join(logs, h))
            else:
                with tarfile.open(os.path.join(logs, h + ".tar.gz"), "w:gz") as t:
                    t.add(src, arcname=h)
        for src, name in top_files:
            if os.path.exists(src):
                shutil.copy(src, os.path.join(logs, name))
        return
    name = priv["archive"]
    if packing == "job tar.gz":
        with tarfile.open(os.path.join(logs, name + ".tar.gz"), "w:gz") as t:
            for h in nodes:
                t.add(os.path.join(work, "nodes", h), arcname=f"{name}/{h}")
            for src, fname in top_files:
                if os.path.exists(src):
                    t.add(src, arcname=f"{name}/{fname}")
    else:
        with zipfile.ZipFile(os.path.join(logs, name + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
            for h in nodes:
                base = os.path.join(work, "nodes", h)
                for dirpath, _, filenames in os.walk(base):
                    for fn in sorted(filenames):
                        p = os.path.join(dirpath, fn)
                        z.write(p, f"{name}/{h}/{os.path.relpath(p, base)}")
            for src, fname in top_files:
                if os.path.exists(src):
                    z.write(src, f"{name}/{fname}")


if __name__ == "__main__":
    sys.exit(main())
