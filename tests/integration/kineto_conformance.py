#!/usr/bin/env python3
"""Checks a Chrome JSON trace against what the readers of the PyTorch
profiler's trace (Kineto's JSON) take from it, as Holistic Trace Analysis
documents and Kineto writes it:

- top level: "schemaVersion": 1; "deviceProperties", a list of GPUs with
  id, name, totalGlobalMem, computeMajor, computeMinor and numSms; the rank
  in "distributedInfo", found in the file's text by the regex
  "rank":\\s+(\\d+) (a space after the colon);
- GPU events (cat "kernel", "gpu_memcpy", "gpu_memset") with args.stream,
  args.device and args.correlation; copies named "Memcpy ...", sets "Memset ...";
  none of our old categories ("memcpy", "memset", "sync");
- correlation pairs: the launching call (cat "cuda_runtime" or "cuda_driver")
  of each GPU event carries the same args.correlation, in the same trace;
- PyTorch's operators as cat "cpu_op" named without PyTorch's appended fields,
  with "External id", "Sequence number" (integers) and "Input Dims" (a list);
- steps as cat "user_annotation" named "ProfilerStep#N", N distinct in a
  process, not overlapping on their track;
- "External id", never "external_id".

Usage: kineto_conformance.py FILE [--rank N | --no-rank] [--steps] [--cpu-ops]
       [--min-paired FRACTION]
Prints one line per file: "kineto conformance: FILE: ok (...)", or each
failed rule and exits 1.
"""
import argparse
import gzip
import json
import re
import sys
from collections import Counter, defaultdict

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
CALL_CATS = ("cuda_runtime", "cuda_driver")
OLD_CATS = ("memcpy", "memset", "sync")
RANK_RE = re.compile(r'"rank":\s+(\d+)')
STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")
DEVICE_FIELDS = {"id": int, "name": str, "totalGlobalMem": int, "computeMajor": int,
                 "computeMinor": int, "numSms": int}
GPU_PID_BIT = 1 << 30  # our GPU processes' pids: (1 << 30) | (host pid << 6) | device


