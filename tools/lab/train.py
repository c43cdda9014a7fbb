#!/usr/bin/python3
"""A small data-parallel training loop on the CPU (gloo), with faults injected from the
environment. Used by the failure lab (run_case.py); prints what real training scripts print.

Every fault is a real one: a real exception from faulty code, a real exit, a signal the process
sends itself, a real sleep, a real allocation. Before doing it, the process appends what it is
about to do (and when) to LAB_EVENTS; every worker appends who it is to LAB_RECORDS (both files are
outside the logs, read by run_case.py to write the truth).

LAB_FAULT   none | noisy | exception | exit | sigkill | sigsegv | sigabrt | sigbus | hang | slow |
            memoryerror | oom | before-init | two-faults | mismatch
LAB_WHICH   first | middle | last | alone: the global rank the fault hits, from WORLD_SIZE
LAB_STEP    the step it hits at; LAB_STEPS: steps in all; LAB_TIMEOUT: collective timeout (s)
LAB_ATTEMPTS  all | first | later: the fault hits every attempt, only the first time its rank gets
            there, or only after the attempt-0 failure (LAB_PRE) happened. Marker files in LAB_MARKS
            tell: TORCHELASTIC_RESTART_COUNT counts one agent's own restarts, not the job's (an agent
            restarted because another node failed keeps 0), so it cannot tell the attempt.
LAB_PRE     1: in the first attempt another rank raises LAB_PRE_EXC at step 1 (fault "during a restart")
LAB_EXC     the exception type (exception, before-init); LAB_EXIT / LAB_EXIT_MSG: exit code, message
LAB_SECOND / LAB_SECOND_DELAY  two-faults: the second fault's kind and how long after the first
LAB_LOGGING 1: python logging with timestamps instead of print
LAB_HELLO   lab | lightning | ray-train | hf | none: how the process states who it is when it joins
"""
import datetime
import json
import logging
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

E = os.environ
fault = E.get("LAB_FAULT", "none")
which = E.get("LAB_WHICH", "first")
at_step = int(E.get("LAB_STEP", "2"))
steps = int(E.get("LAB_STEPS", "5"))
timeout_s = int(E.get("LAB_TIMEOUT", "20"))
attempts = E.get("LAB_ATTEMPTS", "all")
step_sleep = float(E.get("LAB_STEP_SLEEP", "0.2"))
seed = int(E.get("LAB_SEED", "0"))

rank = int(E["RANK"])
local_rank = int(E["LOCAL_RANK"])
group_rank = int(E.get("GROUP_RANK", "0"))
world = int(E["WORLD_SIZE"])
attempt = int(E.get("TORCHELASTIC_RESTART_COUNT", "0"))
host = os.uname().nodename

if E.get("LAB_LOGGING") == "1":
    logging.basicConfig(format=f"%(asctime)s %(levelname)s [rank {rank}] %(message)s", level=logging.INFO)
    _log = logging.getLogger("train")

    def say(msg, err=False):
        (_log.error if err else _log.info)(msg)

    def warn(msg):
        _log.warning(msg)
else:
    def say(msg, err=False):
        print(msg, file=sys.stderr if err else sys.stdout, flush=True)

    def warn(msg):
        print(msg, file=sys.stderr, flush=True)


def append(path_var, rec):
    path = E.get(path_var)
    if not path:
        return
    rec = dict(rec, rank=rank, local_rank=local_rank, group_rank=group_rank, host=host, pid=os.getpid(),
               attempt=attempt, world=world, t=time.time())
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(rec, sort_keys=True) + "\n").encode())
    finally:
        os.close(fd)


def event(kind, role="primary", **detail):
    append("LAB_EVENTS", dict(kind=kind, role=role, step=detail.pop("step", None), detail=detail))


def rank_of(w):
    if w == "last":
        return world - 1
    if w == "middle":
        return world // 2
    return 0  # first, alone


