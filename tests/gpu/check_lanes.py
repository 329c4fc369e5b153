#!/usr/bin/env python3
"""Checks the lanes of a traced run of samples/graph_branches (tests/gpu/lanes.sh).

usage: check_lanes.py PREFIX --kernels N [--min-lanes K]

Reads PREFIX.kernels.csv, PREFIX.json and PREFIX.pftrace and checks that:
- every kernel of the CSV is a slice in the JSON and in the .pftrace with the
  very same start and end, to the nanosecond (JSON ts/dur are microseconds
  with 3 decimals, read as decimals; the .pftrace is decoded here);
- no slice was clamped (clamped_slices 0 in both), the kernels of one stream
  use at least K lanes (the graph's branches run at once), and no two slices
  on one JSON track partially overlap;
- every kernel has its arrow from its cudaGraphLaunch in both formats (one
  source, many ends);
- with TRACE_PROCESSOR set to Perfetto's trace_processor_shell: both files
  import with no error or data-loss stat (clock_sync_unrelatable_clock_domains
  and the like).
Prints the lanes and clamped slices of each format; exits 0 when all hold.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal


# ---- A minimal .pftrace reader: the fields cuptitrace writes (PERFETTO.md) ----

def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def fields(buf):
    """(field, wire type, value) of a message: ints for varint/fixed64, bytes else."""
    i, out = 0, []
    while i < len(buf):
        key, i = varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 1:
            value = int.from_bytes(buf[i:i + 8], "little")
            i += 8
        elif wire == 2:
            n, i = varint(buf, i)
            value = buf[i:i + n]
            i += n
        elif wire == 5:
            value = int.from_bytes(buf[i:i + 4], "little")
            i += 4
        else:
            raise ValueError("wire type %d" % wire)
        out.append((field, wire, value))
    return out


def first(fs, field, default=None):
    for f, _, v in fs:
        if f == field:
            return v
    return default


def read_pftrace(path):
    """Slices as (track uuid, category, correlation, start, end); arrows' ends;
    the description's arguments; track names by uuid."""
    data = open(path, "rb").read()
    seqs = {}  # id -> {last, track, cats, names}
    open_by_track = defaultdict(list)
    slices, names, description = [], {}, {}
    flow_ends = defaultdict(int)  # flow id -> terminations seen
    flow_starts = defaultdict(int)
    ends_per_correlation = defaultdict(int)
    for field, _, packet in fields(data):
        if field != 1:
            continue
        p = fields(packet)
        sid = first(p, 10, 0)
        s = seqs.setdefault(sid, {"last": 0, "track": 0, "cats": {}, "names": {}})
        snapshot = first(p, 6)
        if snapshot is not None:
            for f, _, clock in fields(snapshot):
                c = fields(clock) if f == 1 else []
                if first(c, 1) == 64:
                    s["last"] = first(c, 2, 0)
        defaults = first(p, 59)
        if defaults is not None:
            ted = first(fields(defaults), 11)
            if ted is not None:
                s["track"] = first(fields(ted), 11, 0)
        interned = first(p, 12)
        if interned is not None:
            for f, _, entry in fields(interned):
                e = fields(entry)
                if f == 1:
                    s["cats"][first(e, 1)] = first(e, 2, b"").decode()
                elif f == 3:
                    s["names"][first(e, 1)] = first(e, 2, b"").decode()
        ts = first(p, 8)
        if ts is not None:
            s["last"] += ts
        td = first(p, 60)
        if td is not None:
            t = fields(td)
            name = first(t, 2)
            thread = first(t, 4)
            if name is None and thread is not None:
                name = first(fields(thread), 5)
            names[first(t, 1)] = (name or b"").decode()
        te = first(p, 11)
        if te is None:
            continue
        t = fields(te)
        track = first(t, 11, s["track"])
        kind = first(t, 9)
        args = {}
        for f, _, a in t:
            if f == 4:
                af = fields(a)
                key = s["names"].get(first(af, 1), first(af, 10, b"").decode() if first(af, 10) else "")
                args[key] = first(af, 3, first(af, 4, first(af, 6)))
        cats = [s["cats"].get(v, "?") for f, _, v in t if f == 3]
        for f, _, v in t:
            if f in (36, 47):
                flow_starts[v] += 1
        terminating = [v for f, _, v in t if f in (42, 48)]
        if kind == 1:
            open_by_track[track].append((s["last"], cats, args, terminating))
        elif kind == 2:
            start, cats0, args0, term0 = open_by_track[track].pop()
            slices.append((track, cats0[0] if cats0 else "", args0.get("correlation"), start, s["last"],
                           len(term0)))
        elif kind == 3 and "clamped_slices" in args:
            description = args
    return slices, names, description, flow_starts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("--kernels", type=int, required=True)
    ap.add_argument("--min-lanes", type=int, default=2)
    a = ap.parse_args()
    problems = []

    with open(a.prefix + ".kernels.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    csv_kernels = sorted((int(r["correlation_id"]), int(r["start_ns"]), int(r["end_ns"])) for r in rows)
    if len(csv_kernels) != a.kernels:
        problems.append("kernels.csv: %d kernels, expected %d" % (len(csv_kernels), a.kernels))

    # ---- JSON
    doc = json.load(open(a.prefix + ".json", encoding="utf-8"), parse_float=Decimal)
    meta = doc["metadata"]
    base = int(meta["base_timestamp_ns"])
    ns = lambda micros: int(Decimal(micros) * 1000)  # exact: 3 decimals
    events = doc["traceEvents"]
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    json_kernels = sorted((int(e["args"]["correlation"]), base + ns(e["ts"]), base + ns(e["ts"]) + ns(e["dur"]))
                          for e in kernels)
    if json_kernels != csv_kernels:
        diff = sorted(set(json_kernels) ^ set(csv_kernels))[:5]
        problems.append("JSON kernels differ from the CSV's (first differences: %s)" % diff)
    tids = {(e["pid"], e["tid"]) for e in kernels}
    by_track = defaultdict(list)
    for e in events:
        if e.get("ph") == "X":
            by_track[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
    for key, spans in by_track.items():
        spans.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for start, end in spans:
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and end > stack[-1]:
                problems.append("JSON track %s: a slice at %d partially overlaps another" % (key, start))
                break
            stack.append(end)
    sources = {e["bind_id"] for e in events if e.get("flow_out")}
    without = sum(1 for e in kernels if not (e.get("flow_in") and e.get("bind_id") in sources))
    if without:
        problems.append("JSON: %d kernels without an arrow from their launch" % without)
    print("json: %d kernels on %d tracks; lanes: max_lanes=%s lane_tracks=%s clamped_slices=%s"
          % (len(kernels), len(tids), meta.get("max_lanes"), meta.get("lane_tracks"), meta.get("clamped_slices")))
    if meta.get("clamped_slices") != 0:
        problems.append("JSON: clamped_slices %s" % meta.get("clamped_slices"))
    # The branches run at once: on that many tracks at least, lanes of one
    # stream or streams of their own (CUDA 13.0's CUPTI reports a graph's
    # branches on streams of their own; then no lane is needed).
    if len(tids) < a.min_lanes:
        problems.append("JSON: %s lanes, %d kernel tracks; expected at least %d tracks"
                        % (meta.get("max_lanes"), len(tids), a.min_lanes))
    elif (meta.get("max_lanes") or 0) < 2:
        print("json: the branches ran on %d streams of their own: no lane was needed" % len(tids))

    # ---- .pftrace
    slices, names, description, flow_starts = read_pftrace(a.prefix + ".pftrace")
    pk = [s for s in slices if s[1] == "kernel"]
    pf_kernels = sorted((s[2], s[3], s[4]) for s in pk)
    if pf_kernels != csv_kernels:
        diff = sorted(set(pf_kernels) ^ set(csv_kernels))[:5]
        problems.append(".pftrace kernels differ from the CSV's (first differences: %s)" % diff)
    tracks = {s[0] for s in pk}
    arrows = sum(s[5] for s in pk)
    if arrows != len(pk):
        problems.append(".pftrace: %d of %d kernels end an arrow" % (arrows, len(pk)))
    print("pftrace: %d kernels on %d tracks (%s); lanes: max_lanes=%s lane_tracks=%s clamped_slices=%s; "
          "%d arrows from %d flow starts"
          % (len(pk), len(tracks), ", ".join(sorted(names.get(t, "?") for t in tracks)),
             description.get("max_lanes"), description.get("lane_tracks"), description.get("clamped_slices"),
             arrows, sum(flow_starts.values())))
    if description.get("clamped_slices") != 0:
        problems.append(".pftrace: clamped_slices %s" % description.get("clamped_slices"))
    if len(tracks) < a.min_lanes:
        problems.append(".pftrace: kernels on %d tracks, expected at least %d" % (len(tracks), a.min_lanes))

    # ---- Perfetto's importer, when at hand
    tp = os.environ.get("TRACE_PROCESSOR")
    if tp:
        query = ("select 'ERRORS=' || count(*) || ' ' || ifnull(group_concat(name || ':' || value, ' '), '') "
                 "from stats where value > 0 and severity in ('error', 'data_loss')")
        for path in (a.prefix + ".json", a.prefix + ".pftrace"):
            done = subprocess.run([tp, "-Q", query, path], capture_output=True, text=True)
            m = re.search(r"ERRORS=(\d+)([^\"\n]*)", done.stdout)
            if done.returncode != 0 or not m:
                problems.append("%s: trace processor failed: %s" % (path, (done.stderr or done.stdout)[-300:]))
                continue
            print("trace processor, %s: %s error stats %s" % (os.path.basename(path), m.group(1), m.group(2).strip()))
            if m.group(1) != "0":
                problems.append("%s: error stats in Perfetto's importer: %s" % (path, m.group(2).strip()))
    else:
        print("trace processor: not run (set TRACE_PROCESSOR=/path/to/trace_processor_shell)")

    for p in problems:
        print("FAIL " + p)
    print("PASS lanes" if not problems else "FAIL lanes: %d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
