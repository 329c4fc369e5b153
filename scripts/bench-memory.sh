#!/usr/bin/env bash
# Peak memory of a long traced run on the GPU machine: bench/launch_loop N
# (20 million tiny kernels by default, each with its cudaLaunchKernel call:
# 40 million records) untraced, then traced with the default settings (the
# default kinds, CUPTITRACE_MAX_MEMORY's default cap, the reports at exit)
# once per format in FORMATS. For each run: the process's peak resident
# memory (the kernel's ru_maxrss of the child), its growth over the untraced
# run against the cap + 64 MiB, the wall time, and from the trace: the
# kernels written and the records dropped (the exit line), kernel events in
# the JSON, and the exit delay: from the loop's return from main to the end
# of the process, per million records of the trace (kernels and API calls,
# from the exit line). Past the cap the store spills to a journal next to the output
# (OUT); the exporters and reports then read it a window of time at a time.
#   scripts/bench-memory.sh [BUILD]   BUILD defaults to build-gpu; N=20000000,
#                                     FORMATS="json pftrace", CAP (MiB) =512
set -u
BUILD=${1:-${BUILD:-build-gpu}}
N=${N:-20000000}
FORMATS=${FORMATS:-json pftrace}
CAP=${CAP:-512}
loop=$BUILD/bench/launch_loop
lib=$BUILD/injection/libcuptitrace.so
out=${OUT:-/tmp}/bench-memory
mkdir -p "$out"
for f in "$loop" "$lib"; do
  [ -e "$f" ] || { echo "bench-memory: $f is missing (build targets launch_loop cuptitrace_injection)" >&2; exit 2; }
done
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "bench-memory: no GPU here: skipped"
  exit 77
fi

# measure NAME CMD...: runs CMD (its stdout and stderr to OUT/NAME.out and
# .err) and prints "peak_kib wall_s exit end_ns": the child's peak resident
# memory (ru_maxrss), wall time, exit status and when it ended (wall clock).
measure() {
  local name=$1
  shift
  python3 - "$out/$name" "$@" <<'PY'
import resource, subprocess, sys, time
base = sys.argv[1]
t = time.monotonic()
with open(base + ".out", "w") as o, open(base + ".err", "w") as e:
    rc = subprocess.call(sys.argv[2:], stdout=o, stderr=e)
end = time.time_ns()
wall = time.monotonic() - t
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, f"{wall:.1f}", rc, end)
PY
}
# exit_delay NAME END_NS: seconds from the loop's "exit at" line to END_NS.
exit_delay() {
  local at
  at=$(sed -n 's/.*exit at \([0-9]*\) ns/\1/p' "$out/$1.out")
  [ -n "$at" ] && awk -v e="$2" -v a="$at" 'BEGIN { printf "%.1f", (e - a) / 1e9 }'
}

read -r base_kib base_wall base_rc base_end < <(measure untraced "$loop" "$N")
printf "%-10s %12s %14s %10s %8s %8s  %s\n" run "peak MiB" "growth MiB" "limit MiB" "wall s" "exit s" "trace"
printf "%-10s %12.1f %14s %10s %8s %8s  exit %s\n" untraced "$(awk -v k="$base_kib" 'BEGIN { print k / 1024 }')" - - \
  "$base_wall" "$(exit_delay untraced "$base_end")" "$base_rc"
failures=0
for format in $FORMATS; do
  prefix=$out/traced_$format
  rm -f "$prefix".*
  read -r kib wall rc end < <(measure "traced_$format" env CUDA_INJECTION64_PATH="$lib" \
    CUPTITRACE_FORMAT="$format" CUPTITRACE_OUTPUT="$prefix" CUPTITRACE_MAX_MEMORY="${CAP}M" \
    "$loop" "$N")
  growth=$(awk -v k="$kib" -v b="$base_kib" 'BEGIN { print (k - b) / 1024 }')
  limit=$((CAP + 64))
  exitline=$(grep -o "cuptitrace: wrote.*" "$out/traced_$format.err" | tail -1)
  kernels=$(echo "$exitline" | grep -o "kernel [0-9]*" | head -1 | cut -d' ' -f2)
  dropped=$(echo "$exitline" | grep -o "dropped [0-9]*" | head -1 | cut -d' ' -f2)
  api=$(echo "$exitline" | grep -o "api [0-9]*" | head -1 | cut -d' ' -f2)
  delay=$(exit_delay "traced_$format" "$end")
  detail="exit $rc, kernels ${kernels:-?}, api ${api:-?}, dropped ${dropped:-?}"
  if [ -n "$delay" ] && [ -n "$kernels" ] && [ -n "$api" ]; then
    detail="$detail, exit delay $(awk -v d="$delay" -v n=$((kernels + api)) 'BEGIN { printf "%.3f", d / (n / 1e6) }') s per M records"
  fi
  if [ "$format" = json ] && [ -f "$prefix.json" ]; then
    # One event per line: kernel slices counted without parsing gigabytes.
    detail="$detail, kernel events in the JSON $(grep -c '"cat":"kernel"' "$prefix.json")"
  fi
  if [ -f "$prefix.$format" ]; then
    detail="$detail, $(du -m "$prefix.$format" | cut -f1) MiB"
  fi
  verdict=ok
  if [ "$rc" -ne 0 ] || awk -v g="$growth" -v l="$limit" 'BEGIN { exit !(g > l) }' || [ "${dropped:-1}" != 0 ]; then
    verdict=OVER
    failures=$((failures + 1))
  fi
  printf "%-10s %12.1f %14.1f %10d %8s %8s  %s [%s]\n" "$format" "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$growth" \
    "$limit" "$wall" "${delay:--}" "$detail" "$verdict"
  rm -f "$prefix".json "$prefix".pftrace  # gigabytes
done
[ "$failures" -eq 0 ]
