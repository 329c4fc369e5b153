#!/usr/bin/env bash
# GPU metrics at high rates, on samples/gpu_metrics_rate (about ten seconds of
# kernels of 1 to 20 ms, the device idle 1 to 4 ms before each):
#  1. at 1, 10, 20 and 50 kHz, the default metric set: per rate, the samples
#     kept and lost, the longest gap, the sampling thread's CPU time as a
#     fraction of a core (and the evaluation's), the kernels' alignment with
#     the samples (check_gpu_metrics_rate.py prints one line per rate).
#     Checked: at 10 kHz no sample lost, no gap longer than a period, the
#     sampler's share of a core printed against 0.25; at 1 and 10 kHz every kernel
#     sampled and aligned within one period. 20 and 50 kHz are reported only;
#  2. cudaDeviceReset half-way through at 10 kHz: sampling starts again on the
#     new context (gpu_metrics.sessions_resumed 1, the later kernels sampled).
# Each rate's second line says how the decodes went (the longest decode call,
# the longest time between two decodes, CUPTI's time, the images' room).
# RATES, when set, runs only those rates of 1kHz 10kHz 20kHz 50kHz (and the
# reset run only when it names 10kHz): RATES="10kHz 20kHz" for a short run.
# CUPTITRACE_TEST_GPU_METRICS_BUFFER_MB, CUPTITRACE_TEST_GPU_METRICS_DECODE_US and
# CUPTITRACE_TEST_GPU_METRICS_IMAGE_MS, when set, change the hardware buffer's
# size, the decode period and the images' room (ms of samples), to compare.
#   [RATES="..."] gpu_metrics_rate.sh SAMPLE LIBCUPTITRACE CUPTITRACE_CLI OUTDIR [SECONDS]
# Exits 77 without a GPU, 1 when a check failed.
set -u
if [ $# -lt 4 ]; then
  echo "usage: $0 SAMPLE LIBCUPTITRACE CUPTITRACE_CLI OUTDIR [SECONDS]" >&2
  exit 2
fi
sample=$1 lib=$2 cli=$3 out=$4 seconds=${5:-10}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_metrics_rate: no GPU here: skipped"
  exit 77
fi
mkdir -p "$out" && rm -f "$out"/*
fail=0
nvidia-smi -L | head -1

run() {  # NAME RATE INTERVAL_NS EXTRA_CHECK_ARGS... -- SAMPLE_ARGS...
  local name=$1 rate=$2 interval=$3
  shift 3
  local checks=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do checks+=("$1"); shift; done
  shift
  local t0 t1
  t0=$(date +%s.%N)
  "$cli" --library "$lib" --gpu-metrics --gpu-metrics-rate "$rate" --format native --summary none \
         --overwrite -o "$out/$name" -- "$sample" "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  t1=$(date +%s.%N)
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: exit $rc"; tail -5 "$out/$name.err"; fail=1; return
  fi
  if grep -q "gpu_metrics:" "$out/$name.err"; then grep "gpu_metrics:" "$out/$name.err"; fi
  printf '%s: %s, ran %.1f s traced\n' "$name" "$(grep -o '[0-9]* kernels in [0-9.]* s' "$out/$name.out")" \
         "$(awk "BEGIN { print $t1 - $t0 }")"
  python3 "$here/check_gpu_metrics_rate.py" "$out/$name.native" --interval-ns "$interval" --label "$rate" \
          "${checks[@]}" || fail=1
}

rates=${RATES:-1kHz 10kHz 20kHz 50kHz}
wants() { case " $rates " in *" $1 "*) return 0 ;; esac; return 1; }
for r in $rates; do
  case $r in 1kHz|10kHz|20kHz|50kHz) ;; *) echo "RATES: unknown rate '$r' (1kHz 10kHz 20kHz 50kHz)" >&2; exit 2 ;; esac
done
echo "== $seconds s of kernels of 1 to 20 ms, at each rate ($rates)"
wants 1kHz && run rate-1kHz 1kHz 1000000 -- "$seconds"
wants 10kHz && run rate-10kHz 10kHz 100000 --targets -- "$seconds"
wants 20kHz && run rate-20kHz 20kHz 50000 --report-only -- "$seconds"
wants 50kHz && run rate-50kHz 50kHz 20000 --report-only -- "$seconds"
if wants 10kHz; then
  echo "== cudaDeviceReset half-way, 10 kHz"
  run reset-10kHz 10kHz 100000 --reset -- "$seconds" 1
fi

[ $fail -eq 0 ] && echo "gpu_metrics_rate: all checks passed"
exit $fail
