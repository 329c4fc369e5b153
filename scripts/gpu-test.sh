#!/usr/bin/env bash
# The GPU test run, on the GPU machine, from the repository root, with a build
# tree configured and built elsewhere (same CUDA 13.0, -DCMAKE_CUDA_ARCHITECTURES=90):
#
#   scripts/gpu-test.sh [BUILD]          BUILD defaults to $BUILD, else build-gpu
#   GPU_TESTS=REGEX / GPU_TESTS_EXCLUDE=REGEX   only some of the GPU tests (ctest -R / -E)
#
# 1. shows the GPU, and what libcuptitrace.so and cuptitrace need (ldd: nothing missing);
# 2. runs the GPU tests: `ctest -L gpu`, or run_sample.sh on each sample directly
#    when the build tree was configured under another path (CTest files hold absolute paths);
# 3. measures overhead: multi_stream $RUNS times untraced and $RUNS times traced
#    (default activities and format), interleaved, wall time each; medians and ratio;
# 4. prints a short table last: per sample and key, expected vs written in each
#    format (from check_trace.py's summaries), then the overhead medians.
# With $OUT set it leaves there gpu-test.tar.gz (traces, logs) and gpu-test-summary.txt.
# Exits 1 when a GPU test failed or a traced run did not work.
set -u

BUILD=${1:-${BUILD:-build-gpu}}
RUNS=${RUNS:-5}
if [ ! -d "$BUILD" ] || [ ! -f "$BUILD/CMakeCache.txt" ]; then
  echo "gpu-test: $BUILD is not a build tree (no CMakeCache.txt); usage: $0 [BUILD]" >&2
  exit 2
fi
BUILD=$(cd "$BUILD" && pwd)
TRACES=$BUILD/gpu-traces
LOGS=$BUILD/gpu-test-logs
rm -rf "$LOGS"
mkdir -p "$TRACES" "$LOGS"
status=0

lib=$(find "$BUILD" -name libcuptitrace.so -not -path '*/CMakeFiles/*' | head -n 1)
cli=$(find "$BUILD" -name cuptitrace -type f -perm -u+x -not -path '*/CMakeFiles/*' | head -n 1)
echo "== GPU"
nvidia-smi -L || echo "gpu-test: nvidia-smi -L failed"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
for f in "$lib" "$cli" "$(dirname "${lib:-.}")/libcuptitrace-osrt.so"; do
  if [ -z "$f" ]; then
    echo "gpu-test: libcuptitrace.so or the cuptitrace command is not in $BUILD (build it first)" >&2
    exit 2
  fi
  echo "== ldd $f"
  ldd "$f"
  if ldd "$f" | grep -q "not found"; then
    echo "gpu-test: WARNING: $f needs a shared library this machine lacks"
    status=1
  fi
done

