#!/usr/bin/env bash
# Abnormal ends: for each way samples/abnormal_end can end, the traced run has
# the untraced run's exit status, and the trace it leaves is complete JSON with
# every kernel launched before the end.
#   abnormal_end.sh SAMPLE_BIN LIBCUPTITRACE OUTDIR
set -u
bin=$1 lib=$2 out=$3
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "abnormal_end: no GPU here: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
failures=0
# mode and the exit status bash reports for it (128 + signal number for a signal).
# "return" has no fixed status: the program races the CUDA runtime's teardown
# against its own launching thread. On the H100 with CUDA 13.0 it died with
# SIGSEGV (139) in some runs and exited 0 in others, traced or not; so the
# traced run may end either way, and must leave a readable trace.
for entry in term:143 int:130 handler:5 abort:134 segv:139 thread:4 return:any; do
  mode=${entry%%:*} want=${entry#*:}
  "$bin" "$mode" >"$out/$mode.untraced.out" 2>&1
  plain=$?
  env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" CUPTITRACE_OUTPUT="$out/$mode" \
    "$bin" "$mode" >"$out/$mode.out" 2>"$out/$mode.err"
  traced=$?
  result=$(python3 - "$out/$mode.json" "$mode" <<'PY'
import json, sys
path, mode = sys.argv[1], sys.argv[2]
try:
    trace = json.load(open(path))
except Exception as e:
    print(f"no readable trace ({e.__class__.__name__})"); sys.exit(1)
kernels = sum(1 for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel")
ok = kernels >= 20 if mode == "return" else kernels == 20
print(f"kernels={kernels}")
sys.exit(0 if ok else 1)
PY
)
  trace_ok=$?
  status="ok  "
  same=1
  if [ "$want" = any ]; then
    want=$plain
    [ "$traced" -eq "$plain" ] || [ "$traced" -eq 0 ] || [ "$traced" -eq 139 ] || same=0
  else
    [ "$traced" -eq "$plain" ] || same=0
  fi
  if [ "$plain" -ne "$want" ] || [ "$same" -ne 1 ] || [ "$trace_ok" -ne 0 ]; then
    status="FAIL"
    failures=$((failures + 1))
    sed 's/^/    /' "$out/$mode.err"
  fi
  echo "$status $mode: exit untraced $plain, traced $traced (expected $want); trace: $result"
done
echo "abnormal_end: $failures failed"
[ "$failures" -eq 0 ]
