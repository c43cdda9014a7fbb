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


def seed_node(base, host, node_rank, ip, pids_a, pids_b, day="2025-06-04"):
    """One 16-device node where torchrun starts 8 workers; device 0's worker dies with an SDMA
    error, torchrun restarts the group (max_restarts 1) and the new device-0 worker dies the same way."""
    d = os.path.join(base, host)
    write(os.path.join(d, "npu-smi-info.txt"), ["$ npu-smi info"] + npu_smi_16())
    tp = 10 + node_rank  # node clocks differ by a second
    train = [
        f"+ torchrun --nproc_per_node 8 --nnodes 2 --node_rank {node_rank} --master_addr 192.168.1.1 --master_port 29500 --max_restarts 1 train.py --config cfg/llama_16p.yaml",
        f"I0604 10:11:0{node_rank}.123000 {pids_a[0] - 40} torch/distributed/launcher/api.py:188] Starting elastic_operator with launch configs:",
        "  entrypoint       : train.py",
        "  min_nodes        : 2",
        "  max_nodes        : 2",
        "  nproc_per_node   : 8",
        "  run_id           : none",
        "  rdzv_backend     : static",
        "  rdzv_endpoint    : 192.168.1.1:29500",
        "  rdzv_configs     : {'rank': %d, 'timeout': 900}" % node_rank,
        "  max_restarts     : 1",
        "  monitor_interval : 0.1",
        "",
    ]
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
            run = [
                f"[EVENT] TDT({pid},python3):{plog_ts(day, 10, tp + t0, 5, 130 + lr, 201)} [log.cpp:43][TsdClient] deviceId[{lr}] begin to init hdc client,[process_mode_manager.cpp:315:InitTsdClient]{pid}",
                f"[INFO] HCCL({pid},python3):{plog_ts(day, 10, tp + t0, 9, 614, 147)} [topoinfo_detect.cc:221][{pid + 7}][HCCL_TRACE]SetupAgent rankNum[16], rank[{node_rank * 8 + lr}], rootInfo identifier[hccl_world_group], server[{ip}%enp189s0f0], logicDevId[{lr}], phydevId[{lr}], deviceIp[124.0.{node_rank}.{20 + lr}]",
            ]
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


if __name__ == "__main__":
    seed()