# ---- 2. GPU tests -----------------------------------------------------------
samples=()
# cupti_taken, abnormal_end and contexts_streams are run by bad_input.sh, abnormal_end.sh and
# robustness.sh; profiler_window, capture_steps and fork_children by capture.sh and children.sh;
# timed_launches by kill_bound.sh; graph_while by graph_while.sh.
for cu in samples/*.cu; do
  s=$(basename "$cu" .cu)
  case $s in
    cupti_taken | abnormal_end | endings | contexts_streams | profiler_window | capture_steps | fork_children | \
      busy_threads | segv_recover | nvtx_unique_ranges | peer_copy | graph_branches | timed_launches | \
      graph_while) ;;
    *) samples+=("$s") ;;
  esac
done
# run_script NAME SCRIPT ARGS...: one GPU test script outside CTest, its result in the log.
run_script() {
  local name=$1 script=$2
  shift 2
  echo "== gpu.$name" | tee -a "$LOGS/tests.log"
  bash "$script" "$@" >>"$LOGS/tests.log" 2>&1
  case $? in
    0) echo "gpu.$name: Passed" | tee -a "$LOGS/tests.log" ;;
    77) echo "gpu.$name: Skipped" | tee -a "$LOGS/tests.log" ;;
    *) echo "gpu.$name: FAILED" | tee -a "$LOGS/tests.log"; status=1 ;;
  esac
}
configured_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")
configured_build=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$BUILD/CMakeCache.txt")
rm -f "$TRACES"/*.summary.tsv
if [ "$configured_src" = "$(pwd)" ] && [ "$configured_build" = "$BUILD" ]; then
  echo "== ctest -L gpu"
  # Every test's own output, passed or not, in tests.xml (JUnit: <system-out> per test; CTest 3.21+).
  junit=()
  ctest --help 2>/dev/null | grep -q -- --output-junit && junit=(--output-junit "$LOGS/tests.xml")
  # CTest keeps only 1 KiB of a passed test's output by default: keep what the
  # samples print (counts, timings), passed or failed (CTest 3.17+).
  sizes=()
  ctest --help 2>/dev/null | grep -q -- --test-output-size &&
    sizes=(--test-output-size-passed 65536 --test-output-size-failed 262144)
  # GPU_TESTS / GPU_TESTS_EXCLUDE: a regular expression of the tests to run, or to leave out
  # (one command on the lent machine runs 10 minutes at most: the suite can be split).
  pick=()
  [ -n "${GPU_TESTS:-}" ] && pick+=(-R "$GPU_TESTS")
  [ -n "${GPU_TESTS_EXCLUDE:-}" ] && pick+=(-E "$GPU_TESTS_EXCLUDE")
  (cd "$BUILD" && ctest -L gpu "${pick[@]}" --output-on-failure "${sizes[@]}" "${junit[@]}") 2>&1 | tee "$LOGS/tests.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
else
  echo "== GPU tests (build tree configured at $configured_build for $configured_src: running run_sample.sh directly)"
  for s in "${samples[@]}"; do
    echo "== gpu.$s" | tee -a "$LOGS/tests.log"
    # As tests/gpu/CMakeLists.txt sets it: osrt through the command, every call recorded.
    how=(env)
    [ "$s" = file_io_between_kernels ] &&
      how=(env RUN_SAMPLE_VIA_CLI=1 RUN_SAMPLE_ACTIVITIES=default,osrt CUPTITRACE_OSRT_THRESHOLD=0)
    [ "$s" = memory_alloc ] && how=(env RUN_SAMPLE_ACTIVITIES=default,memory)
    [ "$s" = managed_faults ] && how=(env RUN_SAMPLE_ACTIVITIES=default,uvm)
    "${how[@]}" bash tests/gpu/run_sample.sh "$BUILD/samples/$s" "$lib" "$cli" "$TRACES" >>"$LOGS/tests.log" 2>&1
    rc=$?
    case $rc in
      0) result=Passed ;;
      77) result=Skipped ;;
      *) result="FAILED (exit $rc)"; status=1 ;;
    esac
    echo "gpu.$s: $result" | tee -a "$LOGS/tests.log"
  done
  echo "== gpu.abnormal_end" | tee -a "$LOGS/tests.log"
  if bash tests/gpu/abnormal_end.sh "$BUILD/samples/abnormal_end" "$lib" "$TRACES/abnormal-end" >>"$LOGS/tests.log" 2>&1; then
    echo "gpu.abnormal_end: Passed" | tee -a "$LOGS/tests.log"
  else
    echo "gpu.abnormal_end: FAILED" | tee -a "$LOGS/tests.log"
    status=1
  fi
  grep -E '^(ok  |FAIL) ' "$LOGS/tests.log" | tail -n 20
  echo "== gpu.robustness" | tee -a "$LOGS/tests.log"
  if bash tests/gpu/robustness.sh "$BUILD" "$lib" "$cli" "$TRACES/robustness" >>"$LOGS/tests.log" 2>&1; then
    echo "gpu.robustness: Passed" | tee -a "$LOGS/tests.log"
  else
    echo "gpu.robustness: FAILED" | tee -a "$LOGS/tests.log"
    status=1
  fi
  for t in capture children; do
    echo "== gpu.$t" | tee -a "$LOGS/tests.log"
    if bash "tests/gpu/$t.sh" "$BUILD/samples" "$lib" "$TRACES/$t" >>"$LOGS/tests.log" 2>&1; then
      echo "gpu.$t: Passed" | tee -a "$LOGS/tests.log"
    else
      echo "gpu.$t: FAILED" | tee -a "$LOGS/tests.log"
      status=1
    fi
  done
  echo "== gpu.graph_mode" | tee -a "$LOGS/tests.log"
  bash tests/gpu/graph_mode.sh "$BUILD/samples/cuda_graph" "$lib" "$cli" "$TRACES/graph-mode" \
    >>"$LOGS/tests.log" 2>&1
  case $? in
    0) echo "gpu.graph_mode: Passed" | tee -a "$LOGS/tests.log" ;;
    77) echo "gpu.graph_mode: Skipped" | tee -a "$LOGS/tests.log" ;;
    *) echo "gpu.graph_mode: FAILED" | tee -a "$LOGS/tests.log"; status=1 ;;
  esac
  echo "== gpu.spill_recover" | tee -a "$LOGS/tests.log"
  bash tests/gpu/spill_recover.sh "$BUILD/bench/launch_loop" "$lib" "$cli" "$TRACES/spill-recover" \
    >>"$LOGS/tests.log" 2>&1
  case $? in
    0) echo "gpu.spill_recover: Passed" | tee -a "$LOGS/tests.log" ;;
    77) echo "gpu.spill_recover: Skipped" | tee -a "$LOGS/tests.log" ;;
    *) echo "gpu.spill_recover: FAILED" | tee -a "$LOGS/tests.log"; status=1 ;;
  esac
  run_script graph_windows tests/gpu/graph_windows.sh "$lib" "$TRACES/graph-windows"
  run_script graph_while tests/gpu/graph_while.sh "$BUILD/samples/graph_while" "$lib" "$TRACES/graph-while"
  run_script doc_examples tests/docs/doc_examples.sh "$cli" "$BUILD/bench/rank_bench" "$(pwd)" --gpu
  run_script endings tests/gpu/endings.sh "$BUILD/samples" "$lib" "$cli" "$TRACES/endings"
  run_script kill_bound tests/gpu/kill_bound.sh "$BUILD/samples" "$lib" "$cli" "$TRACES/kill-bound"
  echo "== gpu.merge" | tee -a "$LOGS/tests.log"
  if bash tests/gpu/merge.sh "$BUILD/samples" "$lib" "$cli" "$TRACES/merge" >>"$LOGS/tests.log" 2>&1; then
    echo "gpu.merge: Passed" | tee -a "$LOGS/tests.log"
  else
    echo "gpu.merge: FAILED" | tee -a "$LOGS/tests.log"
    status=1
  fi
  for t in signals threads; do
    echo "== gpu.$t" | tee -a "$LOGS/tests.log"
    args=("$BUILD/samples" "$lib")
    [ "$t" = signals ] && args+=("$cli")
    bash "tests/gpu/$t.sh" "${args[@]}" "$TRACES/$t" >>"$LOGS/tests.log" 2>&1
    case $? in
      0) echo "gpu.$t: Passed" | tee -a "$LOGS/tests.log" ;;
      77) echo "gpu.$t: Skipped" | tee -a "$LOGS/tests.log" ;;
      *) echo "gpu.$t: FAILED" | tee -a "$LOGS/tests.log"; status=1 ;;
    esac
  done
  run_script sqlite tests/gpu/sqlite.sh "$BUILD/samples" "$lib" "$cli" "$TRACES/sqlite"
  echo "== gpu.bad_input" | tee -a "$LOGS/tests.log"
  if bash tests/gpu/bad_input.sh "$BUILD/samples" "$lib" "$TRACES/bad-input" >>"$LOGS/tests.log" 2>&1; then
    echo "gpu.bad_input: Passed" | tee -a "$LOGS/tests.log"
  else
    echo "gpu.bad_input: FAILED" | tee -a "$LOGS/tests.log"
    status=1
  fi
  grep -E '^(FAIL|SKIP)' "$LOGS/tests.log" | head -n 60
fi

# ---- 3. overhead ------------------------------------------------------------
echo "== overhead: multi_stream, $RUNS runs untraced and $RUNS traced, interleaved"
bin=$BUILD/samples/multi_stream
ovh=$LOGS/overhead
mkdir -p "$ovh"
wall_us() {  # runs "$@", appends its output to $ovh/runs.log, prints its wall time in us
  local t0 t1
  t0=$(date +%s%N)
  "$@" >>"$ovh/runs.log" 2>&1
  local rc=$?
  t1=$(date +%s%N)
  [ $rc -eq 0 ] || echo "gpu-test: '$*' exited $rc" >&2
  echo $(((t1 - t0) / 1000))
  return $rc
}
traced() {
  env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" CUPTITRACE_OUTPUT="$ovh/traced-$1" "${@:2}"
}
untraced_us=() traced_us=()
"$bin" >>"$ovh/runs.log" 2>&1  # warm-up (driver, page cache), not timed
traced warmup "$bin" >>"$ovh/runs.log" 2>&1
for i in $(seq "$RUNS"); do
  u=$(wall_us "$bin") || status=1
  t=$(wall_us traced "$i" "$bin") || status=1
  untraced_us+=("$u") traced_us+=("$t")
  if ! ls "$ovh/traced-$i".* >/dev/null 2>&1; then
    echo "gpu-test: traced run $i wrote no output ($ovh/traced-$i.*)"
    status=1
  fi
  echo "run $i: untraced $((u / 1000)) ms, traced $((t / 1000)) ms"
done
# Keep one traced output as a sample; the others only fill the archive.
find "$ovh" -name 'traced-*' -not -name 'traced-1.*' -delete

# ---- 4. table -----------------------------------------------------------------
summary=$LOGS/summary.txt
python3 - "$TRACES" "${untraced_us[*]}" "${traced_us[*]}" "${samples[@]}" >"$summary" <<'PY'
import glob, os, statistics, sys
traces, untraced, traced, samples = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4:]
formats = ["json", "csv", "native>json", "native>csv"]
rows = {}  # (sample, key) -> {"expected": e, fmt: written}
checked = {}
for path in sorted(glob.glob(os.path.join(traces, "*.summary.tsv"))):
    for line in open(path, encoding="utf-8"):
        sample, fmt, key, expected, written, state = line.rstrip("\n").split("\t")
        if fmt == "all":
            checked[sample] = f"{written} failed checks" if state != "ok" else "all checks ok"
            continue
        cell = rows.setdefault((sample, key), {"expected": expected})
        cell[fmt] = written + ("" if state == "ok" else " !")
print("GPU tests: expected vs written ('!' marks a mismatch; '-' not written)")
print(f"{'sample':<14} {'key':<38} {'expected':>8} " + " ".join(f"{f:>11}" for f in formats))
for s in samples:
    keys = [k for (sample, k) in rows if sample == s]
    if not keys:
        print(f"{s:<14} (no check ran: see the test log)")
        continue
    for k in keys:
        cell = rows[(s, k)]
        print(f"{s:<14} {k[:38]:<38} {cell['expected']:>8} "
              + " ".join(f"{cell.get(f, ''):>11}" for f in formats))
    print(f"{s:<14} => {checked.get(s, 'no result')}")
def ms(values):
    return statistics.median(int(v) for v in values) / 1000 if values else float("nan")
if untraced and traced:
    u, t = ms(untraced), ms(traced)
    print(f"multi_stream wall time, median of {len(untraced)} runs: untraced {u:.1f} ms, "
          f"traced {t:.1f} ms, traced/untraced {t / u:.3f}")
    print(f"  untraced ms: {[int(v) // 1000 for v in untraced]}  traced ms: {[int(v) // 1000 for v in traced]}")
PY
[ -s "$summary" ] || status=1

if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  # One archive of everything small; files over 4 MiB are left out and listed.
  (cd "$BUILD" && find "$(basename "$TRACES")" "$(basename "$LOGS")" -type f -size +4M) >"$LOGS/left-out.txt"
  tar czf "$OUT/gpu-test.tar.gz" -C "$BUILD" --exclude-from="$LOGS/left-out.txt" \
    "$(basename "$TRACES")" "$(basename "$LOGS")" 2>/dev/null ||
    tar czf "$OUT/gpu-test.tar.gz" -C "$BUILD" "$(basename "$LOGS")"
  cp "$summary" "$OUT/gpu-test-summary.txt"
  echo "gpu-test: wrote $OUT/gpu-test.tar.gz ($(du -h "$OUT/gpu-test.tar.gz" | cut -f1)) and gpu-test-summary.txt"
fi

echo
cat "$summary"
echo "gpu-test: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
