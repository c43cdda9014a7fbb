#!/usr/bin/env python3
"""Writes the bundled sample dumps under samples/. Run it after changing it; commit the output.

Every sample is a small multi-node dump in the real formats (see ../shared/corpus/*/FORMAT.md),
written for dtriage: no line is copied from the corpus."""
import os
import shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples")


def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def plog_ts(day, h, m, s, ms, us):
    return f"{day}-{h:02d}:{m:02d}:{s:02d}.{ms:03d}.{us:03d}"


def npu_smi_16():
    rows = [
        "+------------------------------------------------------------------------------------------------+",
        "| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |",
        "+---------------------------+---------------+----------------------------------------------------+",
        "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
        "| Chip  Phy-ID              | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
        "+===========================+===============+====================================================+",
    ]
    bus = ["9D", "9F", "99", "9B", "BD", "BF", "B9", "BB"]
    for npu in range(8):
        for chip in range(2):
            dev = npu * 2 + chip
            rows.append(f"| {npu:<5} Ascend910           | OK            | {160.0 + dev:<11.1f} {31 + dev % 5:<17} 0    / 0             |")
            rows.append(f"| {chip:<5} {dev:<19} | 0000:{bus[npu]}:00.{chip}  | 0           0    / 0          3180 / 65536         |")
            rows.append("+===========================+===============+====================================================+" if chip == 1
                        else "+---------------------------+---------------+----------------------------------------------------+")
    rows += [
        "+---------------------------+---------------+----------------------------------------------------+",
        "| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |",
        "+===========================+===============+====================================================+",
    ]
    for npu in range(8):
        rows.append(f"| No running processes found in NPU {npu:<61}|")
        rows.append("+===========================+===============+====================================================+")
    return rows


def seed_launch(node_rank, nproc, glog_stamp, agent):
    """The torchrun command and the launch configs it logs, as the seed job's launcher printed them."""
    return [
        f"+ torchrun --nproc_per_node {nproc} --nnodes 2 --node_rank {node_rank} --master_addr 192.168.1.1 --master_port 29500 --max_restarts 1 train.py --config cfg/llama_16p.yaml",
        f"{glog_stamp} {agent} torch/distributed/launcher/api.py:188] Starting elastic_operator with launch configs:",
        "  entrypoint       : train.py",
        "  min_nodes        : 2",
        "  max_nodes        : 2",
        f"  nproc_per_node   : {nproc}",
        "  run_id           : none",
        "  rdzv_backend     : static",
        "  rdzv_endpoint    : 192.168.1.1:29500",
        "  rdzv_configs     : {'rank': %d, 'timeout': 900}" % node_rank,
        "  max_restarts     : 1",
        "  monitor_interval : 0.1",
        "",
    ]


def seed_plog_run(pid, day, h, m, lr, rank, rank_num, node_rank, ip):
    """A worker's run plog: its TDT client start and HCCL's SetupAgent line."""
    return [
        f"[EVENT] TDT({pid},python3):{plog_ts(day, h, m, 5, 130 + lr, 201)} [log.cpp:43][TsdClient] deviceId[{lr}] begin to init hdc client,[process_mode_manager.cpp:315:InitTsdClient]{pid}",
        f"[INFO] HCCL({pid},python3):{plog_ts(day, h, m, 9, 614, 147)} [topoinfo_detect.cc:221][{pid + 7}][HCCL_TRACE]SetupAgent rankNum[{rank_num}], rank[{rank}], rootInfo identifier[hccl_world_group], server[{ip}%enp189s0f0], logicDevId[{lr}], phydevId[{lr}], deviceIp[124.0.{node_rank}.{20 + lr}]",
    ]


