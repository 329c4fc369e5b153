#!/usr/bin/env bash
# Capture windows and kernel filters on the GPU: each case runs a sample under
# libcuptitrace.so with CUPTITRACE_CAPTURE / CUPTITRACE_KERNEL_* set and checks
# which kernels (told apart by grid_x), API calls and NVTX records the CSV
# tables hold, and the windows in the JSON metadata when it lists them.
#   capture.sh SAMPLES_DIR LIBCUPTITRACE OUTDIR
# Exits 77 without a GPU, 1 when a case failed.
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 SAMPLES_DIR LIBCUPTITRACE OUTDIR" >&2
  exit 2
fi
samples=$1 lib=$2 out=$3
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "capture: no GPU here: skipped"
  exit 77
fi
for f in "$samples/profiler_window" "$samples/capture_steps" "$lib"; do
  [ -e "$f" ] || { echo "FAIL capture: $f does not exist" >&2; exit 1; }
done
rm -rf "$out" && mkdir -p "$out"
failures=0

# The samples must work untraced (and capture_steps survive its SIGUSR2s).
for args in "profiler_window" "profiler_window repeat" "capture_steps nvtx" "capture_steps signal"; do
  # shellcheck disable=SC2086
  if ! timeout 120 "$samples"/$args >"$out/untraced.out" 2>&1; then
    echo "FAIL untraced '$args':"
    cat "$out/untraced.out"
    failures=$((failures + 1))
  fi
done

# run NAME CHECKS ENV... -- SAMPLE ARGS: traced run into $out/NAME, then the checks.
run() {
  local name=$1 checks=$2
  shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local bin=$samples/$1
  shift
  env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" CUPTITRACE_FORMAT=json,csv \
    CUPTITRACE_SUMMARY=none CUPTITRACE_OUTPUT="$out/$name" "${envs[@]}" \
    timeout 120 "$bin" "$@" >"$out/$name.stdout" 2>"$out/$name.stderr"
  local rc=$?
  local verdict
  verdict=$(python3 - "$out/$name" "$rc" "$checks" <<'PY'
import csv, json, os, re, sys
prefix, rc, checks = sys.argv[1], int(sys.argv[2]), sys.argv[3]
problems = []
def table(kind):
    path = f"{prefix}.{kind}.csv"
    if not os.path.exists(path):
        problems.append(f"no {kind}.csv"); return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))
if rc != 0:
    problems.append(f"exit {rc}")
kernels, api, nvtx, memset = table("kernels"), table("api"), table("nvtx"), table("memset")
try:
    meta = json.load(open(prefix + ".json"))["metadata"]
except Exception as e:
    meta = {}; problems.append(f"no readable JSON ({e.__class__.__name__})")
stderr = open(prefix + ".stderr", encoding="utf-8", errors="replace").read()
grids = sorted(int(k["grid_x"]) for k in kernels)
launches = [a for a in api if a["name"] == "cudaLaunchKernel"]
api_names = {a["name"] for a in api}
counters = meta.get("counters", {})
windows = meta.get("capture_windows")
# Without them in the JSON, the exit line says how many windows and how long in all.
exit_line = re.search(r"; (\d+) capture windows?, ([0-9.]+) s\)", stderr)
facts = {}
for check in checks.split():
    key, _, want = check.partition("=")
    if key == "grids":       # exact multiset of grid_x values, like 4x3,5x3
        expected = sorted(int(item.split("x")[0]) for item in want.split(",") if item
                          for _ in range(int(item.split("x")[1])))
        ok, got = grids == expected, grids
    elif key == "grid_span":  # a run of steps, lo..hi of them, 2 kernels each (1 allowed at an edge)
        lo, hi = (int(v) for v in want.split(".."))
        steps = sorted(set(grids))
        ok = bool(steps) and lo <= len(steps) <= hi and steps == list(range(steps[0], steps[0] + len(steps)))
        ok = ok and all(grids.count(s) == 2 for s in steps[1:-1]) and 1 not in steps and 20 not in steps
        got = {s: grids.count(s) for s in steps}
    elif key == "launches":  # cudaLaunchKernel records, each with its kernel
        kernel_ids = {k["correlation_id"] for k in kernels}
        unmatched = [a["correlation_id"] for a in launches if a["correlation_id"] not in kernel_ids]
        ok, got = len(launches) == int(want) and not unmatched, f"{len(launches)} (unmatched {unmatched[:3]})"
    elif key == "no_api":    # calls made outside every window
        got = sorted(api_names & set(want.split(",")))
        ok = not got
    elif key == "memsets":
        ok, got = len(memset) == int(want), len(memset)
    elif key == "nvtx":      # TYPE:message:count,... (spaces as ~)
        got = {}
        for r in nvtx:
            got[f'{r["type"]}:{r["message"]}'] = got.get(f'{r["type"]}:{r["message"]}', 0) + 1
        expected = {} if want == "none" else {i.rsplit(":", 1)[0].replace("~", " "): int(i.rsplit(":", 1)[1])
                                              for i in want.split(",")}
        ok = got == expected
        open_ranges = [r for r in nvtx if r.get("open") not in ("", "0", "false", "no")]
        if open_ranges:
            ok = False; got = f"{got}, open ranges: {len(open_ranges)}"
    elif key == "counter":   # name:value
        name, value = want.rsplit(":", 1)
        got = counters.get(name)
        ok = got == int(value)
    elif key == "windows":   # count, or count:min_ms..max_ms for the first (for all, from the exit line)
        count, _, span = want.partition(":")
        if windows is not None:
            got = [(w["end_ns"] - w["start_ns"]) / 1e6 for w in windows]
        elif exit_line:
            got = f"{exit_line.group(1)} on the exit line, {float(exit_line.group(2)) * 1e3:.0f} ms"
        else:
            got = "neither in the JSON metadata nor on the exit line"
        ok = (len(got) == int(count)) if windows is not None else bool(exit_line) and int(exit_line.group(1)) == int(count)
        if ok and span:
            lo, hi = (float(v) for v in span.split(".."))
            ms = got[0] if windows is not None else float(exit_line.group(2)) * 1e3
            ok = lo <= ms <= hi
    elif key == "osrt":      # lo..hi usleep calls recorded; every C library call inside a window
        lo, hi = (int(v) for v in want.split(".."))
        calls = [a for a in api if a.get("domain") == "osrt"]
        sleeps = [a for a in calls if a["name"] == "usleep"]
        spans = [(w["start_ns"], w["end_ns"]) for w in (windows or [])]
        outside = [a["name"] for a in calls
                   if not any(s <= int(a["start_ns"]) <= e for s, e in spans)]
        got = f"{len(sleeps)} usleep of {len(calls)} calls ({sorted({a['name'] for a in calls})}), {len(outside)} outside windows"
        ok = lo <= len(sleeps) <= hi and not outside
    elif key == "stderr":    # a text the run's stderr must hold (spaces as ~)
        text = want.replace("~", " ")
        ok, got = text in stderr, "present" if text in stderr else "absent"
    else:
        ok, got = False, f"unknown check {key}"
    facts[key] = got
    if not ok:
        problems.append(f"{check}: got {got}")
