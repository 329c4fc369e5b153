#!/usr/bin/env bash
# GPU metrics (the gpu_metrics activity) on samples/gpu_metrics_kernels:
#  1. four kernels of known character traced with --gpu-metrics at 10 kHz into
#     JSON, .pftrace, SQLite and native; check_gpu_metrics.py checks each
#     kernel's verdict in the gpu_metrics report, the counter tracks in both
#     timeline formats and SQLite, and the samples' alignment with the kernels;
#  2. the paths the lent machine never takes by itself, forced
#     (CUPTITRACE_TEST_GPU_METRICS_FAULT): no permission to the counters and a
#     device that cannot sample each give one line and a whole trace; an
#     overflowing buffer gives a trace whose metadata counts the lost samples;
#  3. a metric the device does not know: one line naming those it knows;
#  4. capture windows (--capture profiler): each measured kernel in a window
#     of its own, sampled inside the windows only, from each kernel's start.
#   gpu_metrics.sh SAMPLE LIBCUPTITRACE CUPTITRACE_CLI OUTDIR
# Exits 77 without a GPU, 1 when a check failed.
set -u
if [ $# -ne 4 ]; then
  echo "usage: $0 SAMPLE LIBCUPTITRACE CUPTITRACE_CLI OUTDIR" >&2
  exit 2
fi
sample=$1 lib=$2 cli=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_metrics: no GPU here: skipped"
  exit 77
fi
mkdir -p "$out" && rm -f "$out"/*
fail=0

echo "== the four kernels, sampled at 10 kHz"
"$cli" --library "$lib" --gpu-metrics --gpu-metrics-rate 10kHz --format json,pftrace,sqlite,native \
       --summary file --overwrite -o "$out/kernels" -- "$sample" 100 >"$out/kernels.out" 2>"$out/kernels.err"
rc=$?
cat "$out/kernels.out"
if [ $rc -ne 0 ]; then echo "FAIL gpu_metrics: the sample exited $rc"; cat "$out/kernels.err"; exit 1; fi
if grep -q "gpu_metrics:" "$out/kernels.err"; then
  echo "FAIL gpu_metrics: sampling said:"; grep "gpu_metrics:" "$out/kernels.err"; fail=1
fi
"$cli" stats "$out/kernels.native" --report gpu_metrics --format json >"$out/report.json" || fail=1
"$cli" stats "$out/kernels.native" --report gpu_metrics >"$out/report.txt" && cat "$out/report.txt"
python3 "$here/check_gpu_metrics.py" "$out/kernels" --report "$out/report.json" --interval-ns 100000 || fail=1
"$cli" stats "$out/kernels.native" --report findings | grep -i "bound" | head -5

echo "== capture windows: sampled inside them only"
"$cli" --library "$lib" --gpu-metrics --gpu-metrics-rate 10kHz --capture profiler --format json \
       --summary none --overwrite -o "$out/windows" -- "$sample" 100 windows >"$out/windows.out" 2>"$out/windows.err"
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL gpu_metrics: windows: the sample exited $rc"; cat "$out/windows.err"; fail=1; fi
python3 "$here/check_gpu_metrics_windows.py" "$out/windows.json" --interval-ns 100000 || fail=1

# One fault at a time: one line on stderr, the program unharmed, the trace written.
for fault in permission unsupported; do
  echo "== forced: $fault"
  env CUPTITRACE_TEST_GPU_METRICS_FAULT=$fault "$cli" --library "$lib" --gpu-metrics --format json \
      --summary none --overwrite -o "$out/$fault" -- "$sample" 20 >"$out/$fault.out" 2>"$out/$fault.err"
  rc=$?
  lines=$(grep -c "gpu_metrics:" "$out/$fault.err")
  grep "gpu_metrics:" "$out/$fault.err"
  if [ $rc -ne 0 ] || [ "$lines" -ne 1 ] || [ ! -s "$out/$fault.json" ]; then
    echo "FAIL gpu_metrics: $fault: exit $rc, $lines lines about it, trace $(ls "$out/$fault.json" 2>&1)"; fail=1
  fi
  python3 - "$out/$fault.json" "$fault" "$out/$fault.out" <<'PY' || fail=1
import json, re, sys
doc = json.load(open(sys.argv[1]))
want = int(re.search(r"EXPECT kernels=(\d+)", open(sys.argv[3]).read()).group(1))
c = doc["metadata"].get("counters", {})
kernels = sum(1 for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel")
samples = sum(1 for e in doc["traceEvents"] if e.get("cat") == "gpu_metrics")
key = {"permission": "gpu_metrics.no_permission", "unsupported": "gpu_metrics.unsupported_devices"}[sys.argv[2]]
print(f"{sys.argv[2]}: {kernels} kernels, {samples} metric points, {key}={c.get(key)}")
sys.exit(0 if kernels == want and samples == 0 and c.get(key) == 1 else 1)
PY
done

echo "== forced: overflow (every other decode lost)"
env CUPTITRACE_TEST_GPU_METRICS_FAULT=overflow "$cli" --library "$lib" --gpu-metrics --format json \
    --summary none --overwrite -o "$out/overflow" -- "$sample" 50 >"$out/overflow.out" 2>"$out/overflow.err" || fail=1
python3 - "$out/overflow.json" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))["metadata"].get("counters", {})
print("overflow:", {k: v for k, v in c.items() if k.startswith("gpu_metrics")})
sys.exit(0 if c.get("gpu_metrics.samples_lost", 0) > 0 and c.get("gpu_metrics.overflows", 0) > 0 else 1)
PY

echo "== a metric the device does not know"
"$cli" --library "$lib" --gpu-metrics --gpu-metrics-list sm__cycles_active.avg.pct_of_peak_sustained_elapsed,no_such__metric.sum \
    --format json --summary none --overwrite -o "$out/unknown" -- "$sample" 20 >"$out/unknown.out" 2>"$out/unknown.err"
rc=$?
lines=$(grep -c "gpu_metrics:" "$out/unknown.err")
grep "gpu_metrics:" "$out/unknown.err" | cut -c1-400
if [ $rc -ne 0 ] || [ "$lines" -ne 1 ] || ! grep -q "no_such__metric.sum" "$out/unknown.err" \
   || ! grep -q "sm__cycles_active" "$out/unknown.err" || [ ! -s "$out/unknown.json" ]; then
  echo "FAIL gpu_metrics: unknown metric: exit $rc, $lines lines"; fail=1
fi

[ $fail -eq 0 ] && echo "gpu_metrics: all checks passed"
exit $fail