def trace_finder(doc):
    """pid -> which trace of the file it belongs to. A merged file's metadata
    says where each trace went (shown_pid, gpu_pid_base); in a file of one
    trace a GPU's pid holds its host's."""
    inputs = (doc.get("metadata") or {}).get("inputs")
    if isinstance(inputs, list):
        where = {}
        for i, m in enumerate(inputs):
            where[m.get("shown_pid")] = i
            for d in range(64):
                where[m.get("gpu_pid_base", 0) + d] = i
        return lambda pid: where.get(pid, -1)
    return lambda pid: (pid >> 6) & 0xFFFFF if pid & GPU_PID_BIT else pid & 0xFFFFF


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check(path, args):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        text = f.read()
    doc = json.loads(text)
    bad = []

    def fail(rule, detail):
        bad.append(f"{rule}: {detail}")

    if doc.get("schemaVersion") != 1:
        fail("schemaVersion", f"is {doc.get('schemaVersion')!r}, not 1")

    match = RANK_RE.search(text)
    if args.rank is not None:
        if not match or int(match.group(1)) != args.rank:
            fail("rank", f"regex finds {match.group(1) if match else 'nothing'}, not {args.rank}")
        if (doc.get("distributedInfo") or {}).get("rank") != args.rank:
            fail("rank", f"distributedInfo is {doc.get('distributedInfo')!r}")
    if args.no_rank and match:
        fail("rank", f"a file of several ranks says rank {match.group(1)}")

    devices = doc.get("deviceProperties")
    device_ids = set()
    if not isinstance(devices, list) or not devices:
        fail("deviceProperties", "missing or empty")
    else:
        for d in devices:
            for key, kind in DEVICE_FIELDS.items():
                value = d.get(key)
                if not (is_int(value) if kind is int else isinstance(value, kind)):
                    fail("deviceProperties", f"{key} is {value!r} in {d}")
            device_ids.add(d.get("id"))
        if len(device_ids) != len(devices):
            fail("deviceProperties", "an id twice")

    events = doc.get("traceEvents")
    if not isinstance(events, list):
        fail("traceEvents", "not a list")
        events = []
    cats = Counter(e.get("cat") for e in events if e.get("ph") == "X")
    for old in OLD_CATS:
        if cats.get(old):
            fail("categories", f"{cats[old]} events of the old category {old!r}")

    trace_of = trace_finder(doc)
    calls = defaultdict(int)  # (trace, correlation) -> launching calls
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in CALL_CATS and "correlation" in e.get("args", {}):
            calls[(trace_of(e["pid"]), e["args"]["correlation"])] += 1

    gpu = paired = 0
    for e in events:
        a = e.get("args", {})
        if "external_id" in a:
            fail("External id", f"{e.get('name')!r} says external_id")
        if e.get("ph") != "X":
            continue
        if not isinstance(e.get("ts"), (int, float)) or not isinstance(e.get("dur"), (int, float)) \
                or e["dur"] < 0:
            fail("times", f"{e.get('name')!r}: ts {e.get('ts')!r} dur {e.get('dur')!r}")
        cat = e.get("cat")
        if cat in GPU_CATS:
            gpu += 1
            for key in ("stream", "device", "correlation"):
                if not is_int(a.get(key)):
                    fail("GPU args", f"{cat} {e.get('name')!r} has no integer {key}")
            if device_ids and a.get("device") not in device_ids:
                fail("GPU args", f"device {a.get('device')} not in deviceProperties")
            prefix = {"gpu_memcpy": "Memcpy", "gpu_memset": "Memset"}.get(cat)
            if prefix and not str(e.get("name", "")).startswith(prefix):
                fail("GPU names", f"{cat} named {e.get('name')!r}")
            if calls.get((trace_of(e["pid"]), a.get("correlation"))):
                paired += 1
        elif cat == "cpu_op":
            name = str(e.get("name", ""))
            if ", seq = " in name or ", op_id = " in name or ", sizes = " in name:
                fail("cpu_op", f"name keeps PyTorch's fields: {name!r}")
            for key in ("External id", "Sequence number"):
                if key in a and not is_int(a[key]):
                    fail("cpu_op", f"{key} is {a[key]!r}")
            if "Input Dims" in a and not isinstance(a["Input Dims"], (list, str)):
                fail("cpu_op", f"Input Dims is {a['Input Dims']!r}")

    steps = [e for e in events if e.get("ph") == "X" and e.get("cat") == "user_annotation"
             and str(e.get("name", "")).startswith("ProfilerStep")]
    numbers = defaultdict(list)
    tracks = defaultdict(list)
    for s in steps:
        m = STEP_RE.match(s["name"])
        if not m:
            fail("ProfilerStep", f"named {s['name']!r}")
            continue
        numbers[s["pid"]].append(int(m.group(1)))
        tracks[(s["pid"], s["tid"])].append((s["ts"], s["ts"] + s["dur"]))
    for pid, ns in numbers.items():
        if len(set(ns)) != len(ns):
            fail("ProfilerStep", f"a number twice in process {pid}")
    for track, spans in tracks.items():
        spans.sort()
        for (s0, e0), (s1, _) in zip(spans, spans[1:]):
            if s1 < e0 - 1e-3:
                fail("ProfilerStep", f"steps overlap on {track}")

    if gpu == 0:
        fail("GPU events", "none")
    elif paired < args.min_paired * gpu:
        fail("correlation", f"{paired} of {gpu} GPU events have their launching call")
    if args.steps and not steps:
        fail("ProfilerStep", "no ProfilerStep#N")
    if args.cpu_ops and not cats.get("cpu_op"):
        fail("cpu_op", "no PyTorch operator")

    if bad:
        for line in sorted(set(bad))[:40]:
            print(f"kineto conformance: {path}: {line}")
        return False
    print(f"kineto conformance: {path}: ok ({gpu} GPU events, {paired} paired, "
          f"{cats.get('cpu_op', 0)} cpu_op, {len(steps)} steps, rank "
          f"{match.group(1) if match else 'none'})")
    return True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--rank", type=int)
    p.add_argument("--no-rank", action="store_true")
    p.add_argument("--steps", action="store_true")
    p.add_argument("--cpu-ops", action="store_true")
    p.add_argument("--min-paired", type=float, default=1.0)
    return 0 if check(p.parse_args().file, p.parse_args()) else 1


if __name__ == "__main__":
    sys.exit(main())
