#!/usr/bin/env bash
# Two processes traced at once (vector_add and multi_stream), their native
# traces merged into one timeline (JSON and Perfetto protobuf), the JSON parsed:
# both host processes and both processes' GPU tracks present, every kernel of
# each input kept, flow ids unique, each input's clock offset recorded.
#   merge.sh SAMPLES_DIR LIBCUPTITRACE CUPTITRACE_CLI OUTDIR
# Exits 77 without a GPU, 1 when a check failed.
set -u
if [ $# -ne 4 ]; then
  echo "usage: $0 SAMPLES_DIR LIBCUPTITRACE CUPTITRACE_CLI OUTDIR" >&2
  exit 2
fi
samples=$1 lib=$2 cli=$3 out=$4
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "merge: no GPU here: skipped"
  exit 77
fi
mkdir -p "$out" && rm -f "$out"/a.* "$out"/b.* "$out"/merged.*
traced() {  # PREFIX PROGRAM...
  local prefix=$1; shift
  env CUDA_INJECTION64_PATH="$lib" CUPTITRACE_FORMAT=native,json CUPTITRACE_SUMMARY=none \
      CUPTITRACE_QUIET=1 CUPTITRACE_OUTPUT="$prefix" "$@"
}
traced "$out/a" "$samples/vector_add" >"$out/a.out" 2>&1 &
pa=$!
traced "$out/b" "$samples/multi_stream" >"$out/b.out" 2>&1 &
pb=$!
wait $pa || { echo "FAIL merge: vector_add exited $?"; cat "$out/a.out"; exit 1; }
wait $pb || { echo "FAIL merge: multi_stream exited $?"; cat "$out/b.out"; exit 1; }
"$cli" merge "$out/a.native" "$out/b.native" -o "$out/merged.json" || { echo "FAIL merge: merge to JSON"; exit 1; }
"$cli" merge "$out/a.native" "$out/b.native" -o "$out/merged.pftrace" || { echo "FAIL merge: merge to pftrace"; exit 1; }
[ -s "$out/merged.pftrace" ] || { echo "FAIL merge: empty merged.pftrace"; exit 1; }
python3 - "$out" <<'PY'
import json, sys
from collections import Counter
out = sys.argv[1]
def kernels(path):
    events = json.load(open(path))["traceEvents"]
    return sum(1 for e in events if e.get("cat") == "kernel" and e.get("ph") == "X")
merged = json.load(open(f"{out}/merged.json"))
events = merged["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
failures = 0
def check(what, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + f"merge: {what}" + (f" ({detail})" if detail else ""))
    failures += not ok
hosts = [n for n in names.values() if not n.startswith("GPU")]
gpus = [n for n in names.values() if n.startswith("GPU")]
print("processes in the merged trace:")
for pid, name in sorted(names.items()):
    print(f"  pid {pid}: {name}")
check("two host processes", len(hosts) == 2, hosts)
check("a GPU process per input", len(gpus) >= 2, gpus)
k_merged = Counter(e["pid"] for e in events if e.get("cat") == "kernel" and e.get("ph") == "X")
ka, kb = kernels(f"{out}/a.json"), kernels(f"{out}/b.json")
check("every kernel of both inputs", sum(k_merged.values()) == ka + kb, f"{sum(k_merged.values())} vs {ka}+{kb}")
check("kernels on two GPU processes", len(k_merged) == 2, dict(k_merged))
# Flows are v2: the launching call has flow_out and the GPU work flow_in, one bind_id.
outs = Counter(e["bind_id"] for e in events if e.get("flow_out") and "bind_id" in e)
ins = Counter(e["bind_id"] for e in events if e.get("flow_in") and "bind_id" in e)
check("flow ids unique across processes", bool(outs) and max(outs.values()) == 1, f"{len(outs)} flows")
check("every arrow has its launching call", set(ins) <= set(outs), f"{len(set(ins) - set(outs))} without")
flow_pids = {}
for e in events:
    if e.get("flow_out") and "bind_id" in e:
        flow_pids[e["bind_id"]] = e["pid"]
check("arrows start in both host processes", len(set(flow_pids.values())) == 2, Counter(flow_pids.values()))
inputs = merged.get("metadata", {}).get("inputs", [])
check("each input listed with its clock offset", len(inputs) == 2 and all("offset_ns" in str(i) or "offset" in json.dumps(i) for i in inputs), json.dumps(inputs)[:300])
sys.exit(1 if failures else 0)
PY
