#!/usr/bin/env bash
# One process on two GPUs (samples/peer_copy.cu): each device's work in its own
# GPU process, the two peer copies as PtoP with their source and destination
# devices, on the stream of the device that ran them, and an arrow from every
# launching call to its work on either device.
#   peer_copy.sh PEER_COPY LIBCUPTITRACE OUTDIR
# Exits 77 with fewer than two GPUs, 1 when a check failed.
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 PEER_COPY LIBCUPTITRACE OUTDIR" >&2
  exit 2
fi
sample=$1 lib=$2 out=$3
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "${gpus:-0}" -lt 2 ]; then
  echo "peer_copy: ${gpus:-0} GPU(s) here, two needed: skipped"
  exit 77
fi
mkdir -p "$out" && rm -f "$out"/peer.*
env CUDA_INJECTION64_PATH="$lib" CUPTITRACE_FORMAT=json,csv CUPTITRACE_SUMMARY=none \
    CUPTITRACE_OUTPUT="$out/peer" "$sample" >"$out/peer.out" 2>"$out/peer.err"
rc=$?
[ $rc -eq 77 ] && { cat "$out/peer.out"; exit 77; }
[ $rc -eq 0 ] || { cat "$out/peer.out" "$out/peer.err"; echo "FAIL peer_copy: the sample exited $rc"; exit 1; }
python3 - "$out/peer.json" <<'PY'
import json, sys
from collections import Counter
events = json.load(open(sys.argv[1]))["traceEvents"]
failures = 0
def check(what, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + f"peer_copy: {what}" + (f" ({detail})" if detail else ""))
    failures += not ok
names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
gpu_pid = {}
for pid, name in names.items():
    if name.startswith("GPU "):
        gpu_pid[int(name[4:name.index(":")] if ":" in name else name[4:])] = pid
print("processes:", sorted(names.values()))
check("a GPU process for each of the two devices", {0, 1} <= set(gpu_pid), gpu_pid)
kernels = Counter(e["pid"] for e in events if e.get("ph") == "X" and e.get("cat") == "kernel")
check("two kernels on each device", all(kernels.get(gpu_pid.get(d), 0) == 2 for d in (0, 1)), dict(kernels))
peers = [e for e in events if e.get("ph") == "X" and e.get("cat") == "gpu_memcpy" and e["args"].get("copy_kind") == "PtoP"]
check("two PtoP copies", len(peers) == 2, [e["name"] for e in peers])
pairs = sorted((e["args"].get("src_device"), e["args"].get("dst_device")) for e in peers)
check("one copy each way, with source and destination devices", pairs == [(0, 1), (1, 0)], pairs)
for e in peers:
    # CUPTI puts a peer copy on the device that ran it: either end is right, never a third.
    on = [d for d, p in gpu_pid.items() if p == e["pid"]]
    check(f"the copy {e['args'].get('src_device')}->{e['args'].get('dst_device')} sits on one of its devices",
          on and on[0] in (e["args"].get("src_device"), e["args"].get("dst_device")), names.get(e["pid"]))
outs = {e["bind_id"]: e for e in events if e.get("flow_out") and "bind_id" in e}
ins = {e["bind_id"]: e for e in events if e.get("flow_in") and "bind_id" in e}
gpu_work = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy") and e["pid"] in gpu_pid.values()]
linked = [e for e in gpu_work if e.get("flow_in") and e.get("bind_id") in outs]
check("an arrow to every kernel and copy, on both devices", len(linked) == len(gpu_work) and
      {e["pid"] for e in linked} == set(gpu_pid.values()), f"{len(linked)} of {len(gpu_work)}")
sys.exit(1 if failures else 0)
PY
