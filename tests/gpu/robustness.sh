#!/usr/bin/env bash
# Hard cases on the GPU: contexts and streams created and destroyed in loops,
# the library injected twice, the PyTorch profiler started inside a traced
# program, and a traced program under compute-sanitizer.
#   robustness.sh BUILD_DIR LIBCUPTITRACE CUPTITRACE_BIN OUTDIR
set -u
build=$1 lib=$2 cli=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "robustness: no GPU here: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
failures=0
report() {  # report ok|FAIL TEXT
  echo "$1 $2"
  [ "$1" = ok ] || failures=$((failures + 1))
}

# 1. Contexts and streams in loops: every kernel, on the context it ran in.
if bash "$here/run_sample.sh" "$build/samples/contexts_streams" "$lib" "$cli" "$out" >"$out/contexts.log" 2>&1; then
  report ok "contexts_streams: counts in every format match (check_trace.py)"
else
  report FAIL "contexts_streams: check_trace.py failed"; grep -E "FAIL" "$out/contexts.log" | head
fi
contexts=$(python3 -c "
import csv,sys
rows=list(csv.DictReader(open('$out/contexts_streams.kernels.csv')))
print(len({r['context'] for r in rows}))" 2>/dev/null)
want=$(sed -n 's/.*contexts=\([0-9]*\).*/\1/p' "$out/contexts_streams.stdout" | tail -1)
[ -n "$contexts" ] && [ "$contexts" = "$want" ] && report ok "contexts_streams: kernels on $contexts distinct contexts (expected $want)" ||
  report FAIL "contexts_streams: kernels on ${contexts:-?} distinct contexts, expected ${want:-?}"
# The NVTX-named context and its NVTX-named stream: in the JSON, the stream's
# track is named after both and holds its kernel, the context's other stream
# says the name too, and the metadata lists it.
ctx_name=$(sed -n 's/.*named_context=\([^ ]*\).*/\1/p' "$out/contexts_streams.stdout" | tail -1)
stream_name=$(sed -n 's/.*named_context_stream=\([^ ]*\).*/\1/p' "$out/contexts_streams.stdout" | tail -1)
named=$(python3 - "$out/contexts_streams.json" "$stream_name ($ctx_name)" "$ctx_name" <<'PY' 2>/dev/null
import json, sys
path, track, context = sys.argv[1:4]
doc = json.load(open(path))
events = doc["traceEvents"]
names = {(e.get("pid"), e.get("tid")): e["args"]["name"] for e in events
         if e.get("ph") == "M" and e.get("name") == "thread_name"}
tracks = {k for k, v in names.items() if v == track}
kernels = sum(1 for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"
              and (e.get("pid"), e.get("tid")) in tracks)
others = sum(1 for v in names.values() if v != track and v.endswith("(" + context + ")"))
listed = sum(1 for c in doc.get("metadata", {}).get("contexts", []) if c.get("nvtx_name") == context)
print(len(tracks), kernels, others, listed)
PY
)
read -r n_tracks n_kernels n_others n_listed <<<"${named:-x x x x}"
[ -n "$ctx_name" ] && [ -n "$stream_name" ] && [ "$n_tracks" = 1 ] && [ "$n_kernels" = 1 ] &&
  [ "$n_others" -ge 1 ] 2>/dev/null && [ "$n_listed" = 1 ] &&
  report ok "contexts_streams: a track '$stream_name ($ctx_name)' with its kernel, $n_others more tracks of '$ctx_name', the name in metadata" ||
  report FAIL "contexts_streams: named context '${ctx_name:-?}', stream '${stream_name:-?}': ${n_tracks} tracks so named (want 1) with ${n_kernels} kernels (want 1), ${n_others} other tracks of the context (want >= 1), ${n_listed} metadata entries (want 1)"

# 2. Injected twice: two copies of the library in one process. One traces, the
#    other says CUPTI is taken; the program is unharmed.
cp "$lib" "$out/libcuptitrace-copy.so"
env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$out/libcuptitrace-copy.so" \
  CUPTITRACE_OUTPUT="$out/twice" "$build/samples/nvtx_ranges" >"$out/twice.out" 2>"$out/twice.err"
rc=$?
taken=$(grep -c "CUPTI is already in use" "$out/twice.err")
kernels=$(python3 -c "
import json,glob
n=0
for f in glob.glob('$out/twice*.json'):
    n+=sum(1 for e in json.load(open(f))['traceEvents'] if e.get('cat')=='kernel' and e.get('ph')=='X')
print(n)" 2>/dev/null)
[ "$rc" -eq 0 ] && [ "$taken" -eq 1 ] && [ "${kernels:-0}" -eq 7 ] &&
  report ok "injected twice: exit 0, one 'CUPTI is already in use' line, 7 kernels traced by the other copy" ||
  { report FAIL "injected twice: exit $rc, $taken refusal lines, ${kernels:-0} kernels (expected 0, 1, 7)"; cat "$out/twice.err"; }

# 3. The PyTorch profiler started inside a traced program. CUPTI serves one
#    tool per process: untraced, torch.profiler sees the GPU kernels; traced,
#    cuptitrace has them, torch.profiler sees none, and cuptitrace said so at start.
if python3 -c "import torch; assert torch.cuda.is_available()" >/dev/null 2>&1; then
  cat >"$out/torch_profiler.py" <<'PY'
import sys, torch
x = torch.randn(1024, 1024, device="cuda")
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                        torch.profiler.ProfilerActivity.CUDA]) as prof:
    for _ in range(20):
        y = torch.relu(x @ x)
    torch.cuda.synchronize()
