"""A small data-parallel training for tests/gpu/ddp.sh: DDP over NCCL, one
process per GPU (torchrun --nproc_per_node=2), a small MLP, an NVTX range per
step. Its parameters (about 260 KB) fit DDP's first gradient bucket (capped
at 1 MiB, whatever bucket_cap_mb says), so each step makes exactly one NCCL
all-reduce; DDP's start adds a broadcast and an all-gather of its own. With --late-rank R, rank R sleeps --late-ms before each step's
forward pass: it reaches the all-reduce last, the straggler the reports must name.

Prints, from rank 0, a last line the test reads:
  EXPECT steps=10 allreduce_per_step=1 late_rank=1 world_size=2
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--late-rank", type=int, default=-1)
    parser.add_argument("--late-ms", type=float, default=20.0)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 128)).cuda()
    # 65,920 parameters, 263,680 bytes of gradients: one bucket, one all-reduce per step.
    ddp = DDP(model, device_ids=[local_rank])
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x = torch.randn(4096, 128, device="cuda")

    for step in range(args.steps):
        torch.cuda.nvtx.range_push(f"step {step}")
        if rank == args.late_rank:
            time.sleep(args.late_ms / 1000.0)
        loss = ddp(x).square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    if rank == 0:
        print(f"ddp: rank 0 of {world} done, loss {loss.item():.6f}")
        print(f"EXPECT steps={args.steps} allreduce_per_step=1 late_rank={args.late_rank} world_size={world}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