def seed_node(base, host, node_rank, ip, pids_a, pids_b, day="2025-06-04"):
    """One 16-device node where torchrun starts 8 workers; device 0's worker dies with an SDMA
    error, torchrun restarts the group (max_restarts 1) and the new device-0 worker dies the same way."""
    d = os.path.join(base, host)
    write(os.path.join(d, "npu-smi-info.txt"), ["$ npu-smi info"] + npu_smi_16())
    tp = 10 + node_rank  # node clocks differ by a second
    train = seed_launch(node_rank, 8, f"I0604 10:11:0{node_rank}.123000", pids_a[0] - 40)
    for attempt, pids in enumerate((pids_a, pids_b)):
        t0 = 4 + attempt * 40
        for lr, pid in enumerate(pids):
            train.append(f"rank {node_rank * 8 + lr} (local {lr}) pid {pid}: using npu:{lr} of 16 visible devices")
        pid0 = pids[0]
        train += [
            f"[rank{node_rank * 8}]: Traceback (most recent call last):",
            f"[rank{node_rank * 8}]:   File \"/home/train/train.py\", line 212, in <module>",
            f"[rank{node_rank * 8}]:     main(cfg)",
            f"[rank{node_rank * 8}]:   File \"/home/train/train.py\", line 160, in main",
            f"[rank{node_rank * 8}]:     batch = {{k: v.to(device, non_blocking=True) for k, v in batch.items()}}",
            f"[rank{node_rank * 8}]: RuntimeError: copy_between_host_and_device_opapi:torch_npu/csrc/aten/ops/op_api/CopyKernelOpApi.cpp:56 NPU function error: aclrtMemcpy, error code is 507013",
            f"[rank{node_rank * 8}]: [ERROR] {day}-10:{tp + t0:02d}:21 (PID:{pid0}, Device:0, RankID:{node_rank * 8}) ERR00100 PTA call acl api failed",
            f"[rank{node_rank * 8}]: [Error]: System Direct Memory Access (DMA) hardware execution error.",
            f"[rank{node_rank * 8}]:         Rectify the fault based on the error information in the ascend log.",
            f"[rank{node_rank * 8}]: EE8888: [PID: {pid0}] {plog_ts(day, 10, tp + t0, 21, 402, 300)} memcpy exception",
            f"[rank{node_rank * 8}]:         TraceBack (most recent call last):",
            f"[rank{node_rank * 8}]:         The error from device(0), serial number is 1. there is a sdma error, sdma channel is 0, the channel exist the following problems: The SMMU returns a Terminate error during page table translation.. the value of CQE status is 2.[FUNC:ProcessSdmaErrorInfo][FILE:device_error_proc.cc][LINE:779]",
            f"[rank{node_rank * 8}]:         Memory async copy failed, device_id=0, stream_id=2, task_id=2114, flip_num=0, copy_type=2, memcpy_type=0, copy_data_type=0, length=3348234240[FUNC:GetError][FILE:stream.cc][LINE:1183]",
            "",
        ]
        agent = pids_a[0] - 40
        for lr, pid in enumerate(pids[1:], start=1):
            train.append(f"W0604 10:{tp + t0:02d}:22.{100 + lr * 9:06d} {agent} torch/distributed/elastic/multiprocessing/api.py:897] Sending process {pid} closing signal SIGTERM")
        train.append(f"E0604 10:{tp + t0:02d}:23.455000 {agent} torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: {pid0}) of binary: /usr/local/python3.10/bin/python3")
        if attempt == 0:
            train.append(f"W0604 10:{tp + t0:02d}:23.460000 {agent} torch/distributed/elastic/agent/server/api.py:723] [default] Worker group FAILED. 1/1 attempts left; will restart worker group")
    train += [
        "Traceback (most recent call last):",
        "  File \"/usr/local/python3.10/bin/torchrun\", line 8, in <module>",
        "    sys.exit(main())",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        f"  time      : {day}_10:{tp + 44:02d}:23",
        f"  host      : {host}",
        f"  rank      : {node_rank * 8} (local_rank: 0)",
        f"  exitcode  : 1 (pid: {pids_b[0]})",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "============================================================",
    ]
    write(os.path.join(d, "train.log"), train)

    logdir = os.path.join(d, "ascend", "log")
    for attempt, pids in enumerate((pids_a, pids_b)):
        t0 = 4 + attempt * 40
        for lr, pid in enumerate(pids):
            stamp = f"{day.replace('-', '')}10{tp + t0:02d}05{123 + lr:03d}"
            run = seed_plog_run(pid, day, 10, tp + t0, lr, node_rank * 8 + lr, 16, node_rank, ip)
            write(os.path.join(logdir, "run", "plog", f"plog-{pid}_{stamp}.log"), run)
            if lr == 0:
                dbg = [
                    f"[ERROR] RUNTIME({pid},python3):{plog_ts(day, 10, tp + t0, 21, 402, 118)} [device_error_proc.cc:779]{pid} ProcessSdmaErrorInfo:The error from device(0), serial number is 1. there is a sdma error, sdma channel is 0, the channel exist the following problems: The SMMU returns a Terminate error during page table translation.. the value of CQE status is 2. the description of CQE status: When the SQE translates a page table, the SMMU returns a Terminate error.",
                    f"[ERROR] RUNTIME({pid},python3):{plog_ts(day, 10, tp + t0, 21, 402, 201)} [stream.cc:1183]{pid} GetError:Memory async copy failed, device_id=0, stream_id=2, task_id=2114, flip_num=0, copy_type=2, memcpy_type=0, copy_data_type=0, length=3348234240",
                    f"[ERROR] RUNTIME({pid},python3):{plog_ts(day, 10, tp + t0, 21, 402, 250)} [error_message_manage.cc:53]{pid} FuncErrorReason:report error module_type=3, module_name=EE8888",
                    f"[ERROR] ASCENDCL({pid},python3):{plog_ts(day, 10, tp + t0, 21, 402, 271)} [memory.cpp:608]{pid} aclrtMemcpyImpl:synchronized memcpy failed, kind = 1, runtime result = 507013",
                ]
                write(os.path.join(logdir, "debug", "plog", f"plog-{pid}_{stamp}.log"), dbg)


