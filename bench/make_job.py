#!/usr/bin/env python3
"""Writes a deterministic synthetic failed job for speed and scale measurements.

N nodes x R ranks, about SIZE bytes in all, in the formats real jobs print:
- nvidia: one train.log per node as `torchrun --tee 3` writes it: launcher output, `[defaultN]:`
  prefixed NCCL INFO lines (bootstrap, comm init, channels, per-collective COLL lines), step logs;
  then one injected root cause with its consequences (watchdog timeouts on the other ranks, SIGTERM
  from the launcher, the failure table).
- ascend: per node a train.log (launcher, steps), host plogs per process (plog/plog-PID_DATE.log) and
  device logs (device-N/device-PID_DATE.log) filled with INFO traffic, the cause in the culprit's
  logs, HCCL timeouts on the others.

Those two are the `classic` preset: NCCL INFO traffic or plog INFO traffic, and little else. The other
presets write what real training logs are mostly made of, mixed by weight (see PRESETS): progress
lines of Megatron / MindSpeed, DeepSpeed, Hugging Face Trainer (dicts and tqdm bars redrawn with
carriage returns), Lightning bars, python logging, metric JSON lines, NCCL INFO at init and per
collective (NCCL_DEBUG_SUBSYS=COLL), plog INFO / DEBUG and device logs, nvidia-smi / npu-smi tables
dumped by a monitor (`nvidia-smi -l`, `watch npu-smi info`):
  progress  80 % progress lines         nccl   NCCL INFO per collective
  plog      Ascend plogs and device logs table  smi tables from a monitor loop
  mix       a bit of everything
Each seed draws host names, the culprit node and rank, the step it fails at, the progress-print
style per node, the prefix the launcher puts in front of worker lines, and how much of each kind.

Causes: device-oom (one rank runs out of device memory), worker-signal (one rank dies of SIGSEGV),
worker-exception (one rank raises a ValueError). The truth is written to TRUTH.json beside the
logs: category, node, rank (the logs are in OUT/logs). `--pack gz` gzips each file, `--pack tar.gz`
makes one archive per node. `--files N` writes the same bytes as N files (nodes' files concatenated
in turn), for the cost per file: a 512-node Ascend job of ~8,000 files next to its 16-file twin.
Only Debian's python3 standard library is used.
"""
import argparse
import gzip
import io
import json
import os
import random
import tarfile

CATEGORY = {"device-oom": "device-oom", "worker-signal": "worker-signal", "worker-exception": "worker-exception"}


