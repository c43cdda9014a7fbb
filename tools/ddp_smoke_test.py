#!/usr/bin/env python3
"""The minimal DDP validation to run before a real multi-node job (`dtriage check` judges its output).

Run it with the launch you intend to use, e.g.
    torchrun --nnodes 2 --node_rank 0 --nproc_per_node 8 --master_addr HOST --master_port 29500 \
        tools/ddp_smoke_test.py > smoke-$(hostname).log 2>&1
Each rank initialises the process group (NCCL, HCCL or gloo), binds to the device LOCAL_RANK names,
all_reduces a tensor holding rank + 1, builds a DistributedSampler over a small dataset, and prints
one machine-readable line:
    DTRIAGE_SMOKE host=H rank=R local_rank=L world_size=W backend=B device=D [uuid=U] reduced=X
                  expected=Y dataset=N per_rank=M first_batch=I,J,.. checkpoint=P status=ok
(values with spaces are written with %20). `dtriage check smoke-*.log snapshots/` then checks that
every rank sits on its own (host, device), the sum is right everywhere, ranks start from different
samples and only one rank would write the checkpoint.

With gloo on a CPU-only machine, "device" is the slot the rank would bind (cpu:LOCAL_RANK).
The --force-device, --no-sampler and --all-save options inject the classic mistakes on purpose, to
see that the check catches them.
"""
import argparse
import datetime
import os
import socket
import sys


def enc(v):
    return str(v).replace("%", "%25").replace(" ", "%20").replace("\n", "%0A")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="auto", choices=["auto", "nccl", "hccl", "gloo"])
    ap.add_argument("--host", default=os.environ.get("DTRIAGE_SMOKE_HOST") or socket.gethostname(),
                    help="node name to print (default: this host's name)")
    ap.add_argument("--dataset", type=int, default=64, help="samples in the stand-in dataset")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--checkpoint", default="checkpoints/smoke.pt",
                    help="the path rank 0 would save to (nothing is written)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds for the process group to form")
    ap.add_argument("--force-device", action="append", default=[], metavar="RANK:DEV",
                    help="fault: bind RANK to device DEV instead of LOCAL_RANK's")
    ap.add_argument("--no-sampler", action="store_true", help="fault: every rank reads the whole dataset")
    ap.add_argument("--all-save", action="store_true", help="fault: every rank saves the checkpoint")
    args = ap.parse_args()

    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    fields = {"host": args.host.split(".")[0], "rank": rank, "local_rank": local_rank, "world_size": world}
    try:
        import torch
        import torch.distributed as dist

        backend = args.backend
        npu = False
        if backend in ("auto", "hccl"):
            try:
                import torch_npu  # noqa: F401
                npu = True
            except ImportError:
                if backend == "hccl":
                    raise
        if backend == "auto":
            backend = "hccl" if npu else ("nccl" if torch.cuda.is_available() else "gloo")
        fields["backend"] = backend

        dev = local_rank
        for item in args.force_device:
            r, d = item.split(":")
            if int(r) == rank:
                dev = int(d)
        if backend == "nccl":
            torch.cuda.set_device(dev)
            device = torch.device("cuda", dev)
            fields["device"] = "cuda:%d" % dev
            uuid = getattr(torch.cuda.get_device_properties(dev), "uuid", None)
            if uuid is not None:
                fields["uuid"] = "GPU-%s" % uuid
        elif backend == "hccl":
            torch.npu.set_device(dev)
            device = torch.device("npu", dev)
            fields["device"] = "npu:%d" % dev
        else:
            device = torch.device("cpu")
            fields["device"] = "cpu:%d" % dev

        dist.init_process_group(backend, timeout=datetime.timedelta(seconds=args.timeout))
        rank = dist.get_rank()
        world = dist.get_world_size()
        fields["rank"], fields["world_size"] = rank, world
        value = torch.tensor([rank + 1.0], device=device)
        dist.all_reduce(value)
        fields["reduced"] = value.item()
        fields["expected"] = world * (world + 1) / 2.0

        data = list(range(args.dataset))
        if args.no_sampler:
            indices = data
        else:
            from torch.utils.data.distributed import DistributedSampler
            indices = list(DistributedSampler(data, num_replicas=world, rank=rank, shuffle=False))
        fields["dataset"] = len(data)
        fields["per_rank"] = len(indices)
        fields["first_batch"] = ",".join(str(i) for i in indices[:args.batch])
        fields["checkpoint"] = args.checkpoint if (rank == 0 or args.all_save) else "-"
        fields["status"] = "ok"
        dist.barrier()
        dist.destroy_process_group()
    except Exception as e:  # the line is the report: say what failed, on this rank
        fields["status"] = "error"
        fields["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    # One write(2) for the whole line: ranks that share a stdout must not run their lines together.
    sys.stdout.flush()
    os.write(1, ("DTRIAGE_SMOKE " + " ".join("%s=%s" % (k, enc(v)) for k, v in fields.items()) + "\n").encode())
    return 0 if fields.get("status") == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
