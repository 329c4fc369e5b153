"""A PyTorch program that ends the way argv[1] says, as real jobs end.

It launches 20 elementwise kernels (x.add_), waits for them and prints READY;
then:
  return     falls off the end                        -> 0
  exit       sys.exit(3)                              -> 3
  exception  an uncaught exception: a traceback       -> 1
  os_exit    os._exit(4): no exit handler runs        -> 4
  sleep      time.sleep until a signal from outside   -> SIGINT: KeyboardInterrupt, killed by SIGINT
  loop       launches without end, printing           -> the same; `launched=N` after each sync
  queue      blocks in queue.Queue().get(); Ctrl-C must interrupt it: its
             KeyboardInterrupt handler prints and exits 9 -> 9
  subprocess subprocess.check_output(["echo", "hello"], stderr=STDOUT) with
             three made-up folders in front of PATH; prints what came back,
             as `OUTPUT repr`                             -> 0
  execvp     os.execvp("echo", ...) along the same PATH   -> echo's 0
"""
import os
import queue
import subprocess
import sys
import time

import torch

KERNELS = 20


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "return"
    rank = os.environ.get("RANK", "")
    x = torch.zeros(1 << 16, device="cuda")
    for _ in range(KERNELS):
        x.add_(1)
    torch.cuda.synchronize()
    print(f"EXPECT add_kernels={KERNELS} mode={mode}", flush=True)
    print(f"READY {rank}".strip(), flush=True)
    if mode == "return":
        return
    if mode == "exit":
        sys.exit(3)
    if mode == "exception":
        raise RuntimeError("an exception nobody catches")
    if mode == "os_exit":
        os._exit(4)
    if mode == "sleep":
        time.sleep(120)
        sys.exit(1)
    if mode == "loop":
        launched = KERNELS
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            for _ in range(100):
                x.add_(1)
            launched += 100
            torch.cuda.synchronize()
            print(f"launched={launched} rank={rank or 0}", flush=True)
        sys.exit(1)
    if mode in ("subprocess", "execvp"):
        misses = ["/nonexistent/one", "/nonexistent/two", "/nonexistent/three"]
        os.environ["PATH"] = os.pathsep.join(misses + [os.environ.get("PATH", "/usr/bin:/bin")])
        if mode == "subprocess":
            out = subprocess.check_output(["echo", "hello"], stderr=subprocess.STDOUT)
            print(f"OUTPUT {out!r}", flush=True)
            return
        sys.stdout.flush()
        os.execvp("echo", ["echo", "exec'd"])
    if mode == "queue":
        try:
            queue.Queue().get()
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(9)
    print(f"unknown mode {mode}", file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
