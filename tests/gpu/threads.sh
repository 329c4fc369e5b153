#!/usr/bin/env bash
# Many live threads: CUPTI 13 gives each thread that makes CUDA calls an
# activity buffer of its own. 256 threads x 10 launches lose nothing at the
# default settings; with a budget far too small, what is lost is counted:
# written + dropped = launched.
#   threads.sh SAMPLES_DIR LIBCUPTITRACE OUTDIR
set -u
samples=$1 lib=$2 out=$3
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "threads: no GPU here: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
counts() {  # counts TRACE.json: "kernels dropped dropped.cupti buffers_refused"
  python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['metadata']
c = m.get('counters', {})
print(m['records']['kernel'], m['dropped_records'], c.get('dropped.cupti', 0), c.get('cupti_buffers_refused', 0))" "$1" 2>/dev/null || echo "-1 -1 -1 -1"
}

# 1. 256 live threads x 10 launches, default settings: nothing dropped.
for threads in 128 256; do
  env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" CUPTITRACE_OUTPUT="$out/t$threads" \
    "$samples/multi_thread" "$threads" 10 >"$out/t$threads.out" 2>"$out/t$threads.err"
  rc=$?
  read -r kernels dropped cupti refused <<<"$(counts "$out/t$threads.json")"
  grep "^cuptitrace: wrote" "$out/t$threads.err" | sed 's/wrote .*(/(/' | cut -c1-200
  check "$threads threads x 10 launches: exit 0 ($rc)" [ "$rc" -eq 0 ]
  check "$threads threads x 10 launches: $kernels kernels of $((threads * 10))" [ "$kernels" -eq $((threads * 10)) ]
  check "$threads threads x 10 launches: dropped $dropped (CUPTI $cupti, buffers refused $refused)" [ "$dropped" -eq 0 ]
done

# 2. The loss accounting at work: a 1 MiB budget of 64 KiB buffers for 256
#    threads. Kernels only, so each launch is exactly one record.
env CUDA_INJECTION64_PATH="$lib" CUPTITRACE_OUTPUT="$out/tiny" CUPTITRACE_ACTIVITIES=kernel \
  CUPTITRACE_BUFFER_MEMORY=1M CUPTITRACE_BUFFER_SIZE=64K CUPTITRACE_BUFFER_POOL=1 \
  "$samples/multi_thread" 256 10 >"$out/tiny.out" 2>"$out/tiny.err"
rc=$?
read -r kernels dropped cupti refused <<<"$(counts "$out/tiny.json")"
grep "^cuptitrace: wrote" "$out/tiny.err" | sed 's/wrote .*(/(/' | cut -c1-200
check "tiny buffer budget: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "tiny buffer budget: buffers were refused ($refused)" [ "$refused" -gt 0 ]
check "tiny buffer budget: written $kernels + dropped $dropped = launched 2560" [ $((kernels + dropped)) -eq 2560 ]
check "tiny buffer budget: the summary line says dropped $dropped" grep -q "dropped $dropped" "$out/tiny.err"

echo "threads: $failures failed"
[ "$failures" -eq 0 ]
