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

Causes: device-oom (one rank runs out of device memory), worker-signal (one rank dies of SIGSEGV),
worker-exception (one rank raises a ValueError). The truth is written to TRUTH.json beside the
logs: category, node, rank (the logs are in OUT/logs). `--pack gz` gzips each file, `--pack tar.gz` makes one archive per node.
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
    a = ap.parse_args()
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
    for n in range(a.nodes):
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
             "bytes": size, "pack": a.pack, "seed": a.seed}
    with open(os.path.join(a.out, "TRUTH.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