class Clock:
    """Seconds since the job started, printed in the formats the logs use."""

    def __init__(self, start=1764237600.0):  # 2025-11-27 10:00:00 UTC
        self.t = start

    def tick(self, dt):
        self.t += dt

    def parts(self, t=None):
        import time as _t
        t = self.t if t is None else t
        g = _t.gmtime(t)
        frac = int((t - int(t)) * 1e6)
        return g, frac

    def iso(self, t=None):
        g, frac = self.parts(t)
        return "%04d-%02d-%02d %02d:%02d:%02d,%03d" % (g.tm_year, g.tm_mon, g.tm_mday, g.tm_hour, g.tm_min, g.tm_sec, frac // 1000)

    def glog(self, t=None):  # E1127 10:00:00.123000
        g, frac = self.parts(t)
        return "%02d%02d %02d:%02d:%02d.%06d" % (g.tm_mon, g.tm_mday, g.tm_hour, g.tm_min, g.tm_sec, frac)

    def plog(self, t=None):  # 2025-11-27-10:00:00.123.456
        g, frac = self.parts(t)
        return "%04d-%02d-%02d-%02d:%02d:%02d.%03d.%03d" % (g.tm_year, g.tm_mon, g.tm_mday, g.tm_hour, g.tm_min, g.tm_sec,
                                                          frac // 1000, frac % 1000)

    def table(self, t=None):  # 2025-11-27_10:00:00
        g, _ = self.parts(t)
        return "%04d-%02d-%02d_%02d:%02d:%02d" % (g.tm_year, g.tm_mon, g.tm_mday, g.tm_hour, g.tm_min, g.tm_sec)

    def stamp(self):  # 20251127100000123 for plog file names
        g, frac = self.parts()
        return "%04d%02d%02d%02d%02d%02d%03d" % (g.tm_year, g.tm_mon, g.tm_mday, g.tm_hour, g.tm_min, g.tm_sec, frac // 1000)


def launcher_head(host, node_rank, a, c, launcher_pid):
    w = a.ranks
    lines = [
        "+ torchrun --nnodes=%d --nproc_per_node=%d --node_rank=%d --rdzv_backend=c10d --rdzv_endpoint=%s:29400 --tee 3 pretrain.py"
        % (a.nodes, w, node_rank, a.host_names[0]),
        "I%s %d torch/distributed/launcher/api.py:188] Starting elastic_operator with launch configs:" % (c.glog(), launcher_pid),
        "I%s %d torch/distributed/launcher/api.py:188]   entrypoint       : pretrain.py" % (c.glog(), launcher_pid),
        "I%s %d torch/distributed/launcher/api.py:188]   min_nodes        : %d" % (c.glog(), launcher_pid, a.nodes),
        "I%s %d torch/distributed/launcher/api.py:188]   max_nodes        : %d" % (c.glog(), launcher_pid, a.nodes),
        "I%s %d torch/distributed/launcher/api.py:188]   nproc_per_node   : %d" % (c.glog(), launcher_pid, w),
        "I%s %d torch/distributed/launcher/api.py:188]   run_id           : job-%d" % (c.glog(), launcher_pid, a.seed),
        "I%s %d torch/distributed/launcher/api.py:188]   rdzv_backend     : c10d" % (c.glog(), launcher_pid),
        "I%s %d torch/distributed/launcher/api.py:188]   rdzv_endpoint    : %s:29400" % (c.glog(), launcher_pid, a.host_names[0]),
        "I%s %d torch/distributed/launcher/api.py:188]   max_restarts     : 0" % (c.glog(), launcher_pid),
        "I%s %d torch/distributed/launcher/api.py:188]   monitor_interval : 0.1" % (c.glog(), launcher_pid),
        "I%s %d torch/distributed/elastic/agent/server/api.py:825] [default] starting workers for entrypoint: python3" % (c.glog(), launcher_pid),
    ]
    return lines


def failure_table(host, c, rank, local_rank, pid, exitcode, t):
    return [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "pretrain.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : %s" % c.table(t),
        "  host      : %s.cluster.internal" % host,
        "  rank      : %d (local_rank: %d)" % (rank, local_rank),
        "  exitcode  : %d (pid: %d)" % (exitcode, pid),
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "============================================================",
    ]


def cause_lines(a, prefix, rank, local_rank, device):
    """The culprit's own last lines: what it printed when it failed, and its exit code."""
    tb = [
        "Traceback (most recent call last):",
        '  File "/work/pretrain.py", line 311, in <module>',
        "    main()",
        '  File "/work/pretrain.py", line 287, in main',
        "    loss.backward()",
    ]
    if a.cause == "device-oom":
        acc = "NPU" if a.platform == "ascend" else "CUDA"
        if a.platform == "ascend":
            last = ("RuntimeError: NPU out of memory. Tried to allocate 2.50 GiB (NPU %d; 60.97 GiB total capacity; "
                    "57.12 GiB already allocated; 57.12 GiB current active; 1.02 GiB free)" % device)
        else:
            last = ("torch.OutOfMemoryError: %s out of memory. Tried to allocate 3.50 GiB. GPU %d has a total capacity of "
                    "79.11 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.08 GiB memory in use." % (acc, device))
        return [prefix + l for l in tb + [last]], 1
    if a.cause == "worker-exception":
        return [prefix + l for l in tb + ["ValueError: loss is nan at step %d (rank %d)" % (a.fail_step, rank)]], 1
    # worker-signal: a native crash prints little; the launcher reports the signal.
    return [prefix + "Fatal Python error: Segmentation fault", prefix + "", prefix + "Current thread 0x00007f3a1c9fe740 (most recent call first):",
            prefix + '  File "/work/pretrain.py", line 287 in main'], -11


def nvidia_node(a, n, rng, c, out):
    host = a.host_names[n]
    R = a.ranks
    W = a.nodes * R
    launcher_pid = 5000 + 100 * n
    pids = [launcher_pid + 11 + r for r in range(R)]
    write = out.write
    for l in launcher_head(host, n, a, c, launcher_pid):
        write(l + "\n")
    comm = "0x%x" % (0x55d0c0a00000 + n * 0x1000)
    comm_id = "0x9f2e4c1a7b3d5e%02x" % (a.seed % 256)
    for r in range(R):
        p = "[default%d]:%s:%d:%d [%d] " % (r, host, pids[r], pids[r], r)
        if r == 0 and n == 0:
            write(p + "NCCL INFO Bootstrap : Using eth0:10.0.%d.%d<0>\n" % (n // 250, n % 250 + 2))
            write(p + "NCCL INFO cudaDriverVersion 12040\n")
            write("[default0]:NCCL version 2.20.5+cuda12.4\n")
        write(p + "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.%d.%d<0>\n" % (n // 250, n % 250 + 2))
        write(p + "NCCL INFO Using network IB\n")
    for r in range(R):
        g = n * R + r
        p = "[default%d]:%s:%d:%d [%d] " % (r, host, pids[r], pids[r] + 60, r)
        write(p + "NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId %s - Init START\n"
              % (comm, g, W, r, r, 0x18 + 0x10 * r, comm_id))
        write(p + "NCCL INFO Setting affinity for GPU %d to ffff,ffffffff\n" % r)
        for ch in range(8):
            write(p + "NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via P2P/IPC/read\n" % (ch, g, r, (g + 1) % W, (r + 1) % R))
        write(p + "NCCL INFO Connected all rings\n")
        write(p + "NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId %s - Init COMPLETE\n"
              % (comm, g, W, r, r, 0x18 + 0x10 * r, comm_id))
    return host, pids, launcher_pid


def nvidia_fill(a, n, rng, c, out, pids, budget, steps):
    """Per step: one COLL line per rank and a step line on rank 0; until the node's byte budget."""
    host = a.host_names[n]
    R = a.ranks
    W = a.nodes * R
    written = 0
    step = 0
    comm = "0x%x" % (0x55d0c0a00000 + n * 0x1000)
    while written < budget:
        step += 1
        lines = []
        for r in range(R):
            lines.append("[default%d]:%s:%d:%d [%d] NCCL INFO AllReduce: opCount %x sendbuff 0x7f%08x recvbuff 0x7f%08x count %d datatype 7 op 0 root 0 comm %s [nranks=%d] stream 0x%x\n"
                         % (r, host, pids[r], pids[r], r, step, rng.randrange(1 << 32), rng.randrange(1 << 32),
                            rng.choice((65536000, 1048576, 4096)), comm, W, 0x5600000 + r))
        if step % 10 == 0:
            lines.append("[default0]:step %d loss %.4f lr %.2e tokens/s %d\n" % (step, 2.5 - step * 1e-6, 3e-4, 400000 + rng.randrange(30000)))
        s = "".join(lines)
        out.write(s)
        written += len(s)
        c.tick(0.05)
    steps.append(step)


def nvidia_end(a, n, c, out, pids, launcher_pid, culprit, t_fail):
    host = a.host_names[n]
    R = a.ranks
    W = a.nodes * R
    write = out.write
    cn, cr = culprit
    seq = 41233
    if n == cn:
        p = "[rank%d]:" % (n * R + cr)
        lines, code = cause_lines(a, p, n * R + cr, cr, cr)
        for l in lines:
            write(l + "\n")
    for r in range(R):
        g = n * R + r
        if (n, r) == culprit:
            continue
        t = t_fail + 600 + 0.1 * g
        write("[rank%d]:[E%s ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog caught collective operation timeout: "
              "WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=65536000, NumelOut=65536000, Timeout(ms)=600000) ran for %d milliseconds before timing out.\n"
              % (g, c.glog(t), g, seq, 600000 + 10 * g))
    t_end = t_fail + 600 + 0.1 * W + 1
    for r in range(R):
        if (n, r) == culprit:
            continue
        write("W%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM\n"
              % (c.glog(t_end), launcher_pid, pids[r]))
    if n == cn:
        code = -11 if a.cause == "worker-signal" else 1
        write("E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3\n"
              % (c.glog(t_fail + 0.5), launcher_pid, code, cr, pids[cr]))
        for l in failure_table(host, c, n * R + cr, cr, pids[cr], code, t_fail + 0.5):
            write(l + "\n")
    else:
        r0 = 0
        write("E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -15) local_rank: %d (pid: %d) of binary: /usr/bin/python3\n"
              % (c.glog(t_end + 1), launcher_pid, r0, pids[r0]))


def ascend_node(a, n, rng, c, budget, culprit, t_fail):
    """Ascend: train.log with the launcher and steps; one host plog per process and one device log per device."""
    host = a.host_names[n]
    R = a.ranks
    W = a.nodes * R
    launcher_pid = 7000 + 100 * n
    pids = [launcher_pid + 11 + r for r in range(R)]
    files = {}
    stamp = c.stamp()
    train = io.StringIO()
    for l in launcher_head(host, n, a, c, launcher_pid):
        train.write(l + "\n")
    per = max(1, budget // (2 * R + 1))
    cn, cr = culprit
    for r in range(R):
        g = n * R + r
        pid = pids[r]
        plog = io.StringIO()
        plog.write("[INFO] ASCENDCL(%d,python3):%s [acl.cpp:243]%d aclInit: start to execute aclInit\n" % (pid, c.plog(), pid))
        plog.write("[INFO] RUNTIME(%d,python3):%s [runtime.cc:1567]%d SetDevice: set device %d success, devId=%d\n" % (pid, c.plog(), pid, r, r))
        plog.write("[INFO] HCCL(%d,python3):%s [hccl_communicator.cc:302][%d]Entry-HcclCommInitRootInfo: rank[%d], rankSize[%d], devicePhyId[%d], deviceLogicId[%d]\n"
                   % (pid, c.plog(), pid, g, W, r, r))
        dev = io.StringIO()
        t = c.t
        i = 0
        while plog.tell() < per:
            i += 1
            t += 0.002
            plog.write("[INFO] RUNTIME(%d,python3):%s [stream.cc:1034]%d TaskFinished: stream_id=%d, task_id=%d, task_type=%d\n"
                       % (pid, c.plog(t), pid + 3, 2 + i % 5, i % 65535, i % 9))
        i = 0
        while dev.tell() < per:
            i += 1
            t += 0.002
            dev.write("[INFO] TSCH(-1,null):%s [ts_sq.c:412] sq_id=%d, task_id=%d, stream_id=%d, head=%d, tail=%d\n"
                      % (c.plog(t), i % 512, i % 65535, 2 + i % 5, i % 1024, (i + 1) % 1024))
        if (n, r) == culprit:
            plog.write("[ERROR] PYTORCH(%d,python3):%s [npu_caching_allocator.cpp:1123]%d NPU out of memory. device %d\n"
                       % (pid, c.plog(t_fail), pid, r))
        else:
            tt = t_fail + 1800 + 0.1 * g
            plog.write("[ERROR] HCCL(%d,python3):%s [exception_handler.cc:83][%d]call trace: hcclRet -> 9\n" % (pid, c.plog(tt), pid))
            plog.write("[ERROR] RUNTIME(%d,python3):%s [stream.cc:1087]%d SyncGetDevMsg: [COMM]stream sync timeout, device_id=%d, stream_id=2\n"
                       % (pid, c.plog(tt), pid, r))
        files["plog/plog-%d_%s.log" % (pid, stamp)] = plog.getvalue()
        files["device-%d/device-%d_%s.log" % (r, pid, stamp)] = dev.getvalue()
    for s in range(1, 200):
        train.write("[default0]:step %d loss %.4f lr %.2e\n" % (s, 2.5 - s * 1e-4, 3e-4))
    if n == cn:
        lines, code = cause_lines(a, "[rank%d]:" % (n * R + cr), n * R + cr, cr, cr)
        for l in lines:
            train.write(l + "\n")
        code = -11 if a.cause == "worker-signal" else 1
        train.write("E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3\n"
                    % (c.glog(t_fail + 0.5), launcher_pid, code, cr, pids[cr]))
        for l in failure_table(host, c, n * R + cr, cr, pids[cr], code, t_fail + 0.5):
            train.write(l + "\n")
    files["train.log"] = train.getvalue()
    return files


# ---- presets made of what real training logs are mostly made of ----

# Weights per kind of line (per seed each is scaled by a factor drawn in [0.7, 1.3]). Where a kind
# does not exist on the platform (NCCL on Ascend, plogs on NVIDIA) its weight goes to the other.
PRESETS = {
    "progress": {"megatron": 28, "deepspeed": 12, "hf": 10, "tqdm": 15, "lightning": 15, "pylog": 6, "metric": 4,
                 "nccl": 5, "smi": 3, "plog": 2},
    "nccl": {"nccl": 75, "megatron": 8, "deepspeed": 4, "pylog": 5, "metric": 3, "smi": 5},
    "plog": {"plog": 80, "megatron": 10, "pylog": 4, "smi": 6},
    "table": {"smi": 70, "megatron": 12, "tqdm": 8, "pylog": 10},
    "mix": {"megatron": 12, "deepspeed": 8, "hf": 8, "tqdm": 8, "lightning": 8, "pylog": 10, "metric": 8, "nccl": 14,
            "smi": 10, "plog": 14},
}
BLOCKS = " ▏▎▍▌▋▊▉█"


def bar(frac, width=10):
    full = int(frac * width)
    part = int((frac * width - full) * 8)
    s = "█" * full + (BLOCKS[part] if full < width else "")
    return s + " " * (width - len(s))


def hms(sec):
    sec = int(sec)
    return "%02d:%02d" % (sec // 60, sec % 60) if sec < 3600 else "%d:%02d:%02d" % (sec // 3600, sec // 60 % 60, sec % 60)


class Worker:
    """What one node's workers print per step, in the style this node's job uses."""

    def __init__(self, a, n, rng, c):
        self.a, self.n, self.rng, self.c = a, n, rng, c
        self.host = a.host_names[n]
        self.R = a.ranks
        self.W = a.nodes * a.ranks
        self.launcher_pid = rng.randrange(2000, 400000)
        self.pids = [self.launcher_pid + 7 + 3 * r for r in range(self.R)]
        # The prefix torchrun (or srun -l) puts in front of a worker's lines: --tee's [defaultN]:,
        # 2.x's [rankN]:, srun's task label, or none.
        self.prefix_style = rng.choice(["default", "default", "rank", "srun", "none"])
        self.pylog_style = rng.randrange(3)
        self.total = rng.choice([10000, 50000, 200000, 500000])
        self.gbs = rng.choice([64, 128, 256, 512, 1024])
        self.comm = "0x%x" % rng.randrange(0x550000000000, 0x560000000000)
        self.op = 0

    def prefix(self, r):
        g = self.n * self.R + r
        return {"default": "[default%d]:" % r, "rank": "[rank%d]:" % g, "srun": "%d: " % g, "none": ""}[self.prefix_style]

    def iso(self, sep=" "):
        g, frac = self.c.parts()
        return "%04d-%02d-%02d%s%02d:%02d:%02d" % (g.tm_year, g.tm_mon, g.tm_mday, sep, g.tm_hour, g.tm_min, g.tm_sec)

    def line(self, kind, step):
        rng, r = self.rng, self.rng.randrange(self.R)
        p = self.prefix(r)
        loss = 2.2 + 6.0 / (1 + step / 300.0) + rng.random() * 0.05
        lr = 3e-4 * min(1.0, step / 2000.0) + 1e-6
        if kind == "megatron":
            stamp = (" [%s]" % self.iso()) if self.n % 2 == 0 else ""
            return (p + "%s iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | "
                    "throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | "
                    "loss scale: %.1f | grad norm: %.3f | number of skipped iterations: %3d | number of nan iterations: %3d |"
                    % (stamp, step, self.total, step * self.gbs, 900 + rng.random() * 400, 150 + rng.random() * 60, lr,
                       self.gbs, loss, 1.0, 0.2 + rng.random(), 0, 0))
        if kind == "deepspeed":
            k = rng.randrange(3)
            if k == 0 and self.n == 0:  # log_dist prints on global rank 0 alone
                p = self.prefix(0)
            elif k == 0:
                k = 1
            if k == 0:
                return p + "[%s,%03d] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%.6e, %.6e], mom=[(0.9, 0.95), (0.9, 0.95)]" % (
                    self.iso(), rng.randrange(1000), step, rng.randrange(4), lr, lr)
            if k == 1:
                return p + "steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f" % (step, loss, 0.4 + rng.random(), 40 + rng.random() * 40)
            return p + ("[%s,%03d] [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, "
                        "CurrSamplesPerSec=%.2f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB") % (
                self.iso(), rng.randrange(1000), step * 4, step, 60 + rng.random() * 5, 55 + rng.random() * 15, 12 + rng.random(), 20 + rng.random())
        if kind == "hf":
            return p + "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.6e, 'epoch': %.2f}" % (loss, 0.5 + rng.random(), lr, step / 5000.0)
        if kind in ("tqdm", "lightning"):
            draws = []
            for k in range(rng.randrange(3, 16)):  # one physical line: a bar redrawn with \r
                s = step + k
                f = (s % 1000) / 1000.0
                rate = 1.5 + rng.random() * 3
                left = (1000 - s % 1000) / rate
                if kind == "tqdm":
                    draws.append("%3d%%|%s| %d/%d [%s<%s, %.2fit/s]" % (int(f * 100), bar(f), s % 1000, 1000, hms(s % 1000 / rate), hms(left), rate))
                else:
                    draws.append("Epoch %d:  %2d%%|%s| %d/%d [%s<%s, %.2fit/s, v_num=%d, train_loss=%.3f]" % (
                        s // 1000, int(f * 100), bar(f), s % 1000, 1000, hms(s % 1000 / rate), hms(left), rate, self.n, loss))
            return p + "\r".join(draws)
        if kind == "pylog":
            msg = rng.choice(["step %d: loss=%.4f, ppl=%.2f, tokens/s=%.1f" % (step, loss, 2.718 ** min(loss, 9), 3e5 + rng.random() * 1e4),
                              "saving checkpoint at step %d to /ckpt/run/step_%d" % (step, step),
                              "Evaluating on 512 samples, batch size %d" % (self.gbs // 8),
                              "data loader: %d batches prefetched, queue %d/%d" % (rng.randrange(64), rng.randrange(16), 16)])
            if self.pylog_style == 0:
                return p + "%s,%03d - train - INFO - %s" % (self.iso(), rng.randrange(1000), msg)
            if self.pylog_style == 1:
                return p + "INFO:__main__:%s" % msg
            return p + "%s INFO     [trainer.loop] %s" % (self.iso("T"), msg)
        if kind == "metric":
            return p + '{"step": %d, "loss": %.5f, "lr": %.3e, "grad_norm": %.3f, "tokens_per_sec": %.1f, "mfu": %.3f, "mem_gb": %.2f}' % (
                step, loss, lr, 0.3 + rng.random(), 3e5 + rng.random() * 1e4, 0.4 + rng.random() * 0.1, 60 + rng.random() * 10)
        if kind == "nccl":
            self.op += 1
            pid = self.pids[r]
            opname = rng.choice(["AllReduce", "AllReduce", "AllGather", "ReduceScatter", "Broadcast"])
            return p + ("%s:%d:%d [%d] NCCL INFO %s: opCount %x sendbuff 0x7f%08x recvbuff 0x7f%08x count %d datatype 7 op 0 root 0 "
                        "comm %s [nranks=%d] stream 0x%x") % (self.host, pid, pid + 61, r, opname, self.op, rng.randrange(1 << 32),
                                                               rng.randrange(1 << 32), rng.choice((65536000, 1048576, 4096)), self.comm, self.W, 0x5600000 + r)
        raise ValueError(kind)

    def nccl_init(self):
        out = []
        for r in range(self.R):
            g = self.n * self.R + r
            p = self.prefix(r) + "%s:%d:%d [%d] " % (self.host, self.pids[r], self.pids[r], r)
            if g == 0:
                out.append(p + "NCCL INFO Bootstrap : Using eth0:10.%d.%d.%d<0>" % (self.n // 250, self.n % 250, 2 + r))
                out.append(self.prefix(r) + "NCCL version 2.21.5+cuda12.4")
            out.append(p + "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.%d.%d<0>" % (self.n // 250, self.n % 250 + 2))
            out.append(p + "NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x%x - Init START"
                       % (self.comm, g, self.W, r, r, 0x18 + 0x10 * r, 0x9f2e4c1a7b3d5e00 + self.a.seed % 256))
            for ch in range(4):
                out.append(p + "NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via P2P/IPC/read" % (ch, g, r, (g + 1) % self.W, (r + 1) % self.R))
            out.append(p + "NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x%x - Init COMPLETE"
                       % (self.comm, g, self.W, r, r, 0x18 + 0x10 * r, 0x9f2e4c1a7b3d5e00 + self.a.seed % 256))
        return out


def smi_snapshot(a, w, rng, c):
    """One `nvidia-smi` (or `npu-smi info`) table as a monitor loop prints it."""
    g, _ = c.parts()
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    out = ["%s %s %2d %02d:%02d:%02d %d" % (days[g.tm_wday], months[g.tm_mon - 1], g.tm_mday, g.tm_hour, g.tm_min, g.tm_sec, g.tm_year)]
    if a.platform == "nvidia":
        out += ["+-----------------------------------------------------------------------------------------+",
                "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |",
                "|-----------------------------------------+------------------------+----------------------+",
                "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
                "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
                "|                                         |                        |               MIG M. |",
                "|=========================================+========================+======================|"]
        for d in range(w.R):
            out += ["|   %d  NVIDIA H100 80GB HBM3          On  |   00000000:%02X:00.0 Off |                    0 |" % (d, 0x18 + 0x10 * d),
                    "| N/A   %2dC    P0            %3dW /  700W |   %5dMiB /  81559MiB |     %3d%%      Default |" % (
                        40 + rng.randrange(20), 300 + rng.randrange(300), 40000 + rng.randrange(20000), 80 + rng.randrange(20)),
                    "|                                         |                        |             Disabled |",
                    "+-----------------------------------------+------------------------+----------------------+"]
        out += ["", "+-----------------------------------------------------------------------------------------+",
                "| Processes:                                                                              |",
                "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
                "|        ID   ID                                                               Usage      |",
                "|=========================================================================================|"]
        for d in range(w.R):
            out.append("|    %d   N/A  N/A    %6d      C   /usr/bin/python3                            %5dMiB |" % (d, w.pids[d], 40000 + rng.randrange(20000)))
        out.append("+-----------------------------------------------------------------------------------------+")
        return out
    out += ["+------------------------------------------------------------------------------------------------+",
            "| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |",
            "+---------------------------+---------------+----------------------------------------------------+",
            "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
            "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
            "+===========================+===============+====================================================+"]
    for d in range(w.R):
        out += ["| %-5d 910B3               | OK            | %-5.1f       %-2d                0    / 0             |" % (d, 90 + rng.random() * 200, 40 + rng.randrange(20)),
                "| 0                         | 0000:%02X:00.0  | %-3d         0    / 0          %5d/ 65536         |" % (0xC1 + d, rng.randrange(100), 30000 + rng.randrange(30000)),
                "+===========================+===============+====================================================+"]
    out += ["+---------------------------+---------------+----------------------------------------------------+",
            "| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |",
            "+===========================+===============+====================================================+"]
    for d in range(w.R):
        out += ["| %-7d 0                 | %-13d | python3                  | %-24d|" % (d, w.pids[d], 30000 + rng.randrange(20000)),
                "+===========================+===============+====================================================+"]
    return out


def plog_lines(w, rng, c, r, count, t):
    """`count` INFO / DEBUG lines of process r's host plog and of its device's log, from time t."""
    pid = w.pids[r]
    host, dev = [], []
    for i in range(count):
        t += 0.001 + rng.random() * 0.003
        k = rng.randrange(10)
        if k < 4:
            host.append("[INFO] RUNTIME(%d,python3):%s [stream.cc:1034]%d TaskFinished: stream_id=%d, task_id=%d, task_type=%d"
                        % (pid, c.plog(t), pid + 3, 2 + i % 5, i % 65535, i % 9))
        elif k < 6:
            host.append("[DEBUG] DRV(%d,python3):%s [ascend][curpid: %d, %d][drv][devmm][halMemFreeInner 2459]Free enter. (ptr=0x%x)"
                        % (pid, c.plog(t), pid, pid, 0x124000000000 + rng.randrange(1 << 32)))
        elif k < 7:
            host.append("[INFO] HCCL(%d,python3):%s [hccl_communicator.cc:1873][%d]Entry-HcclAllReduce: tag[AllReduce_%d], sendBuf[0x%x], count[%d], dataType[float16], op[sum], streamId[%d]"
                        % (pid, c.plog(t), pid + 1, i, 0x12c0c0000000 + i * 4096, rng.choice((4096, 1048576, 65536000)), 2 + i % 3))
        elif k < 8:
            host.append("[INFO] GE(%d,python3):%s [graph_manager.cc:1284]%d RunGraph:graph id %d, session id %d run success"
                        % (pid, c.plog(t), pid + 5, i % 37, 1))
        else:
            dev.append("[INFO] TSCH(-1,null):%s [ts_sq.c:412] sq_id=%d, task_id=%d, stream_id=%d, head=%d, tail=%d"
                       % (c.plog(t), i % 512, i % 65535, 2 + i % 5, i % 1024, (i + 1) % 1024))
    return host, dev, t


def preset_node(a, n, rng, weights, culprit, fail_step, t_fail):
    """One node's files for a preset: train.log (launcher and workers), plogs and device logs, the monitor's tables."""
    c = Clock()
    w = Worker(a, n, rng, c)
    budget = a.budget
    kinds = sorted(weights)
    share = [weights[k] for k in kinds]
    total = float(sum(share))
    train = launcher_head(w.host, n, a, c, w.launcher_pid)
    if a.platform == "nvidia" and weights.get("nccl"):
        train += w.nccl_init()
    smi, plogs, devs = [], {r: [] for r in range(w.R)}, {r: [] for r in range(w.R)}
    sizes = {"train": sum(len(l) + 1 for l in train), "smi": 0, "plog": 0}
    want = {"smi": budget * weights.get("smi", 0) / total, "plog": budget * weights.get("plog", 0) / total}
    want["train"] = budget - want["smi"] - want["plog"]
    train_kinds = [k for k in kinds if k not in ("smi", "plog")]
    train_share = [weights[k] for k in train_kinds]
    step = 0
    t_plog = c.t
    # Steps until every file is at its share; the failure comes on the step the culprit's node reaches
    # last (the budget) or, drawn per seed, earlier with monitors and plogs going on after it.
    while sizes["train"] < want["train"] or sizes["smi"] < want["smi"] or sizes["plog"] < want["plog"]:
        step += 1
        c.tick(0.4)
        if sizes["train"] < want["train"] and train_kinds:
            for _ in range(8):
                l = w.line(rng.choices(train_kinds, train_share)[0], step)
                train.append(l)
                sizes["train"] += len(l) + 1
        if sizes["smi"] < want["smi"] and step % 5 == 0:
            snap = smi_snapshot(a, w, rng, c)
            smi += snap
            sizes["smi"] += sum(len(l) + 1 for l in snap)
        if sizes["plog"] < want["plog"]:
            r = rng.randrange(w.R)
            host, dev, t_plog = plog_lines(w, rng, c, r, 60, max(t_plog, c.t))
            plogs[r] += host
            devs[r] += dev
            sizes["plog"] += sum(len(l) + 1 for l in host + dev)
    cn, cr = culprit
    if t_fail is None:  # the culprit's node: it fails after its last step
        t_fail = c.t + 0.3
    if n == cn:
        lines, code = cause_lines(a, w.prefix(cr), n * w.R + cr, cr, cr)
        train += lines
        if a.platform == "ascend" and a.cause == "device-oom":
            plogs[cr].append("[ERROR] PYTORCH(%d,python3):%s [npu_caching_allocator.cpp:1123]%d NPU out of memory. device %d"
                             % (w.pids[cr], c.plog(t_fail), w.pids[cr], cr))
        train.append("E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3"
                     % (c.glog(t_fail + 0.5), w.launcher_pid, code, cr, w.pids[cr]))
        train += failure_table(w.host, c, n * w.R + cr, cr, w.pids[cr], code, t_fail + 0.5)
    else:
        for r in range(w.R):
            g = n * w.R + r
            t = t_fail + 600 + 0.1 * g
            if a.platform == "nvidia":
                train.append(w.prefix(r) + "[E%s ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog caught collective operation timeout: "
                             "WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=65536000, NumelOut=65536000, Timeout(ms)=600000) ran for %d milliseconds before timing out."
                             % (c.glog(t), g, fail_step, 600000 + 10 * g))
            else:
                plogs[r].append("[ERROR] HCCL(%d,python3):%s [exception_handler.cc:83][%d]call trace: hcclRet -> 9" % (w.pids[r], c.plog(t), w.pids[r]))
                plogs[r].append("[ERROR] RUNTIME(%d,python3):%s [stream.cc:1087]%d SyncGetDevMsg: [COMM]stream sync timeout, device_id=%d, stream_id=2"
                                % (w.pids[r], c.plog(t), w.pids[r], r))
        t_end = t_fail + 600 + 0.1 * w.W + 1
        for r in range(w.R):
            train.append("W%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM"
                         % (c.glog(t_end), w.launcher_pid, w.pids[r]))
        train.append("E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -15) local_rank: 0 (pid: %d) of binary: /usr/bin/python3"
                     % (c.glog(t_end + 1), w.launcher_pid, w.pids[0]))
    files = {"train.log": "\n".join(train) + "\n"}
    if smi:
        files["monitor/%s.log" % ("nvidia-smi" if a.platform == "nvidia" else "npu-smi")] = "\n".join(smi) + "\n"
    stamp = Clock().stamp()
    for r in range(w.R):
        if plogs[r]:
            rot = a.rotate if a.rotate > 0 else 1
            chunk = max(1, -(-len(plogs[r]) // rot))
            for k in range(0, len(plogs[r]), chunk):  # rotated plogs: plog-PID_DATE.log, each from its own time
                files["plog/plog-%d_%s%03d.log" % (w.pids[r], stamp[:-3], k // chunk)] = "\n".join(plogs[r][k:k + chunk]) + "\n"
        if devs[r]:
            files["device-%d/device-%d_%s.log" % (r, w.pids[r], stamp)] = "\n".join(devs[r]) + "\n"
    return files, t_fail, step


def write_merged(root, all_files, count):
    """The same bytes as `count` files: every node's files concatenated in turn."""
    names = [(host, name) for host, files in all_files for name in sorted(files)]
    per = -(-len(names) // count)
    lookup = dict(((h, n), f) for h, fs in all_files for n, f in fs.items())
    for k in range(count):
        part = names[k * per:(k + 1) * per]
        if not part:
            break
        with open(os.path.join(root, "part-%03d.log" % k), "w") as f:
            for key in part:
                f.write(lookup[key])


def write_node(root, host, files, pack):
    if pack == "tar.gz":
        with tarfile.open(os.path.join(root, host + ".tar.gz"), "w:gz", compresslevel=6) as tf:
            for name in sorted(files):
                data = files[name].encode()
                info = tarfile.TarInfo("%s/%s" % (host, name))
                info.size = len(data)
                info.mtime = 1764237600
                tf.addfile(info, io.BytesIO(data))
        return
    for name in sorted(files):
        path = os.path.join(root, host, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = files[name].encode()
        if pack == "gz":
            with open(path + ".gz", "wb") as f:
                with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=6, mtime=1764237600) as z:
                    z.write(data)
        else:
            with open(path, "wb") as f:
                f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="folder to write (created)")
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--ranks", type=int, default=8, help="ranks (devices) per node")
    ap.add_argument("--size", default="8M", help="total bytes, with K/M/G suffix")
    ap.add_argument("--platform", choices=("nvidia", "ascend"), default="nvidia")
    ap.add_argument("--cause", choices=sorted(CATEGORY), default="device-oom")
    ap.add_argument("--pack", choices=("none", "gz", "tar.gz"), default="none")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--preset", choices=["classic"] + sorted(PRESETS), default="classic",
                    help="what the lines are (see above); plog implies --platform ascend")
    ap.add_argument("--rotate", type=int, default=1, help="plog files per process (rotated), presets only")
    ap.add_argument("--files", type=int, default=0, help="write the same bytes as this many files (presets only)")
    a = ap.parse_args()
    if a.preset == "plog":
        a.platform = "ascend"
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    size = int(float(a.size[:-1]) * units[a.size[-1].upper()]) if a.size[-1].upper() in units else int(a.size)
    if a.nodes < 1 or a.ranks < 2:
        ap.error("need at least 1 node and 2 ranks")
    rng = random.Random(a.seed)
    letter = "abcdefgh"[a.seed % 8]
    a.host_names = ["gpu-%s%02d" % (letter, i + 1) if a.platform == "nvidia" else "npu-%s%02d" % (letter, i + 1)
                    for i in range(a.nodes)]
    culprit = (rng.randrange(a.nodes), rng.randrange(a.ranks))
    a.fail_step = 1000 + rng.randrange(9000)
    logs = os.path.join(a.out, "logs")
    os.makedirs(logs, exist_ok=True)
    budget = max(1, size // a.nodes)
    steps = []
    t_fail = None
    if a.preset != "classic":
        weights = {}
        for k, v in PRESETS[a.preset].items():
            k = {"nvidia": {"plog": "nccl"}, "ascend": {"nccl": "plog"}}[a.platform].get(k, k)
            weights[k] = weights.get(k, 0) + v * (0.7 + 0.6 * rng.random())
        a.budget = budget
        all_files = {}
        cn = culprit[0]
        t_fail, fail_step = None, 0
        for n in [cn] + [k for k in range(a.nodes) if k != cn]:  # the culprit's node first: its end is the failure's time
            files, t_fail, steps_done = preset_node(a, n, random.Random(a.seed * 1000 + n), weights, culprit, fail_step, t_fail)
            fail_step = fail_step or steps_done
            all_files[n] = (a.host_names[n], files)
        all_files = [all_files[n] for n in range(a.nodes)]
        t_fail = None
        if a.files > 0:
            write_merged(logs, all_files, a.files)
        else:
            for host, files in all_files:
                write_node(logs, host, files, a.pack)
    for n in range(a.nodes if a.preset == "classic" else 0):
        c = Clock()
        host = a.host_names[n]
        if a.platform == "nvidia":
            buf = io.StringIO()
            _, pids, launcher_pid = nvidia_node(a, n, rng, c, buf)
            nvidia_fill(a, n, rng, c, buf, pids, budget - buf.tell() - 8000, steps)
            if t_fail is None:
                t_fail = c.t
            nvidia_end(a, n, c, buf, pids, launcher_pid, culprit, t_fail)
            files = {"train.log": buf.getvalue()}
        else:
            if t_fail is None:
                t_fail = c.t + 3600
            files = ascend_node(a, n, rng, c, budget, culprit, t_fail)
        write_node(logs, host, files, a.pack)
    cn, cr = culprit
    truth = {"category": CATEGORY[a.cause], "node": a.host_names[cn], "rank": cn * a.ranks + cr,
             "cause": a.cause, "platform": a.platform, "nodes": a.nodes, "ranks_per_node": a.ranks,
             "bytes": size, "pack": a.pack, "seed": a.seed, "preset": a.preset}
    with open(os.path.join(a.out, "TRUTH.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
