#!/usr/bin/env bash
# The HTML report of a real PyTorch run: pytorch_train.py (half: Tensor
# Cores) traced with --pytorch shapes, GPU metrics and memory, the page
# written at exit (--format html) and by `cuptitrace report`; both rendered
# in headless Chromium by tests/html/browser_test.py, which checks every
# chart drawn, no JavaScript error, no request, the Operators, Kernels, GPU
# metrics and Memory tabs filled, and the embedded reports equal to stats'.
#   html_report.sh CUPTITRACE OUTDIR
# Exits 77 without a GPU, torch or Chromium.
set -u
cli=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "html_report: no GPU here: skipped"
  exit 77
fi
if ! python3 -c "import torch" 2>/dev/null; then
  echo "html_report: no torch here: skipped"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
if ! "$cli" --overwrite --pytorch shapes --activities default,memory,gpu_metrics \
    --format native,html -o "$out/train" -- python3 "$here/pytorch_train.py" --mode half --steps 6 \
    >"$out/train.out" 2>"$out/train.err"; then
  echo "FAIL: the traced run failed (stderr in $out/train.err)"
  tail -5 "$out/train.err"
  exit 1
fi
[ -s "$out/train.html" ] || { echo "FAIL: no train.html written at exit"; exit 1; }
python3 "$here/../html/browser_test.py" --cli "$cli" --trace "$out/train.native" --at-exit "$out/train.html" \
  --full operators,kernels,gpu_metrics,memory --work "$out/pages"
