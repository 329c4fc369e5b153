#!/usr/bin/env bash
# A process killed with SIGKILL at a random moment leaves a journal that is
# complete up to a bounded time before the kill: with CUPTITRACE_SPILL=always
# the records of chunks still filling go to the journal every
# CUPTITRACE_JOURNAL_PERIOD (1 s by default), not only the full chunks.
#
# timed_launches prints `t_ms=T completed=N` about every 10 ms (CLOCK_MONOTONIC
# ms; N kernels had run by T). It is killed between 2 and 4 s after its first
# such line, at time K on the same clock; `cuptitrace recover` must give back
# at least the N of the last line at or before K - bound - margin.
#   kill_bound.sh SAMPLES_DIR LIBCUPTITRACE CUPTITRACE_BIN OUTDIR
# KILL_BOUND_PERIOD (default 1s) sets CUPTITRACE_JOURNAL_PERIOD; KILL_BOUND_MARGIN_MS
# (default 500) covers CUPTI's flush, the drain and the write after each period.
# KILL_BOUND_ROUNDS (default 3) kills that many runs, each at its own moment.
set -u
samples=$1 lib=$2 cli=$3 out=$4
period=${KILL_BOUND_PERIOD:-1s}
margin_ms=${KILL_BOUND_MARGIN_MS:-500}
rounds=${KILL_BOUND_ROUNDS:-3}
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "kill_bound: no GPU here: skipped"
  exit 77
fi
for f in "$samples/timed_launches" "$lib" "$cli"; do
  if [ ! -e "$f" ]; then
    echo "FAIL kill_bound: $f does not exist"
    exit 1
  fi
done
case $period in
  *ms) bound_ms=${period%ms} ;;
  *s) bound_ms=$((${period%s} * 1000)) ;;
  *) echo "FAIL kill_bound: KILL_BOUND_PERIOD=$period: give it in ms or s"; exit 1 ;;
esac
rm -rf "$out" && mkdir -p "$out"
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}

one_round() {  # one_round NAME [KERNELS_PER_10MS]
  local name=$1 prefix=$out/$1 rate=${2:-}
  env CUDA_INJECTION64_PATH="$lib" CUPTITRACE_SPILL=always CUPTITRACE_JOURNAL_PERIOD="$period" \
    CUPTITRACE_FORMAT=native,json CUPTITRACE_SUMMARY=none CUPTITRACE_OUTPUT="$prefix" \
    "$samples/timed_launches" 60 $rate >"$prefix.out" 2>"$prefix.err" &
  local pid=$!
  # Killed from Python: its time.monotonic() is CLOCK_MONOTONIC, the program's clock.
  local kill_ms
  kill_ms=$(python3 - "$pid" "$prefix.out" <<'PY'
import os, random, signal, sys, time
pid, path = int(sys.argv[1]), sys.argv[2]
deadline = time.monotonic() + 120
while time.monotonic() < deadline:  # CUDA and the tracer start first
    try:
        if "t_ms=" in open(path).read():
            break
    except OSError:
        pass
    time.sleep(0.01)
time.sleep(random.uniform(2.0, 4.0))
kill_ms = int(time.monotonic() * 1000)
os.kill(pid, signal.SIGKILL)
print(kill_ms)
PY
)
  wait "$pid"
  local rc=$?
  check "$name: killed by SIGKILL (exit $rc)" [ "$rc" -eq 137 ]
  check "$name: no trace written by the killed run" [ ! -e "$prefix.json" ]
  check "$name: a journal was left" [ -s "$prefix.spill" ]
  "$cli" recover "$prefix.spill" -o "$prefix.recovered" >"$prefix.recover.out" 2>"$prefix.recover.err"
  local rrc=$?
  cat "$prefix.recover.err"
  check "$name: cuptitrace recover (exit $rrc)" [ "$rrc" -eq 0 ]
  python3 - "$prefix" "$kill_ms" "$bound_ms" "$margin_ms" "$name" <<'PY'
import json, re, sys
prefix, kill_ms, bound_ms, margin_ms, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
fails = 0
def check(what, ok, detail):
    global fails
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {what}: {detail}")
    fails += 0 if ok else 1
lines = []
for line in open(prefix + ".out"):
    m = re.match(r"t_ms=(\d+) completed=(\d+)", line)
    if m:
        lines.append((int(m.group(1)), int(m.group(2))))
def completed_at(t):
    n = 0
    for when, count in lines:
        if when <= t:
            n = count
    return n
at_kill = completed_at(kill_ms)
cutoff = kill_ms - bound_ms - margin_ms
at_bound = completed_at(cutoff)
try:
    doc = json.load(open(prefix + ".recovered.json"))
except Exception as e:
    check("recovered JSON readable", False, repr(e)); sys.exit(1)
events = doc["traceEvents"]
kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
recovered = len(kernels)
distinct = len({e.get("args", {}).get("correlation") for e in kernels})
# Launched after the last line and done before the kill: at most about one interval's worth.
step = max((b[1] - a[1] for a, b in zip(lines, lines[1:])), default=0)
meta = doc.get("metadata", {})
counters = meta.get("counters", {})
ran_ms = kill_ms - lines[0][0] if lines else 0
print(f"     {name}: recovered {recovered} kernels; completed at the kill {at_kill}; "
      f"completed at kill - {bound_ms} ms - {margin_ms} ms: {at_bound}; bound {bound_ms} ms; "
      f"killed {ran_ms} ms after the first line")
check("the program ran and reported", len(lines) > 100 and at_bound > 0, f"{len(lines)} lines, {at_bound} at the cutoff")
check("recovered >= completed at kill - bound - margin", recovered >= at_bound,
      f"recovered {recovered}, needed {at_bound}")
check("nothing recovered twice", distinct == recovered and recovered == meta.get("records", {}).get("kernel"),
      f"{recovered} kernels, {distinct} correlation ids, metadata.records.kernel {meta.get('records', {}).get('kernel')}")
check("nothing invented", recovered <= at_kill + 2 * step,
      f"recovered {recovered}, completed at the kill {at_kill}, launched in one interval at most {step}")
check("marked recovered", counters.get("recovered") == 1, f"recovered = {counters.get('recovered')}")
sys.exit(1 if fails else 0)
PY
  [ $? -eq 0 ] || failures=$((failures + 1))
}

for r in $(seq 1 "$rounds"); do
  one_round "round$r"
done
# A slow stream (500 kernels a second): its chunk of 4,096 records does not
# fill before the kill, so only the periodic tails can bring its kernels back.
one_round slow 5
echo "kill_bound: $failures failed"
[ "$failures" -eq 0 ]
