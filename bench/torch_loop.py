"""A PyTorch loop of tiny GPU operations, launch-bound like bench/launch_loop:
N in-place adds on a small tensor, synchronized at the end. Prints the time
per operation in the same form as launch_loop, for scripts/bench.sh."""
import sys
import time

import torch


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40000
    if not torch.cuda.is_available():
        print("torch_loop: no CUDA device", file=sys.stderr)
        return 77
    x = torch.zeros(256, device="cuda")
    for _ in range(200):  # warm-up: library loading and the first launches are not timed
        x.add_(1.0)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        x.add_(1.0)
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    expected = 200 + n
    if int(x[0].item()) != expected:
        print(f"torch_loop: wrong result {x[0].item()} != {expected}", file=sys.stderr)
        return 1
    print(f"torch_loop: {n} ops, {(t1 - t0) * 1e6 / n:.3f} us per launch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