gpu = sum(1 for e in prof.events() if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA)
print(f"torch_profiler: profiler_gpu_events={gpu}")
sys.exit(0)
PY
  python3 "$out/torch_profiler.py" >"$out/torch-untraced.out" 2>"$out/torch-untraced.err"
  plain=$(sed -n 's/.*profiler_gpu_events=\([0-9]*\).*/\1/p' "$out/torch-untraced.out")
  "$cli" -o "$out/torch" -- python3 "$out/torch_profiler.py" >"$out/torch.out" 2>"$out/torch.err"
  rc=$?
  seen=$(sed -n 's/.*profiler_gpu_events=\([0-9]*\).*/\1/p' "$out/torch.out")
  kernels=$(python3 -c "
import json
print(sum(1 for e in json.load(open('$out/torch.json'))['traceEvents'] if e.get('cat')=='kernel'))" 2>/dev/null)
  cat "$out/torch-untraced.out" "$out/torch.out"; grep -i -E "cupti|cuptitrace: wrote|tracing is off" "$out/torch.err" | head -5
  [ "$rc" -eq 0 ] && report ok "PyTorch profiler inside a traced program: exit 0" ||
    report FAIL "PyTorch profiler inside a traced program: exit $rc"
  [ "${plain:-0}" -ge 40 ] && report ok "torch.profiler untraced: ${plain} GPU events (>= 40)" ||
    report FAIL "torch.profiler untraced: ${plain:-none} GPU events, expected >= 40"
  [ "${kernels:-0}" -ge 40 ] && report ok "torch.profiler traced: cuptitrace's trace has ${kernels} kernels (>= 40)" ||
    report FAIL "torch.profiler traced: cuptitrace's trace has ${kernels:-no} kernels, expected >= 40"
  [ "${seen:-x}" = 0 ] && report ok "torch.profiler traced: it records 0 GPU events, as CUPTI allows one tool" ||
    report FAIL "torch.profiler traced: it recorded ${seen:-?} GPU events (expected 0: CUPTI is cuptitrace's)"
  [ "$(grep -c 'torch.profiler will record no GPU activity' "$out/torch.err")" -eq 1 ] &&
    report ok "torch.profiler traced: one line at start says torch.profiler records nothing" ||
    report FAIL "torch.profiler traced: no (or more than one) line about torch.profiler on stderr"
else
  echo "skip PyTorch profiler case: no torch with CUDA here"
fi

# 4. A traced program under compute-sanitizer (memcheck).
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$sanitizer" ]; then
  "$sanitizer" --tool memcheck --error-exitcode 9 env CUDA_INJECTION64_PATH="$lib" \
    CUPTITRACE_OUTPUT="$out/memcheck" "$build/samples/vector_add" >"$out/memcheck.out" 2>&1
  rc=$?
  summary=$(grep -o "ERROR SUMMARY: [0-9]* error[s]*" "$out/memcheck.out" | tail -1)
  grep -E "cuptitrace|ERROR SUMMARY" "$out/memcheck.out" | head -4
  [ "$rc" -eq 0 ] && report ok "compute-sanitizer memcheck on traced vector_add: exit 0, ${summary:-no summary}" ||
    report FAIL "compute-sanitizer memcheck on traced vector_add: exit $rc, ${summary:-no summary}"
else
  echo "skip compute-sanitizer case: not installed"
fi

echo "robustness: $failures failed"
[ "$failures" -eq 0 ]
