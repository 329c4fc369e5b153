#!/usr/bin/env bash
# The PyTorch views on an unmodified, NVTX-free training loop
# (pytorch_train.py), with CUDA's occupancy calculator for comparison
# (samples/occupancy_kernels):
#   - fp32 with TF32 off, --pytorch ops: operators, steps, breakdown, no Tensor Cores;
#   - half, --pytorch shapes --python-backtrace: Tensor Cores, shapes, Python lines;
#   - torch.compile, --pytorch ops: operators and steps of a compiled model;
#   - the occupancy sample: theoretical occupancy against cudaOccupancyMaxActiveBlocksPerMultiprocessor.
# The checks (check_pytorch_views.py) read the CSV tables and the JSON timeline
# themselves, never the reports' own sums.
#   pytorch_views.sh CUPTITRACE OCCUPANCY_SAMPLE OUTDIR
# Exits 77 without a GPU or without torch.
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 CUPTITRACE OCCUPANCY_SAMPLE OUTDIR" >&2
  exit 2
fi
cli=$1 occ=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "pytorch_views: no GPU here: skipped"
  exit 77
fi
if ! python3 -c "import torch" 2>/dev/null; then
  echo "pytorch_views: no torch here: skipped"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
failed=0
run() {  # run NAME cuptitrace-options... -- program...
  local name=$1
  shift
  if ! "$cli" --overwrite --format native,json,csv -o "$out/$name" "$@" >"$out/$name.out" 2>"$out/$name.err"; then
    echo "FAIL $name: exit $? (stderr in $out/$name.err)"
    tail -5 "$out/$name.err"
    failed=1
  fi
}
train=$here/pytorch_train.py
run fp32 --pytorch ops -- python3 "$train" --steps 8 --mode fp32
run half --pytorch shapes --python-backtrace -- python3 "$train" --steps 8 --mode half
run compile --pytorch ops -- python3 "$train" --steps 6 --mode compile
run occupancy -- "$occ"
python3 "$here/check_pytorch_views.py" "$cli" "$out" || failed=1
[ $failed -eq 0 ] && echo "pytorch_views: ok" || echo "pytorch_views: FAILED"
exit $failed