def seed():
    base = os.path.join(ROOT, "seed-nproc-sdma")
    shutil.rmtree(base, ignore_errors=True)
    seed_node(base, "npu-a01", 0, "10.0.0.11", list(range(51302, 51310)), list(range(60120, 60128)))
    seed_node(base, "npu-a02", 1, "10.0.0.12", list(range(48811, 48819)), list(range(57302, 57310)))


def seed_good_node(base, host, node_rank, ip, first_pid, day="2025-06-03"):
    """The seed job the day before, when it worked: the same two 16-device nodes, torchrun started
    with --nproc_per_node 16 (one process per device), 200 steps, every worker done."""
    d = os.path.join(base, host)
    write(os.path.join(d, "npu-smi-info.txt"), ["$ npu-smi info"] + npu_smi_16())
    agent = first_pid - 40
    train = seed_launch(node_rank, 16, f"I0603 09:02:0{node_rank}.118000", agent)
    pids = list(range(first_pid, first_pid + 16))
    for lr, pid in enumerate(pids):
        train.append(f"rank {node_rank * 16 + lr} (local {lr}) pid {pid}: using npu:{lr} of 16 visible devices")
    for step in range(20, 201, 20):
        train.append(f"[rank{node_rank * 16}]: step {step}/200 loss {3.2 - step / 100:.3f} lr 2.0e-05 {1.41 + step % 7 / 100:.2f} s/step")
    train += [
        f"[rank{node_rank * 16}]: training done: 200 steps, checkpoint saved to /ckpt/llama/step-200",
        f"I0603 09:{40 + node_rank:02d}:12.004000 {agent} torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish.",
        f"I0603 09:{40 + node_rank:02d}:12.009000 {agent} torch/distributed/elastic/agent/server/api.py:932] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish",
        f"I0603 09:{40 + node_rank:02d}:14.230000 {agent} torch/distributed/elastic/agent/server/api.py:946] Done waiting for other agents. Elapsed: 2.2171854972839355 seconds",
    ]
    write(os.path.join(d, "train.log"), train)
    logdir = os.path.join(d, "ascend", "log")
    for lr, pid in enumerate(pids):
        stamp = f"{day.replace('-', '')}0902{5 + lr:02d}{123 + lr:03d}"
        run = seed_plog_run(pid, day, 9, 2, lr, node_rank * 16 + lr, 32, node_rank, ip)
        write(os.path.join(logdir, "run", "plog", f"plog-{pid}_{stamp}.log"), run)


