"""A small PyTorch training loop, the program the guide's examples trace.

Five steps of a small CNN on random images, each step marked with an NVTX
range `step N` (as many training loops do), on the first GPU.

    cuptitrace -o train -- python3 docs/examples/train.py
"""
import torch
from torch import nn


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(32, 10),
    ).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    images = torch.randn(64, 3, 32, 32)
    labels = torch.randint(0, 10, (64,))
    for step in range(5):
        torch.cuda.nvtx.range_push(f"step {step}")
        x, y = images.cuda(non_blocking=True), labels.cuda(non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
