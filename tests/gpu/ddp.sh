#!/usr/bin/env bash
# A two-rank DDP training (tests/gpu/ddp.py: NCCL all-reduce, 10 steps, an NVTX
# range per step, rank 1 made late by 20 ms a step) run under the cuptitrace
# command with torchrun, one trace per rank named by %r; the traces merged
# into one timeline and summarized across ranks; check_ranks.py checks the
# ranks' order and names, 10 AllReduce kernels per rank, and that the
# findings name rank 1 the straggler. torchrun's own trace (no GPU work) must
# be left out, and said so.
#   ddp.sh CUPTITRACE_CLI OUTDIR
# Exits 77 with fewer than two GPUs or without PyTorch's NCCL; 1 when a check failed.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 CUPTITRACE_CLI OUTDIR" >&2
  exit 2
fi
cli=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "${gpus:-0}" -lt 2 ]; then
  echo "ddp: ${gpus:-0} GPU(s) here, two needed: skipped"
  exit 77
fi
if ! python3 -c 'import torch, torch.distributed as d; assert torch.cuda.device_count() >= 2 and d.is_nccl_available()' 2>/dev/null; then
  echo "ddp: no PyTorch with NCCL and two GPUs: skipped"
  exit 77
fi
mkdir -p "$out" && rm -f "$out"/t.* "$out"/all.* "$out"/stats.* "$out"/sums.*
export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off on these hosts
fail() { echo "FAIL ddp: $*"; exit 1; }

"$cli" -o "$out/t.%r" --format native,json,sqlite -- \
    torchrun --standalone --nproc_per_node=2 "$here/ddp.py" --steps 10 --late-rank 1 --late-ms 20 \
    >"$out/run.out" 2>"$out/run.err" || { cat "$out/run.out" "$out/run.err"; fail "the traced training failed"; }
expect=$(grep '^EXPECT ' "$out/run.out" | tail -1 | cut -d' ' -f2-)
[ -n "$expect" ] || { cat "$out/run.out"; fail "no EXPECT line from ddp.py"; }
echo "ddp: EXPECT $expect"
ls -l "$out"
[ -s "$out/t.0.native" ] && [ -s "$out/t.1.native" ] || fail "no t.0.native and t.1.native"
ls "$out"/t.pid*.native >/dev/null 2>&1 || echo "ddp: note: no trace of torchrun itself (it made no CUDA call)"

"$cli" merge "$out/t.*.native" -o "$out/all.json" 2>"$out/merge.err" || { cat "$out/merge.err"; fail "merge"; }
cat "$out/merge.err"
"$cli" merge "$out"/t.*.native -o "$out/all.pftrace" 2>/dev/null || fail "merge to pftrace"
"$cli" stats "$out"/t.*.native --format json >"$out/stats.json" 2>"$out/stats.err" || { cat "$out/stats.err"; fail "stats"; }
cat "$out/stats.err"
"$cli" stats "$out"/t.*.native | tee "$out/stats.txt"
if ls "$out"/t.pid*.native >/dev/null 2>&1; then
  grep -q "left out" "$out/merge.err" || fail "merge did not say it left torchrun's trace out"
  grep -q "skipped" "$out/stats.err" || fail "stats did not say it skipped torchrun's trace"
fi
# shellcheck disable=SC2086
python3 "$here/check_ranks.py" "$out/all.json" "$out/stats.json" $expect min_nvtx_steps=10 || fail "check_ranks"

# One rank's own findings know NCCL: rank 0, waiting in AllReduce for the late
# rank, spends its kernel time in communication, which is never called a busy
# stream; the steps (NVTX 'step N') are found by themselves.
"$cli" stats "$out/t.0.native" --report findings,breakdown >"$out/rank0.txt" 2>&1 || fail "stats of rank 0"
grep -E "Communication takes [0-9.]+% of GPU" "$out/rank0.txt" || { cat "$out/rank0.txt"; fail "rank 0's findings do not speak of communication"; }
# A busy-stream finding may speak of the compute streams only.
if grep -q "One stream busy" "$out/rank0.txt" && ! grep -q "NCCL's kernels ([0-9]*) are left out" "$out/rank0.txt"; then
  cat "$out/rank0.txt"; fail "rank 0's busy-stream finding counts NCCL's kernels"
fi
grep -q "Steps: NVTX ranges named like 'step N'" "$out/rank0.txt" || { cat "$out/rank0.txt"; fail "rank 0's steps not found by themselves"; }
echo "ddp: rank 0's findings speak of communication, not of a busy stream; its steps are found"

# The job's SQLite databases, each read into its rank's summary (`cuptitrace
# summarize`: the map of `cuptitrace recipe`) and the summaries reduced
# (`stats --summaries`: its reduce), name the same straggler; where Python has
# Dask, the recipe itself runs over them, on a local cluster of two workers.
"$cli" summarize "$out/t.0.sqlite" "$out/t.1.sqlite" -o "$out/sums.ctrs" 2>"$out/sums.err" ||
  { cat "$out/sums.err"; fail "summarize over the SQLite databases"; }
"$cli" stats --summaries "$out/sums.ctrs" >"$out/sums.txt" 2>&1 || { cat "$out/sums.txt"; fail "stats --summaries"; }
grep -E "rank 1 is the straggler" "$out/sums.txt" || { cat "$out/sums.txt"; fail "the SQLite summaries do not name rank 1"; }
if "$cli" recipe rank_summary "$out/t.*.sqlite" --workers 2 >"$out/recipe.txt" 2>&1; then
  grep -E "rank 1 is the straggler" "$out/recipe.txt" || { cat "$out/recipe.txt"; fail "the recipe does not name rank 1"; }
else
  echo "ddp: the recipe did not run here (no Python with Dask?):"; tail -3 "$out/recipe.txt"
fi
echo "ddp: the SQLite summaries name rank 1 the straggler"