target = rank_of(which)
me = rank == target
marks = E.get("LAB_MARKS", "/tmp")


def claim(name):
    """True for the first process of the job that claims `name`."""
    try:
        os.close(os.open(os.path.join(marks, name), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def strikes(name):
    """Whether the fault `name` strikes now (see LAB_ATTEMPTS)."""
    if attempts == "first":
        return claim(name)
    if attempts == "later":
        return os.path.exists(os.path.join(marks, "pre"))
    return True


pre = E.get("LAB_PRE") == "1"
pre_rank = (target + 1 + seed % max(world - 1, 1)) % world if world > 1 else target
if pre_rank == target and world > 1:
    pre_rank = (target + 1) % world

model = torch.nn.Linear(16, 4)


def faulty(exc, step):
    """Runs code that really fails with `exc` (the exception a real script would raise)."""
    if exc == "ValueError":
        logits = model(torch.randn(32, 16))
        torch.nn.functional.cross_entropy(logits, torch.zeros(31, dtype=torch.long))
    elif exc == "KeyError":
        batch = {"input_ids": torch.randn(32, 16), "attention_mask": torch.ones(32, 16)}
        return batch["labels"]
    elif exc == "RuntimeError":
        return model(torch.randn(32, 15))
    elif exc == "AssertionError":
        x = torch.randn(31, 16)
        assert x.shape[0] == 32, f"expected a full batch of 32 samples, got {x.shape[0]} at step {step}"
    elif exc == "ZeroDivisionError":
        valid = [n for n in [0, 0, 0] if n > 0]
        return sum(valid) / len(valid)
    elif exc == "FileNotFoundError":
        with open(f"/datasets/lab-corpus/train/shard-{step:05d}-of-00128.bin", "rb") as f:
            return f.read()
    elif exc == "IndexError":
        shards = [f"shard-{i:05d}" for i in range(16)]
        return shards[16 + rank]
    raise RuntimeError(f"unknown exception kind {exc}")


def do_fault(kind, step, role="primary"):
    """The fault itself; it records what it does before doing it."""
    if kind in ("exception", "before-init", "pre"):
        exc = E.get("LAB_PRE_EXC" if kind == "pre" else "LAB_EXC", "ValueError")
        event(kind, role, step=step, exception=exc)
        faulty(exc, step)
    elif kind == "exit":
        code = int(E.get("LAB_EXIT", "1"))
        msg = E.get("LAB_EXIT_MSG", "")
        event(kind, role, step=step, code=code, message=msg)
        if msg:
            say(msg.format(step=step, rank=rank), err=True)
        sys.exit(code)
    elif kind.startswith("sig"):
        sig = {"sigkill": signal.SIGKILL, "sigsegv": signal.SIGSEGV, "sigabrt": signal.SIGABRT, "sigbus": signal.SIGBUS}[kind]
        event(kind, role, step=step, signal=sig.name)
        os.kill(os.getpid(), sig)
        time.sleep(5)
    elif kind == "hang":
        say(f"rank {rank}: loading the next shard ...")
        event(kind, role, step=step, sleep="forever")
        time.sleep(3600)
    elif kind == "slow":
        nap = timeout_s + 8
        say(f"rank {rank}: fetching batch {step} from remote storage ...")
        event(kind, role, step=step, sleep=nap)
        time.sleep(nap)
        event("slow-woke", "after", step=step, slept=nap)
        say(f"rank {rank}: batch {step} ready after {nap} s")
    elif kind == "memoryerror":
        event(kind, role, step=step, bytes=1 << 46)
        cache = bytearray(1 << 46)  # a 64 TiB buffer: the allocation fails, Python raises MemoryError
        return cache
    elif kind == "oom":
        event(kind, role, step=step, cgroup=E.get("LAB_CGROUP"))
        with open(os.path.join(E["LAB_CGROUP"], "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))  # under the memory limit run_case.py made
        hog = []
        while True:  # memory runs out under the limit: the kernel's OOM killer kills this process
            hog.append(bytearray(64 << 20))


append("LAB_RECORDS", {"what": "start"})
if fault == "before-init" and me and strikes("primary"):
    say(f"rank {rank}: reading the run configuration")
    do_fault("before-init", None)

# What the process says of itself when it joins, in the words of the framework the case draws
# (LAB_HELLO): this lab's own line, Lightning's (before it joins), Ray Train's (its rank 0 alone:
# the others log it at debug level), the transformers examples' (a local rank), or nothing.
hello = E.get("LAB_HELLO", "lab")
if hello == "lightning":
    say(f"Initializing distributed: GLOBAL_RANK: {rank}, MEMBER: {rank + 1}/{world}")
elif hello == "ray-train" and rank == 0:
    say(f"Setting up process group for: env:// [rank={rank}, world_size={world}]")
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout_s))
if hello == "lab":
    say(f"rank {rank}/{world} (local {local_rank}) on {host}: process group ready")
elif hello == "hf":
    warn(f"Process rank: {local_rank}, device: cpu, n_gpu: 0, distributed training: True, 16-bits training: False")
if fault == "noisy" and local_rank == 0:
    warn("UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class.")
    warn("[W socket.cpp:601] [c10d] The client socket has failed to connect to [localhost]:29400 (errno: 99 - Cannot assign requested address), retrying.")

second_rank = -1
if fault == "two-faults":
    # The node of every rank (a real script gathers this to log the layout); the second fault hits
    # a rank on another node than the first when there is one.
    nodes = [torch.zeros(1, dtype=torch.long) for _ in range(world)]
    dist.all_gather(nodes, torch.tensor([group_rank]))
    nodes = [int(t.item()) for t in nodes]
    others = [r for r in range(world) if nodes[r] != nodes[target]] or [r for r in range(world) if r != target]
    if others:
        second_rank = others[seed % len(others)]

opt = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(1234 + rank)
ckpt_dir = E.get("LAB_CKPT", "/tmp")
ckpt = os.path.join(ckpt_dir, "checkpoint.pt")
start = 0
if os.path.exists(ckpt):
    state = torch.load(ckpt)
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["optim"])
    start = state["step"] + 1
    say(f"rank {rank}: resumed from {ckpt} (step {state['step']})")
fire = max(at_step, start)
kind = E.get("LAB_FIRST", "exception") if fault == "two-faults" else fault
pre_step = max(1, start)
for step in range(start, steps):
    t0 = time.time()
    if me and step == fire and fault not in ("mismatch", "noisy", "none", "before-init") and strikes("primary"):
        do_fault(kind, step)
    if rank == second_rank and step == fire and strikes("second"):
        delay = float(E.get("LAB_SECOND_DELAY", "3"))
        say(f"rank {rank}: loading data shard {step} ...")
        time.sleep(delay)
        do_fault(E.get("LAB_SECOND", "sigkill"), step, role="second")
    if pre and rank == pre_rank and step == pre_step and claim("pre"):
        do_fault("pre", step, role="pre")
    x = torch.randn(32, 16)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    odd = fault == "mismatch" and me and step == fire and strikes("primary")
    if odd:
        event("mismatch", step=step, extra_elements=7)
    for p in model.parameters():
        if odd:
            # a rank-dependent branch: this rank reduces a tensor of another size
            dist.all_reduce(torch.zeros(p.numel() + 7))
        else:
            dist.all_reduce(p.grad)
        p.grad /= world
    opt.step()
    time.sleep(step_sleep)
    say(f"step {step}/{steps} loss {loss.item():.4f} ({time.time() - t0:.2f} s/step)")
    if rank == 0 and (step + 1) % 5 == 0:
        torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "step": step}, ckpt)
        say(f"saved checkpoint {ckpt} (step {step})")
dist.barrier()
say(f"rank {rank}: training finished")
append("LAB_RECORDS", {"what": "done"})
dist.destroy_process_group()
