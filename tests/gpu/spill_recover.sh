#!/usr/bin/env bash
# Past the memory cap and after SIGKILL:
#  1. launch_loop under a 2M cap spills to PREFIX.spill and still writes a
#     complete trace: every kernel and launch call, nothing dropped, the
#     journal deleted at the end;
#  2. launch_loop killed with SIGKILL mid-run, with CUPTITRACE_SPILL=always and
#     with auto under the 2M cap: the journal it leaves is turned into a trace
#     by `cuptitrace recover` (JSON and native, marked recovered, counts in
#     whole chunks of 4096, converted again by `cuptitrace convert`).
#   spill_recover.sh LAUNCH_LOOP_BIN LIBCUPTITRACE CUPTITRACE_BIN OUTDIR
set -u
bin=$1 lib=$2 cli=$3 out=$4
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "spill_recover: no GPU here: skipped"
  exit 77
fi
for f in "$bin" "$lib" "$cli"; do
  if [ ! -x "$f" ] && [ ! -f "$f" ]; then
    echo "FAIL spill_recover: $f does not exist (launch_loop is built with the samples and benchmarks)"
    exit 1
  fi
done
rm -rf "$out" && mkdir -p "$out"
failures=0
report() {  # status line from check.py's exit code
  if [ "$1" -ne 0 ]; then failures=$((failures + 1)); fi
}
traced() {
  env CUDA_INJECTION64_PATH="$lib" CUPTITRACE_SUMMARY=none "$@"
}

# ---- 1. a run past the cap ---------------------------------------------------------
launches=200000
traced CUPTITRACE_MAX_MEMORY=2M CUPTITRACE_FORMAT=json,native CUPTITRACE_OUTPUT="$out/spilled" \
  "$bin" "$launches" >"$out/spilled.out" 2>"$out/spilled.err"
rc=$?
echo "== spilled run: exit $rc; stderr:"
cat "$out/spilled.err"
python3 - "$out/spilled" "$((launches + 1000))" "$rc" <<'PY'
import json, os, sys
prefix, want, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fails = 0
def check(name, ok, detail):
    global fails
    print(f"{'ok  ' if ok else 'FAIL'} spilled: {name}: {detail}")
    fails += 0 if ok else 1
check("exit status", rc == 0, f"exit {rc}")
try:
    doc = json.load(open(prefix + ".json"))
except Exception as e:
    check("JSON readable", False, repr(e)); sys.exit(1)
events = doc["traceEvents"]
kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
api = {e.get("args", {}).get("correlation") for e in events
       if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver")}
linked = sum(1 for k in kernels if k.get("args", {}).get("correlation") in api)
meta = doc.get("metadata", {})
counters = meta.get("counters", {})
check("kernels", len(kernels) == want, f"expected {want}, written {len(kernels)}")
check("launch_calls", linked == want, f"expected {want}, kernels with their launch call {linked}")
check("metadata.dropped_records == 0", meta.get("dropped_records") == 0, f"dropped_records = {meta.get('dropped_records')}")
check("spilled past the cap", counters.get("spill.chunks", 0) > 0,
      f"spill.chunks = {counters.get('spill.chunks')}, spill.bytes = {counters.get('spill.bytes')}")
check("journal deleted", not os.path.exists(prefix + ".spill"), prefix + ".spill")
check("native written", os.path.getsize(prefix + ".native") > 0 if os.path.exists(prefix + ".native") else False,
      prefix + ".native")
sys.exit(1 if fails else 0)
PY
report $?

# ---- 2. killed runs -----------------------------------------------------------------
kill_and_recover() {  # name, extra env...
  local name=$1
  shift
  local prefix=$out/$name
  traced CUPTITRACE_FORMAT=json CUPTITRACE_OUTPUT="$prefix" "$@" "$bin" 20000000 \
    >"$prefix.out" 2>"$prefix.err" &
  local pid=$!
  # Killed once the journal holds a few chunks: mid-run, as a scheduler would.
  local waited=0
  while [ "$waited" -lt 600 ]; do
    size=$(stat -c %s "$prefix.spill" 2>/dev/null || echo 0)
    [ "$size" -gt $((8 << 20)) ] && break
    sleep 0.1
    waited=$((waited + 1))
  done
  sleep 0.5
  kill -KILL "$pid" 2>/dev/null
  wait "$pid"
  local rc=$?
  echo "== $name: killed (exit $rc) with a journal of $(stat -c %s "$prefix.spill" 2>/dev/null || echo no) bytes"
  "$cli" recover "$prefix.spill" -o "$prefix.recovered" >"$prefix.recover.out" 2>"$prefix.recover.err"
  local rrc=$?
  cat "$prefix.recover.err"
  "$cli" convert "$prefix.recovered.native" --to json -o "$prefix.reconverted" >/dev/null 2>"$prefix.convert.err"
  local crc=$?
  python3 - "$prefix" "$rc" "$rrc" "$crc" "$name" <<'PY'
import json, os, sys
prefix, rc, rrc, crc, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
fails = 0
def check(what, ok, detail):
    global fails
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {what}: {detail}")
    fails += 0 if ok else 1
check("killed by SIGKILL", rc == 137, f"exit {rc}")
check("no trace written by the killed run", not os.path.exists(prefix + ".json"), prefix + ".json")
check("cuptitrace recover", rrc == 0, f"exit {rrc}")
check("cuptitrace convert of the recovered native trace", crc == 0, f"exit {crc}")
counts = {}
for label, path in (("recovered", prefix + ".recovered.json"), ("reconverted", prefix + ".reconverted.json")):
    try:
        doc = json.load(open(path))
    except Exception as e:
        check(f"{label} JSON readable", False, repr(e)); continue
    events = doc["traceEvents"]
    kernels = sum(1 for e in events if e.get("ph") == "X" and e.get("cat") == "kernel")
    meta = doc.get("metadata", {})
    records = meta.get("records", {})
    counters = meta.get("counters", {})
    counts[label] = (kernels, records.get("api"))
    # Only whole chunks reach the journal; the killed process held the rest.
    check(f"{label}: kernels in whole chunks", kernels > 0 and kernels % 4096 == 0 and kernels == records.get("kernel"),
          f"kernels {kernels}, metadata.records.kernel {records.get('kernel')}")
    check(f"{label}: API calls in whole chunks", records.get("api", 0) > 0 and records.get("api", 0) % 4096 == 0,
          f"metadata.records.api {records.get('api')}")
    check(f"{label}: marked recovered", counters.get("recovered") == 1,
          f"recovered = {counters.get('recovered')}, bytes_ignored = {counters.get('recovered.bytes_ignored')}")
if len(counts) == 2:
    check("native and JSON agree", counts["recovered"] == counts["reconverted"], str(counts))
sys.exit(1 if fails else 0)
PY
  report $?
}
kill_and_recover killed-always CUPTITRACE_SPILL=always
kill_and_recover killed-auto CUPTITRACE_SPILL=auto CUPTITRACE_MAX_MEMORY=2M

echo "spill_recover: $failures failed"
[ "$failures" -eq 0 ]