def seed_good(base):
    """Writes the seed job's last good run (--nproc_per_node 16) under `base`: the GOOD side of
    `dtriage diff` against samples/seed-nproc-sdma. Not a sample of its own."""
    shutil.rmtree(base, ignore_errors=True)
    seed_good_node(base, "npu-a01", 0, "10.0.0.11", 41210)
    seed_good_node(base, "npu-a02", 1, "10.0.0.12", 39870)


def nvidia_smi_l(n):
    return [f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i:08x}-5f3c-4b2e-9d1a-{0x7a10c3e5b2f0 + i:012x})" for i in range(n)]


def gpu_oom():
    """Two 8-GPU nodes; global rank 10 (gpu-b02, local rank 2) runs out of memory at step 4120. Its
    peers on gpu-b02 see the closed connection; every other rank times out in the next all-reduce
    ten minutes later and is aborted (exit -6). gpu-b01's torchrun table names its own rank 3 as
    "root cause": a victim."""
    base = os.path.join(ROOT, "gpu-oom-2node")
    shutil.rmtree(base, ignore_errors=True)
    for node_rank, host in enumerate(["gpu-b01", "gpu-b02"]):
        d = os.path.join(base, host)
        write(os.path.join(d, "nvidia-smi-L.txt"), nvidia_smi_l(8))
        agent = 7100 + node_rank
        pids = [7200 + node_rank * 100 + i for i in range(8)]
        lines = [
            f"+ torchrun --nnodes=2 --nproc_per_node=8 --node_rank={node_rank} --rdzv_backend=c10d --rdzv_endpoint=gpu-b01:29400 pretrain.py",
            "NCCL version 2.21.5+cuda12.4" if node_rank == 0 else "",
        ]
        for lr, pid in enumerate(pids):
            rank = node_rank * 8 + lr
            lines.append(f"{host}:{pid}:{pid + 40} [{lr}] NCCL INFO comm 0x55d0c{lr}a0 rank {rank} nranks 16 cudaDev {lr} nvmlDev {lr} busId {0x18 + lr * 0x10:x}000 commId 0x9f2e4c1a7b3d5e60 - Init COMPLETE")
        lines.append("[default0]:step 4100 loss 2.184 lr 2.9e-04 tokens/s 412330")
        if host == "gpu-b02":
            lines += [
                "[rank10]: Traceback (most recent call last):",
                "[rank10]:   File \"/work/pretrain.py\", line 311, in <module>",
                "[rank10]:     loss.backward()",
                "[rank10]:   File \"/usr/lib/python3/dist-packages/torch/_tensor.py\", line 581, in backward",
                "[rank10]:     torch.autograd.backward(",
                "[rank10]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 2 has a total capacity of 79.11 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.08 GiB memory in use.",
            ]
            for lr in (0, 1, 3):
                lines.append(f"{host}:{pids[lr]}:{pids[lr] + 77} [{lr}] NCCL INFO [Service thread] Connection closed by localRank 2")
            lines.append(f"[2025-11-04 10:07:31] {host}:{pids[0]}:{pids[0] + 77} [0] NCCL WARN socketProgress: Connection closed by remote peer {host}<51159>")
        for lr in range(8):
            rank = node_rank * 8 + lr
            if rank == 10:
                continue
            lines.append(f"[rank{rank}]:[E1104 10:17:{31 + lr:02d}.{lr}12000000 ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=41233, OpType=ALLREDUCE, NumelIn=65536000, NumelOut=65536000, Timeout(ms)=600000) ran for {600037 + lr * 11} milliseconds before timing out.")
        victim = 3 if node_rank == 0 else 2
        for lr, pid in enumerate(pids):
            if lr != victim:
                lines.append(f"W1104 10:17:4{lr}.100000 {agent} torch/distributed/elastic/multiprocessing/api.py:897] Sending process {pid} closing signal SIGTERM")
        exitcode = -6 if node_rank == 0 else 1
        lines += [
            f"E1104 10:17:45.300000 {agent} torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: {exitcode}) local_rank: {victim} (pid: {pids[victim]}) of binary: /usr/bin/python3",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "============================================================",
            "pretrain.py FAILED",
            "------------------------------------------------------------",
            "Failures:",
            "  <NO_OTHER_FAILURES>",
            "------------------------------------------------------------",
            "Root Cause (first observed failure):",
            "[0]:",
            f"  time      : 2025-11-04_10:17:4{node_rank + 3}",
            f"  host      : {host}.cluster.internal",
            f"  rank      : {node_rank * 8 + victim} (local_rank: {victim})",
            f"  exitcode  : {exitcode} (pid: {pids[victim]})",
            "  error_file: <N/A>",
            f"  traceback : {'Signal 6 (SIGABRT) received by PID %d' % pids[victim] if exitcode < 0 else 'To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html'}",
            "============================================================",
        ]
        write(os.path.join(d, "console.log"), [l for l in lines if l != ""])


