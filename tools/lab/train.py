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
LAB_NOISE   comma-separated kinds of harmless output real jobs print (NOISE below: library warnings,
            retries, a traceback ignored at exit), each printed by the ranks and at the time its seed
            draws; none of them changes how the job ends
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


# Harmless output of the libraries a training job runs with, as they print it (PyTorch's C++
# warnings, python warnings with their source line, NCCL INFO retries, DeepSpeed's loss scaler,
# W&B, the Hub client, a DataLoader traceback "ignored" at exit). Each kind: when it is printed
# (init: after the process group; step: at one step; end: after the last step) and its lines;
# {rank}, {local}, {host}, {pid}, {port}, {master}, {now}, {n} are filled in.
NOISE = {
    "client-socket": ("init", ["[W socket.cpp:663] [c10d] The client socket has failed to connect to [{master}]:{port} "
                               "(errno: 99 - Cannot assign requested address)."]),
    "nccl-plugin": ("init", ["{host}:{pid}:{pid} [{local}] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared "
                             "object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation"]),
    "nccl-retry": ("init", ["{host}:{pid}:{tid} [{local}] NCCL INFO Call to connect returned Connection refused, retrying"]),
    "best-guess-gpu": ("init", ["[W ProcessGroupNCCL.cpp:1569] Rank {rank} using best-guess GPU {local} to perform barrier as "
                                "devices used by this process are currently unknown. This can potentially cause a hang if this "
                                "rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device."]),
    "grad-scaler": ("init", ["/usr/lib/python3/dist-packages/torch/cuda/amp/grad_scaler.py:120: UserWarning: "
                             "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", "  warnings.warn("]),
    "tokenizers-fork": ("init", ["huggingface/tokenizers: The current process just got forked, after parallelism has already "
                                 "been used. Disabling parallelism to avoid deadlocks...", "To disable this warning, you can either:",
                                 "\t- Avoid using `tokenizers` before the fork if possible",
                                 "\t- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)"]),
    "hub-offline": ("init", ["'(MaxRetryError(\"HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with "
                             "url: /bert-base-uncased/resolve/main/config.json (Caused by NewConnectionError('<urllib3.connection."
                             "HTTPSConnection object at 0x7f{n:06x}>: Failed to establish a new connection: [Errno 101] Network is "
                             "unreachable'))\"), '(Request ID: 5c1f{n:04x})')' thrown while requesting HEAD "
                             "https://huggingface.co/bert-base-uncased/resolve/main/config.json", "Retrying in 1s [Retry 1/5]."]),
    "caffe2-fork": ("step", ["[W pthreadpool-cpp.cc:90] Warning: Leaking Caffe2 thread-pool after fork. (function pthreadpool)"] * 4),
    "unused-params": ("step", ["[W reducer.cpp:1346] Warning: find_unused_parameters=True was specified in DDP constructor, but "
                               "did not find any unused parameters in the forward pass. This flag results in an extra traversal "
                               "of the autograd graph every iteration,  which can adversely affect performance. If your model "
                               "indeed never has any unused parameters in the forward pass, consider turning this flag off. Note "
                               "that this warning may be a false positive if your model has flow control causing later iterations "
                               "to have unused parameters. (function operator())"]),
    "loss-scale": ("step", ["[{now}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank {rank} Skipping step. "
                            "Attempted loss scale: 65536, reducing to 32768"]),
    "cache-flush": ("step", ["[{now}] [WARNING] [stage3.py:1898:step] 2 pytorch allocator cache flushes since last step. this "
                             "happens when there is high memory pressure and is detrimental to performance. if this is happening "
                             "frequently consider adjusting settings to reduce memory consumption. If you are unable to make the "
                             "cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop "
                             "to ensure that all ranks flush their caches at the same time"]),
    "wandb-retry": ("step", ["wandb: Network error (ConnectionError), entering retry loop."]),
    "reentrant": ("step", ["/usr/lib/python3/dist-packages/torch/utils/checkpoint.py:429: UserWarning: torch.utils.checkpoint: "
                           "please pass in use_reentrant=True or use_reentrant=False explicitly. The default value of "
                           "use_reentrant will be updated to be False in the future. To maintain current behavior, pass "
                           "use_reentrant=True. It is recommended that you use use_reentrant=False. Refer to docs for more "
                           "details on the differences between the two variants.", "  warnings.warn("]),
    "ignored-at-exit": ("end", ["Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f{n:08x}>",
                                "Traceback (most recent call last):",
                                '  File "/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py", line 1478, in __del__',
                                "    self._shutdown_workers()",
                                '  File "/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py", line 1442, in _shutdown_workers',
                                "    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)",
                                '  File "/usr/lib/python3.11/multiprocessing/process.py", line 149, in join',
                                "    res = self._popen.wait(timeout)",
                                "AssertionError: can only test a child process"]),
}


def noise(phase, step=None):
    """Prints this rank's share of the drawn harmless output (LAB_NOISE) due now: each kind is
    printed by every rank, local rank 0 of each node, or rank 0 alone, at one step, as its seed
    draws; straight to stderr, as the library writes it (not through the script's logging)."""
    for k, kind in enumerate(x for x in E.get("LAB_NOISE", "").split(",") if x in NOISE):
        when, lines = NOISE[kind]
        if when != phase:
            continue
        h = (seed * 31 + k * 7) % 1000
        who = ("all", "local0", "rank0")[h % 3]
        if (who == "local0" and local_rank != 0) or (who == "rank0" and rank != 0):
            continue
        if phase == "step" and step != 1 + h % max(1, steps - 2):
            continue
        vals = dict(rank=rank, local=local_rank, host=host, pid=os.getpid(), tid=os.getpid() + 7, n=h * 7919 + rank,
                    port=E.get("MASTER_PORT", "29500"), master=E.get("MASTER_ADDR", "localhost"),
                    now=datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:-3])
        for line in lines:
            sys.stderr.write(line.format(**vals) + "\n")
        sys.stderr.flush()


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
noise("init")
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
    noise("step", step)
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
noise("end")
append("LAB_RECORDS", {"what": "done"})
dist.destroy_process_group()