print(("FAIL " + "; ".join(problems)) if problems else "ok   " + ", ".join(f"{k}={v}" for k, v in facts.items()))
sys.exit(1 if problems else 0)
PY
)
  local status=$?
  echo "${verdict:0:4} $name: ${verdict:5}"
  if [ $status -ne 0 ]; then
    failures=$((failures + 1))
    sed 's/^/    /' "$out/$name.stderr" | tail -n 20
  fi
}

win46="4x3,5x3,6x3"
run profiler "grids=$win46 launches=9 memsets=0 no_api=cudaMalloc,cudaMemset,cudaMemcpy windows=1" \
  CUPTITRACE_CAPTURE=profiler -- profiler_window
run profiler_repeat "grids=$win46,9x3 launches=12 memsets=0 windows=2" \
  CUPTITRACE_CAPTURE=profiler -- profiler_window repeat
run whole_run "grids=1x3,2x3,3x3,$win46,7x3,8x3,9x3,10x3 launches=30 memsets=1" -- profiler_window
run no_window "grids= launches=0 windows=0 stderr=no~capture~window~opened" \
  CUPTITRACE_CAPTURE=profiler -- capture_steps startend
run nvtx_steps "grids=10x2,11x2,12x2 launches=6 memsets=0 nvtx=PushPop:step:3,PushPop:inner:3,Mark:step~done:3 counter=nvtx.unmatched_pops:0 windows=1" \
  CUPTITRACE_CAPTURE=nvtx:step@10-12 -- capture_steps nvtx
run nvtx_steps_unrecorded "grids=10x2,11x2,12x2 launches=6 nvtx=none windows=1" \
  CUPTITRACE_CAPTURE=nvtx:step@10-12 CUPTITRACE_ACTIVITIES=kernel,runtime -- capture_steps nvtx
run nvtx_every_step "grids=$(seq -s, 1 20 | sed 's/\([0-9]*\)/\1x2/g') launches=40 memsets=0 windows=20" \
  CUPTITRACE_CAPTURE=nvtx:step -- capture_steps nvtx
run startend_steps "grids=10x2,11x2,12x2 launches=6 nvtx=StartEnd:step:3 windows=1" \
  CUPTITRACE_CAPTURE=nvtx:step@10-12 -- capture_steps startend
run signal "grids=5x2,6x2,7x2,8x2 launches=8 memsets=0 windows=1:250..400" \
  CUPTITRACE_CAPTURE=signal -- capture_steps signal
run signal_usr1_unused "grids= launches=0 windows=0" \
  CUPTITRACE_CAPTURE=signal:USR1 -- capture_steps time
run time "grid_span=3..7 memsets=0 windows=1:490..520" \
  CUPTITRACE_CAPTURE=time:1s+500ms -- capture_steps time
# C library calls follow the window too: of the 20 sleeps of 100 ms, the 4-6
# in the 500 ms window (the osrt library preloaded, as the cuptitrace command does).
run time_osrt "grid_span=3..7 osrt=3..7 windows=1:490..520" \
  LD_PRELOAD="$(dirname "$lib")/libcuptitrace-osrt.so" CUPTITRACE_ACTIVITIES=default,osrt CUPTITRACE_CAPTURE=time:1s+500ms -- capture_steps time
run exclude "grids=7x3,8x3,9x3,10x3 launches=12 counter=filtered.kernels:18 counter=filtered.launch_calls:18" \
  'CUPTITRACE_KERNEL_EXCLUDE=iteration_kernel<[1-6]>' -- profiler_window
run include "grids=7x3 launches=3 counter=filtered.kernels:27" \
  'CUPTITRACE_KERNEL_INCLUDE=^void \(anonymous namespace\)::iteration_kernel<7>\(int\*\)$' -- profiler_window
run include_in_window "grids=5x3 launches=3 counter=filtered.kernels:6 windows=1" \
  CUPTITRACE_CAPTURE=profiler 'CUPTITRACE_KERNEL_INCLUDE=<5>' -- profiler_window
run bad_regex "launches=30 stderr=CUPTITRACE_KERNEL_INCLUDE" \
  'CUPTITRACE_KERNEL_INCLUDE=iteration_kernel<(' -- profiler_window

echo "capture: $failures failed"
[ "$failures" -eq 0 ]
