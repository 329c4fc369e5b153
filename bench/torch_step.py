"""Training steps of real models, for scripts/bench.sh, in one process (its
start, a few seconds of Python and CUDA, is paid once for both):
1. ResNet-18 (batch 32, 64x64 images, SGD, cross-entropy), eager;
2. a step under torch.compile(mode="reduce-overhead") (CUDA graphs), of the
   --compile-model: mlp (default: six 1024-wide layers, batch 256, compiles in
   seconds) or resnet18 (the same step as 1; compiling it takes much longer).
--profiler DIR runs each timed loop under torch.profiler (CPU and CUDA), the
peer the tracer is compared with. torchvision's ResNet-18 when it is
installed, else the same network built here from torch.nn. Prints the time
per step of each, in the form bench.sh reads: the median over blocks of
--block steps (each block timed to a synchronize), so that a pause of the
machine's or Python's in one block does not move the figure; the garbage
collector is off while timing.

  torch_step: resnet18 30 steps, 12345.678 us per step
  torch_step: mlp compiled 30 steps, 234.567 us per step

--alternate PAIRS compares collection on and off inside one process, where
the machine's speed from one process to the next (which moves a step by up to
30% on a shared host) cancels out: PAIRS pairs of blocks, one block with
collection on (torch.cuda.profiler.start(), that is cudaProfilerStart) and one
with it off (stop), in the order on-off, off-on, on-off, ... so that a drift
within the process weighs on both alike. A tracer that opens its windows on
those calls (CUPTITRACE_CAPTURE=profiler, bench/floor_consumer with
FLOOR_CAPTURE=profiler) records in the "on" blocks only; untraced, both states
are the same, which shows how steady the comparison is. Prints the median of
the per-pair ratios, and the medians of each state:

  torch_step: resnet18 alternate 20 pairs of 5 steps, on 6400.000 us, off 6100.000 us per step, on/off 1.0492

  python3 bench/torch_step.py [--steps N] [--warmup N] [--block N]
                              [--compile-model mlp|resnet18|none] [--profiler DIR]
                              [--alternate PAIRS]"""
import argparse
import gc
import statistics
import sys
import time

import torch
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + (x if self.down is None else self.down(x)))


def plain_resnet18(classes: int) -> nn.Module:
    """ResNet-18 as torchvision builds it: a 7x7 stem, four stages of two basic blocks."""
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, classes)]
    return nn.Sequential(*layers)


def resnet18(classes: int) -> nn.Module:
    try:
        import torchvision
        return torchvision.models.resnet18(num_classes=classes)
    except ImportError:
        return plain_resnet18(classes)


def make_model(kind: str):
    classes = 10
    if kind == "resnet18":
        model = resnet18(classes).cuda()
        x = torch.randn(32, 3, 64, 64, device="cuda")
    else:
        layers = [m for _ in range(6) for m in (nn.Linear(1024, 1024), nn.ReLU())]
        model = nn.Sequential(*layers, nn.Linear(1024, classes)).cuda()
        x = torch.randn(256, 1024, device="cuda")
    y = torch.randint(0, classes, (x.shape[0],), device="cuda")
    return model, x, y


def build_step(kind: str, compiled: bool):
    """A training step of the model `kind` (its loss), eager or compiled."""
    model, x, y = make_model(kind)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    forward = torch.compile(model, mode="reduce-overhead") if compiled else model

    def step() -> torch.Tensor:
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(forward(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def timed_block(step, block: int):
    """Seconds per step over `block` steps, ended by a synchronize; and the last loss."""
    t0 = time.perf_counter()
    for _ in range(block):
        loss = step()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / block, loss


def check_loss(loss: torch.Tensor) -> None:
    if not torch.isfinite(loss).item():
        raise RuntimeError(f"the loss is not finite: {loss.item()}")


def time_steps(kind: str, compiled: bool, steps: int, warmup: int, block: int, profile_dir: str) -> float:
    """Microseconds per training step, after `warmup` steps that are not timed:
    the median over blocks of `block` steps."""
    step = build_step(kind, compiled)
    # cuDNN's choices, compilation and CUDA graph capture are not timed.
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    profiler = None
    if profile_dir:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        profiler = torch.profiler.profile(activities=acts)
        profiler.__enter__()
    block = max(1, min(block, steps))
    blocks = []
    gc.disable()
    try:
        for _ in range(max(1, steps // block)):
            seconds, loss = timed_block(step, block)
            blocks.append(seconds)
    finally:
        gc.enable()
    if profiler is not None:
        profiler.__exit__(None, None, None)
        suffix = "_compiled" if compiled else ""
        profiler.export_chrome_trace(f"{profile_dir}/torch_step_{kind}{suffix}.json")
    check_loss(loss)
    return statistics.median(blocks) * 1e6


def alternate_steps(kind: str, compiled: bool, pairs: int, warmup: int, block: int):
    """Blocks with collection on and off, alternating (see --alternate): the
    median per-pair ratio on/off, and the median step of each state, in us.
    Collection is off outside the "on" blocks; one pair before the timed ones
    lets the first window's set-up (CUPTI's buffers) pass untimed."""
    step = build_step(kind, compiled)
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()

    def run(on: bool):
        if on:
            torch.cuda.profiler.start()
        seconds, loss = timed_block(step, block)
        if on:
            torch.cuda.profiler.stop()
        return seconds, loss

    run(True)
    run(False)
    on_blocks, off_blocks, ratios = [], [], []
    gc.disable()
    try:
        for i in range(pairs):
            first_on = i % 2 == 0
            a, _ = run(first_on)
            b, loss = run(not first_on)
            on, off = (a, b) if first_on else (b, a)
            on_blocks.append(on)
            off_blocks.append(off)
            ratios.append(on / off)
    finally:
        gc.enable()
    check_loss(loss)
    return statistics.median(ratios), statistics.median(on_blocks) * 1e6, statistics.median(off_blocks) * 1e6


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--block", type=int, default=5)
    p.add_argument("--compile-model", choices=("mlp", "resnet18", "none"), default="mlp")
    p.add_argument("--profiler", metavar="DIR", default="")
    p.add_argument("--alternate", metavar="PAIRS", type=int, default=0)
    a = p.parse_args()
    if not torch.cuda.is_available():
        print("torch_step: no CUDA device", file=sys.stderr)
        return 77
    torch.manual_seed(0)
    runs = [("resnet18", False)]
    if a.compile_model != "none":
        runs.append((a.compile_model, True))
    for kind, compiled in runs:
        name = kind + (" compiled" if compiled else "")
        try:
            if a.alternate > 0:
                ratio, on, off = alternate_steps(kind, compiled, a.alternate, a.warmup, a.block)
                print(f"torch_step: {name} alternate {a.alternate} pairs of {a.block} steps, on {on:.3f} us, "
                      f"off {off:.3f} us per step, on/off {ratio:.4f}", flush=True)
                continue
            us = time_steps(kind, compiled, a.steps, a.warmup, a.block, a.profiler)
        except RuntimeError as e:
            print(f"torch_step: {kind}: {e}", file=sys.stderr)
            return 1
        print(f"torch_step: {name} {a.steps} steps, {us:.3f} us per step", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
