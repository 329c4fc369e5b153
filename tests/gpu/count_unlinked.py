#!/usr/bin/env python3
"""Counts the GPU activities of a cuptitrace JSON trace that have no arrow from
a launching call: kernels, copies and sets without flow_in, and, among those,
the ones whose correlation id is 0 (launched on the device, no host call).

usage: count_unlinked.py TRACE.json
Prints `unlinked=N host_unlinked=H device_launched=D gpu=M api_calls="..."` and a
few examples; exits 1 when a host-launched activity has no arrow or there is no
GPU activity at all, else 0. Python standard library only."""
import json
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    gpu = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") in GPU_CATS]
    unlinked = [e for e in gpu if not e.get("flow_in")]
    device = [e for e in unlinked if (e.get("args") or {}).get("correlation", 0) == 0]
    host = [e for e in unlinked if e not in device]
    api_calls = doc.get("metadata", {}).get("api_calls", "")
    print(f"unlinked={len(unlinked)} host_unlinked={len(host)} device_launched={len(device)} "
          f"gpu={len(gpu)} api_calls=\"{api_calls}\"")
    for e in host[:3]:
        print(f"  e.g. {e.get('cat')} '{e.get('name')}' correlation {(e.get('args') or {}).get('correlation')}")
    return 1 if host or not gpu else 0


if __name__ == "__main__":
    sys.exit(main())
