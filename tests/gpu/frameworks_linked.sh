#!/usr/bin/env bash
# Real libraries under the default activities: every GPU activity launched from
# the host has an arrow from its launching call, whatever launched it: cuBLAS
# (a PyTorch matmul), cuDNN (a PyTorch convolution, forward and backward),
# Triton (a @triton.jit kernel, launched through the driver API), JAX (jit,
# XLA's launches and graphs). Each that is not installed is skipped and said.
#   frameworks_linked.sh LIBCUPTITRACE OUTDIR
# Prints one line per workload (count_unlinked.py's counts); exits 77 without
# a GPU or when no workload could run, 1 when one has unlinked work.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 LIBCUPTITRACE OUTDIR" >&2
  exit 2
fi
lib=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "frameworks_linked: no GPU here: skipped"
  exit 77
fi
mkdir -p "$out"

read -r -d '' cublas <<'PY'
import torch
a = torch.randn(512, 512, device="cuda")
for _ in range(5):
    a = torch.tanh(a @ a)
torch.cuda.synchronize()
PY
read -r -d '' cudnn <<'PY'
import torch
torch.backends.cudnn.enabled = True
conv = torch.nn.Conv2d(3, 16, 3, padding=1).cuda()
x = torch.randn(8, 3, 32, 32, device="cuda", requires_grad=True)
for _ in range(3):
    conv(x).sum().backward()
torch.cuda.synchronize()
assert torch.backends.cudnn.is_available()
PY
read -r -d '' triton <<'PY'
import torch, triton, triton.language as tl
@triton.jit
def add(x, y, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + i, tl.load(x + i, mask=i < n) + tl.load(y + i, mask=i < n), mask=i < n)
x = torch.randn(4096, device="cuda"); y = torch.randn_like(x); out = torch.empty_like(x)
for _ in range(5):
    add[(4,)](x, y, out, x.numel(), BLOCK=1024)
torch.cuda.synchronize()
assert torch.allclose(out, x + y)
PY
read -r -d '' jax <<'PY'
import jax, jax.numpy as jnp
f = jax.jit(lambda a: jnp.tanh(a @ a).sum())
a = jnp.ones((256, 256))
for _ in range(5):
    r = f(a)
r.block_until_ready()
assert jax.devices()[0].platform == "gpu"
PY

declare -A needs=([cublas]=torch [cudnn]=torch [triton]="torch triton" [jax]=jax)
status=0 ran=0
for name in cublas cudnn triton jax; do
  missing=
  for m in ${needs[$name]}; do python3 -c "import $m" 2>/dev/null || missing="$missing $m"; done
  if [ -n "$missing" ]; then echo "skip $name: python3 lacks$missing"; continue; fi
  rm -f "$out/$name".*
  # A file, not python3 -c: Triton reads a @jit function's source from its file.
  printf '%s\n' "${!name}" >"$out/workload_$name.py"
  env CUDA_INJECTION64_PATH="$lib" CUPTITRACE_FORMAT=json CUPTITRACE_SUMMARY=none CUPTITRACE_QUIET=1 \
      CUPTITRACE_OUTPUT="$out/$name" XLA_PYTHON_CLIENT_PREALLOCATE=false \
      python3 "$out/workload_$name.py" >"$out/$name.out" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: the program exited $rc under the tracer:"; tail -5 "$out/$name.out"; status=1; continue
  fi
  ran=$((ran + 1))
  if line=$(python3 "$here/count_unlinked.py" "$out/$name.json"); then
    echo "ok   $name: $line"
  else
    echo "FAIL $name: $line"; status=1
  fi
done
[ $ran -gt 0 ] || { [ $status -eq 0 ] && { echo "frameworks_linked: no workload could run: skipped"; exit 77; }; }
exit $status
