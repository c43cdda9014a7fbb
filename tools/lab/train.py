#!/usr/bin/python3
"""A small data-parallel training loop on the CPU (gloo), with one fault injected from the
environment. Used by the failure lab (run_case.py); prints what real training scripts print.

LAB_FAULT: none | exception | exit | sigkill | sigsegv | hang | mismatch | oom | noisy
LAB_RANK: the global rank the fault hits; LAB_STEP: the step it hits at; LAB_EXIT: exit code.
"""
import datetime
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

fault = os.environ.get("LAB_FAULT", "none")
target = int(os.environ.get("LAB_RANK", "-1"))
at_step = int(os.environ.get("LAB_STEP", "2"))
steps = int(os.environ.get("LAB_STEPS", "5"))
timeout_s = int(os.environ.get("LAB_TIMEOUT", "20"))

rank = int(os.environ["RANK"])
local_rank = int(os.environ["LOCAL_RANK"])
world = int(os.environ["WORLD_SIZE"])
me = rank == target

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout_s))
print(f"rank {rank}/{world} (local {local_rank}) on {os.uname().nodename}: process group ready", flush=True)
if fault == "noisy" and local_rank == 0:
    print("UserWarning: TypedStorage is deprecated. It will be removed in the future.", file=sys.stderr, flush=True)
    print("[W socket.cpp:601] [c10d] The client socket has failed to connect to [localhost]:29400 (errno: 99 - Cannot assign requested address), retrying.", file=sys.stderr, flush=True)

model = torch.nn.Linear(16, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(1234 + rank)
for step in range(steps):
    if me and step == at_step:
        if fault == "exception":
            raise ValueError(f"bad batch at step {step}: expected 16 features, got 15")
        if fault == "exit":
            print(f"fatal: cannot read shard {step} of the dataset, giving up", file=sys.stderr, flush=True)
            os._exit(int(os.environ.get("LAB_EXIT", "3")))
        if fault == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        if fault == "sigsegv":
            os.kill(os.getpid(), signal.SIGSEGV)
        if fault == "hang":
            print(f"rank {rank}: loading the next shard ...", flush=True)
            time.sleep(3600)
        if fault == "oom":
            with open(os.path.join(os.environ["LAB_CGROUP"], "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))  # under the memory limit run_case.py made
            hog = []
            while True:  # host memory runs out under the limit run_case.py set
                hog.append(bytearray(64 << 20))
    x = torch.randn(32, 16)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    for p in model.parameters():
        if fault == "mismatch" and me and step == at_step:
            # a rank-dependent branch: this rank reduces a tensor of another size
            dist.all_reduce(torch.zeros(p.numel() + 7))
        else:
            dist.all_reduce(p.grad)
        p.grad /= world
    opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.barrier()
print(f"rank {rank}: training finished", flush=True)
dist.destroy_process_group()