def healthy():
    """A short two-node run that finished: no failure, and one warning (unequal nproc_per_node)."""
    base = os.path.join(ROOT, "healthy-2node")
    shutil.rmtree(base, ignore_errors=True)
    for node_rank, (host, nproc) in enumerate([("gpu-c01", 8), ("gpu-c02", 4)]):
        d = os.path.join(base, host)
        write(os.path.join(d, "nvidia-smi-L.txt"), nvidia_smi_l(8))
        lines = [f"+ torchrun --nnodes=2 --nproc_per_node={nproc} --node_rank={node_rank} --master_addr=gpu-c01 --master_port=29500 finetune.py"]
        for lr in range(nproc):
            lines.append(f"{host}:{9000 + lr}:{9000 + lr} [{lr}] NCCL INFO comm 0x5561{lr}0 rank {node_rank * 8 + lr} nranks 12 cudaDev {lr} busId {0x18 + lr * 0x10:x}000 - Init COMPLETE")
        lines += [f"[default0]:epoch {e} step {e * 500} loss {2.1 - e * 0.3:.2f}" for e in range(1, 4)]
        lines.append("[default0]:training finished, checkpoint saved to ckpt/final")
        write(os.path.join(d, "console.log"), lines)


def port_in_use():
    """Master node's store port is held by a leftover job; the other node times out connecting.
    Shipped as one .tar.gz per node inside a directory, as collected from a cluster."""
    import io
    import tarfile
    base = os.path.join(ROOT, "port-in-use-archives")
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    logs = {
        "gpu-d01": [
            "+ torchrun --nnodes=2 --nproc_per_node=8 --node_rank=0 --master_addr=10.20.0.5 --master_port=29500 train.py",
            "[W1104 09:00:02.311042100 socket.cpp:697] [c10d] The server socket has failed to listen on [::]:29500 (errno: 98 - Address already in use).",
            "[W1104 09:00:02.311290530 socket.cpp:697] [c10d] The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).",
            "[E1104 09:00:02.311401200 socket.cpp:735] [c10d] The server socket has failed to listen on any local network address.",
            "Traceback (most recent call last):",
            "  File \"/usr/local/bin/torchrun\", line 8, in <module>",
            "    sys.exit(main())",
            "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).",
        ],
        "gpu-d02": [
            "+ torchrun --nnodes=2 --nproc_per_node=8 --node_rank=1 --master_addr=10.20.0.5 --master_port=29500 train.py",
            "[E1104 09:01:02.902111000 socket.cpp:1011] [c10d] The client socket has timed out after 60s while trying to connect to (10.20.0.5, 29500).",
            "torch.distributed.DistStoreError: The client socket has timed out after 60s while trying to connect to (10.20.0.5, 29500).",
        ],
    }
    for host, lines in logs.items():
        data = ("\n".join(lines) + "\n").encode()
        import gzip
        with open(os.path.join(base, host + ".tar.gz"), "wb") as raw, \
                gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz, \
                tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT) as tar:
            info = tarfile.TarInfo("logs/console.log")
            info.size = len(data)
            info.mtime = 1762246800
            tar.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == "--seed-good":
        seed_good(sys.argv[2])
        sys.exit(0)
    seed()
    gpu_oom()
    healthy()
    port_in_use()
