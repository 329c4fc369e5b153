#!/usr/bin/env bash
# The Chrome JSON that `cuptitrace convert --to json` and `cuptitrace merge`
# write, checked against what the readers of the PyTorch profiler's trace take
# (kineto_conformance.py): a synthetic two-rank job with its steps named
# (rank_bench --with-steps), each rank alone and both merged, and a real
# PyTorch trace with its steps named (docs/examples/train.native).
#   kineto_conformance.sh CUPTITRACE RANK_BENCH SOURCE_DIR WORK_DIR
set -euo pipefail
cli=$1 bench=$2 src=$3 work=$4
check="python3 $src/tests/integration/kineto_conformance.py"
rm -rf "$work"
mkdir -p "$work"
"$bench" --ranks 2 --steps 6 --kernels 4 --with-steps --generate-only --dir "$work/ranks" >/dev/null
for r in 0 1; do
  "$cli" convert "$work/ranks/t.$r.native" --to json -o "$work/rank$r" >/dev/null
  $check "$work/rank$r.json" --rank "$r" --steps
done
"$cli" merge "$work/ranks/t.0.native" "$work/ranks/t.1.native" -o "$work/merged.json" >/dev/null
$check "$work/merged.json" --no-rank --steps
"$cli" convert "$src/docs/examples/train.native" --to json -o "$work/train" >/dev/null
$check "$work/train.json" --steps
