#!/usr/bin/env bash
# Graph-level records under capture windows, on a torch.compile(mode=
# "reduce-overhead") step whose blocks alternate cudaProfilerStart/Stop while
# CUDA graphs are replayed (bench/torch_step.py --alternate). Switching
# CUPTI's graph-level records off and on there crashed CUPTI inside
# cuGraphLaunch; they stay on, and the tracer keeps the launches made inside a
# window. The traced run must end as the untraced one does, with graph
# launches recorded, each with its launching call (so none from outside a window).
#   graph_windows.sh LIBCUPTITRACE OUTDIR
set -u
lib=$1 out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "graph_windows: no GPU here: skipped"
  exit 77
fi
if ! python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "graph_windows: python3 with CUDA-enabled torch not found: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
step=(python3 "$src/bench/torch_step.py" --alternate 3 --compile-model mlp --steps 10)
"${step[@]}" >"$out/plain.out" 2>&1
plain=$?
for mode in profiler signal; do
  env CUDA_INJECTION64_PATH="$lib" CUPTITRACE_CAPTURE="$mode" CUPTITRACE_GRAPHS=graph \
    CUPTITRACE_FORMAT=json,native CUPTITRACE_OUTPUT="$out/$mode" "${step[@]}" >"$out/$mode.out" 2>"$out/$mode.err"
  rc=$?
  grep -E '^(cuptitrace: (wrote|SIG)|torch_step)' "$out/$mode.err" "$out/$mode.out" | cut -c1-220
  check "CAPTURE=$mode GRAPHS=graph: exit $rc, untraced $plain" [ "$rc" -eq "$plain" -a "$plain" -eq 0 ]
  check "CAPTURE=$mode GRAPHS=graph: no fault" bash -c "! grep -q 'SIGSEGV\|SIGBUS\|SIGABRT' '$out/$mode.err'"
done
# With CUPTITRACE_CAPTURE=profiler the windows are the "on" blocks.
result=$(python3 - "$out/profiler.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1], encoding="utf-8"))["traceEvents"]
slices = [e for e in events if e.get("ph") == "X"]
graphs = [e for e in slices if e.get("cat") == "graph"]
calls = {e["args"].get("correlation") for e in slices if e.get("cat") in ("cuda_runtime", "cuda_driver")}
orphans = [g for g in graphs if g.get("args", {}).get("correlation") not in calls]
print(len(graphs), len(orphans))
PY
)
graphs=${result% *} orphans=${result#* }
check "CAPTURE=profiler: $graphs graph launches recorded, $orphans without their launching call" \
  [ "${graphs:-0}" -gt 0 -a "${orphans:-1}" -eq 0 ]
echo "graph_windows: $failures failed"
[ "$failures" -eq 0 ]
