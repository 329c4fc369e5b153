#!/usr/bin/env python3
"""Checks the arrows to the bodies of a while node in a cuptitrace JSON trace
of samples/graph_while: every kernel has exactly one arrow, from a
cudaGraphLaunch (or cuGraphLaunch) call; each of the launches is the source
of the same number of kernels, all starting after its call and before the
next launch's call.

usage: check_graph_while.py TRACE.json --kernels N --launches L
Prints `kernels=N linked=K launches=L per_launch=[...]`, then PASS or FAIL
lines; exits 1 on any failure. Python standard library only."""
import argparse
import json
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("trace")
    p.add_argument("--kernels", type=int, required=True)
    p.add_argument("--launches", type=int, required=True)
    a = p.parse_args()
    with open(a.trace, encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    sources = {}  # bind_id -> (call name, call start)
    for e in events:
        if e.get("flow_out"):
            sources[e["bind_id"]] = (e.get("name", ""), e["ts"])
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    per_call = {}  # call start -> kernel starts
    failures = []
    for k in kernels:
        if not k.get("flow_in") or k.get("bind_id") not in sources:
            failures.append(f"kernel '{k.get('name')}' at {k['ts']} us has no arrow")
            continue
        name, at = sources[k["bind_id"]]
        if "GraphLaunch" not in name:
            failures.append(f"kernel '{k.get('name')}' at {k['ts']} us has its arrow from {name}")
        per_call.setdefault(at, []).append(k["ts"])
    calls = sorted(per_call)
    for i, at in enumerate(calls):
        after = calls[i + 1] if i + 1 < len(calls) else float("inf")
        if any(t < at or t > after for t in per_call[at]):
            failures.append(f"the launch called at {at} us is given a kernel outside [its call, the next call]")
    counts = [len(per_call[at]) for at in calls]
    linked = sum(counts)
    print(f"kernels={len(kernels)} linked={linked} launches={len(calls)} per_launch={counts}")
    if len(kernels) != a.kernels:
        failures.append(f"{len(kernels)} kernels in the trace, the sample ran {a.kernels}")
    if len(calls) != a.launches or len(set(counts)) > 1:
        failures.append(f"expected {a.launches} launches with {a.kernels // max(a.launches, 1)} kernels each")
    for f in failures[:10]:
        print("FAIL " + f)
    if not failures:
        print("PASS every body kernel of the while node has its arrow from its launch")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
