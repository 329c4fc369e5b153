"""A small PyTorch training loop with no NVTX of its own, for the tests of
`cuptitrace --pytorch` and `--python-backtrace`: a CNN (conv2d, relu, max-pool,
linear), SGD and cross-entropy, over a synthetic Dataset read by a DataLoader
with 2 forked workers.

  python3 tests/gpu/pytorch_train.py [--steps N] [--mode fp32|half|compile] [--profiler]

--mode fp32     TF32 off (torch.backends.cuda.matmul.allow_tf32 and cudnn.allow_tf32)
--mode half     also a large fp16 matmul each step (cuBLAS on Tensor Cores)
--mode compile  the model under torch.compile
--profiler      steps 2 and 3 under the program's own torch.profiler.profile

Prints `steps N` and `ok` at the end. Exits 77 without a GPU."""
import argparse
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Images(Dataset):
    """Deterministic 3x32x32 images and their labels, made on the CPU."""

    def __init__(self, count: int, classes: int) -> None:
        self.count = count
        self.classes = classes

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int):
        generator = torch.Generator().manual_seed(index)
        image = torch.randn(3, 32, 32, generator=generator)
        return image, index % self.classes


class Net(nn.Module):
    def __init__(self, classes: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 16 * 16, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.conv(x)))
        return self.fc(torch.flatten(x, 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--mode", choices=("fp32", "half", "compile"), default="fp32")
    parser.add_argument("--profiler", action="store_true")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("pytorch_train: no CUDA device", file=sys.stderr)
        return 77

    classes, batch = 10, 16
    # Workers are forked before CUDA starts, as a real program's often are.
    loader = DataLoader(Images(args.steps * batch, classes), batch_size=batch,
                        num_workers=2, multiprocessing_context="fork")
    batches = iter(loader)
    first = next(batches)

    if args.mode == "fp32":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    device = torch.device("cuda")
    model = Net(classes).to(device)
    step_model = torch.compile(model) if args.mode == "compile" else model
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    if args.mode == "half":
        a = torch.randn(2048, 2048, device=device, dtype=torch.float16)
        b = torch.randn(2048, 2048, device=device, dtype=torch.float16)

    profiler = None
    steps = 0
    for step in range(args.steps):
        images, labels = first if step == 0 else next(batches)
        if args.profiler and step == 2:
            profiler = torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA])
            profiler.__enter__()
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(step_model(images), labels)
        loss.backward()
        optimizer.step()
        if args.mode == "half":
            c = a @ b
            c.sum().item()
        if profiler is not None and step == 3:
            torch.cuda.synchronize()
            profiler.__exit__(None, None, None)
            events = profiler.key_averages()
            print("profiler: %d operator kinds, %s" % (
                len(events), "aten::conv2d seen" if any(e.key == "aten::conv2d" for e in events)
                else "aten::conv2d missing"))
            profiler = None
        steps += 1
    torch.cuda.synchronize()
    print("loss %.4f" % loss.item())
    print("steps %d" % steps)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
