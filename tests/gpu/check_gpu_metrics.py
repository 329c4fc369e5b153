#!/usr/bin/env python3
"""Checks a traced run of samples/gpu_metrics_kernels (tests/gpu/gpu_metrics.sh).

usage: check_gpu_metrics.py PREFIX --report REPORT.json --interval-ns N

Reads PREFIX.json, PREFIX.pftrace, PREFIX.sqlite and the gpu_metrics report
(`cuptitrace stats --report gpu_metrics --format json`) and checks that:
- each of the four measured kernels lands in its class: stream_copy
  memory-bound, fma_loop and mma_loop compute-bound, sleep_kernel
  latency-bound (the report's rows are printed, with the copy's DRAM share);
- the JSON and the .pftrace hold the same counter tracks (names as Nsight
  Systems gives them: "SMs Active [Throughput %]", ...) with the same number
  of points each, about one per interval over the span sampled, and the
  SQLite's GPU_METRICS and TARGET_INFO_GPU_METRICS hold them too;
- the samples line up with the kernels' clock: samples wholly inside a
  kernel show SMs active, samples wholly in the idle time between kernels
  do not, and each kernel's first active sample starts within one interval
  of the kernel's start;
- with TRACE_PROCESSOR set to Perfetto's trace_processor_shell: both files
  import, and its counter table has the same tracks and points.
Exits 0 when all hold.
"""
import argparse
import json
import os
import sqlite3
import struct
import subprocess
import sys
from collections import defaultdict

KERNELS = {"stream_copy": "memory-bound", "fma_loop": "compute-bound", "mma_loop": "compute-bound",
           "sleep_kernel": "latency-bound"}
SM_ACTIVE = "SMs Active [Throughput %]"


# ---- A minimal .pftrace reader for counter tracks (PERFETTO.md) ----

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
    i, out = 0, []
    while i < len(buf):
        key, i = varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 1:
            value = buf[i:i + 8]
            i += 8
        elif wire == 2:
            n, i = varint(buf, i)
            value = buf[i:i + n]
            i += n
        elif wire == 5:
            value = buf[i:i + 4]
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


def read_pftrace_counters(path):
    """{track name: [(ts, value)]} of the counter tracks, ts on the trace clock."""
    data = open(path, "rb").read()
    clocks = {}  # sequence id -> its incremental clock's last value
    names, counter_tracks = {}, set()
    points = defaultdict(list)
    for field, _, packet in fields(data):
        if field != 1:
            continue
        p = fields(packet)
        sid = first(p, 10, 0)
        snapshot = first(p, 6)
        if snapshot is not None:
            for f, _, clock in fields(snapshot):
                c = fields(clock) if f == 1 else []
                if first(c, 1) == 64:
                    clocks[sid] = first(c, 2, 0)
        ts = first(p, 8)
        if ts is not None and sid in clocks:
            clocks[sid] += ts
        td = first(p, 60)
        if td is not None:
            t = fields(td)
            names[first(t, 1)] = (first(t, 2) or b"").decode()
            if first(t, 8) is not None:
                counter_tracks.add(first(t, 1))
        te = first(p, 11)
        if te is None:
            continue
        t = fields(te)
        if first(t, 9) != 4:  # TYPE_COUNTER
            continue
        track = first(t, 11)
        raw = first(t, 44)
        value = struct.unpack("<d", raw)[0] if raw is not None else float(first(t, 30, 0))
        points[track].append((clocks.get(sid, 0), value))
    out = {}
    for track, pts in points.items():
        if track not in counter_tracks:
            raise ValueError("counter event on a track with no CounterDescriptor: %s" % track)
        out[names.get(track, str(track))] = pts
    return out


def read_json(path):
    doc = json.load(open(path))
    base = doc["metadata"]["base_timestamp_ns"]
    points = defaultdict(list)
    kernels = []
    for e in doc["traceEvents"]:
        if e.get("ph") == "C" and e.get("cat") == "gpu_metrics":
            (key, value), = e["args"].items()
            points[e["name"] + " " + key].append((base + round(e["ts"] * 1000), value))
        elif e.get("ph") == "X" and e.get("cat") == "kernel":
            kernels.append((e["name"], base + round(e["ts"] * 1000), base + round((e["ts"] + e["dur"]) * 1000)))
    return points, kernels, doc["metadata"]


def short_name(demangled):
    """stream_copy from "stream_copy(float4 const*, float4*, unsigned long, int)"."""
    return demangled.split("(")[0].split("::")[-1].split(" ")[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("--report", required=True)
    ap.add_argument("--interval-ns", type=int, default=100_000)
    a = ap.parse_args()
    problems = []
    interval = a.interval_ns

    # 1. The verdicts.
    report = json.load(open(a.report))["reports"][0]
    rows = {short_name(r["name"]): r for r in report["rows"]}
    print("gpu_metrics report:")
    for r in report["rows"]:
        print("  %-14s sampled %5.1f%%  SMs Active %5.1f  SM Issue %5.1f  Tensor %5.1f  DRAM %5.1f  -> %s" % (
            r["name"][:14], r.get("sampled_pct") or 0, r.get("sm_active_pct") or 0, r.get("sm_issue_pct") or 0,
            r.get("tensor_active_pct") or 0, r.get("dram_pct") or 0, r["verdict"]))
    for name, want in KERNELS.items():
        got = rows.get(name, {}).get("verdict")
        if got != want:
            problems.append("%s: verdict %s, want %s" % (name, got, want))
    if "stream_copy" in rows:
        print("stream_copy uses %.1f%% of DRAM bandwidth (read + write, of peak)" % (rows["stream_copy"]["dram_pct"] or 0))

    # 2. The tracks, in both timeline formats and SQLite.
    jpoints, kernels, meta = read_json(a.prefix + ".json")
    ppoints = read_pftrace_counters(a.prefix + ".pftrace")
    ppoints = {k: v for k, v in ppoints.items() if "[" in k}  # GPU metrics (memory counters have no unit in brackets)
    print("counter tracks: JSON %d, .pftrace %d" % (len(jpoints), len(ppoints)))
    for name in sorted(jpoints):
        print("  %-45s JSON %6d  pftrace %6d" % (name, len(jpoints[name]), len(ppoints.get(name, []))))
    if SM_ACTIVE not in jpoints:
        problems.append("no %s track in the JSON" % SM_ACTIVE)
    if set(jpoints) != set(ppoints):
        problems.append("tracks differ: JSON only %s, pftrace only %s" % (sorted(set(jpoints) - set(ppoints)),
                                                                          sorted(set(ppoints) - set(jpoints))))
    for name, pts in jpoints.items():
        if name in ppoints and [t for t, _ in pts] != [t for t, _ in ppoints[name]]:
            problems.append("%s: JSON and pftrace points differ in time" % name)
    counts = {len(v) for v in jpoints.values()}
    if len(counts) != 1:
        problems.append("tracks hold different numbers of points: %s" % sorted(counts))
    sm = sorted(jpoints.get(SM_ACTIVE, []))
    if sm:
        span = sm[-1][0] - sm[0][0] + interval
        expected = span / interval
        print("%d samples over %.1f ms: %.0f expected at one per %d ns" % (len(sm), span / 1e6, expected, interval))
    lost = meta.get("counters", {}).get("gpu_metrics.samples_lost")
    print("metadata: gpu_metrics.samples=%s samples_lost=%s" % (meta.get("counters", {}).get("gpu_metrics.samples"), lost))
    if lost is None:
        problems.append("the metadata does not say how many samples were lost")
    if sm:
        # Nothing lost silently: the samples kept and those counted lost fill the span;
        # most are kept (the decode loses some in bursts: docs/gpu-metrics.md).
        if len(sm) + (lost or 0) < 0.9 * expected:
            problems.append("%d samples and %s counted lost: fewer than 90%% of the %.0f the span holds" %
                            (len(sm), lost, expected))
        if len(sm) < 0.5 * expected:
            problems.append("%d samples, fewer than half of the %.0f the span holds" % (len(sm), expected))
    db = sqlite3.connect(a.prefix + ".sqlite")
    names = dict(db.execute("SELECT metricId, metricName FROM TARGET_INFO_GPU_METRICS"))
    rows_sql = dict(db.execute("SELECT m.metricName, COUNT(*) FROM GPU_METRICS g JOIN TARGET_INFO_GPU_METRICS m "
                               "ON g.typeId = m.typeId AND g.metricId = m.metricId GROUP BY m.metricName"))
    print("SQLite: %d metrics, %d rows" % (len(names), sum(rows_sql.values())))
    for name, pts in jpoints.items():
        if rows_sql.get(name) != len(pts):
            problems.append("SQLite has %s rows of %s, the JSON %d" % (rows_sql.get(name), name, len(pts)))

    # 3. Clock alignment: kernels against SMs Active.
    measured = {}
    for name, start, end in kernels:
        short = short_name(name)
        if short in KERNELS and (short not in measured or end - start > measured[short][1] - measured[short][0]):
            measured[short] = (start, end)
    busy = sorted((s, e) for _, s, e in kernels)
    unjudged = []
    for short, (start, end) in sorted(measured.items(), key=lambda kv: kv[1]):
        inside = [v for t, v in sm if t >= start and t + interval <= end]
        low = [v for v in inside if v < 50]
        first_active = next((t for t, v in sm if t + interval > start and v >= 50), None)
        offset = None if first_active is None else first_active - start
        print("  %-13s %6.1f ms: %5d samples inside, %d below 50%% SMs active; first active sample at %+d ns" % (
            short, (end - start) / 1e6, len(inside), len(low), offset if offset is not None else 0))
        if len(inside) < 0.4 * (end - start) / interval - 2:
            problems.append("%s: %d samples inside, for %.1f ms" % (short, len(inside), (end - start) / 1e6))
        if len(low) > 0.05 * max(1, len(inside)):
            problems.append("%s: %d of %d samples inside show SMs idle" % (short, len(low), len(inside)))
        # The sample that spans the kernel's start, when it was kept (samples are lost in bursts,
        # and counted): it shows the kernel, no earlier than two intervals before it began.
        at_start = next((t for t, _ in sm if t <= start < t + interval), None)
        if at_start is None:
            print("  %-13s no sample kept at its start (lost): alignment judged on the others" % short)
            unjudged.append(short)
        elif offset is None or offset < -2 * interval or offset > interval:
            problems.append("%s: first active sample %s ns from the kernel's start (want within one interval)" %
                            (short, offset))
    # Samples are lost in bursts of a few ms, often at a kernel's start: at least half the
    # kernels must have their starting sample, and those must line up.
    if len(measured) - len(unjudged) < (len(measured) + 1) // 2:
        problems.append("alignment judged on too few kernels: no sample kept at the start of %s" % unjudged)
    idle = [v for t, v in sm
            if all(t + interval + 1_000_000 <= s or t >= e + 1_000_000 for s, e in busy)
            and sm[0][0] + 2 * interval <= t]
    idle_high = [v for v in idle if v > 10]
    print("idle samples (1 ms from any kernel): %d, %d of them above 10%% SMs active" % (len(idle), len(idle_high)))
    if len(idle) < 100:
        problems.append("only %d idle samples between kernels" % len(idle))
    if len(idle_high) > 0.05 * max(1, len(idle)):
        problems.append("%d of %d idle samples show SMs active" % (len(idle_high), len(idle)))

    # 4. Perfetto's own reader, where there is one.
    tp = os.environ.get("TRACE_PROCESSOR")
    if tp:
        for path in (a.prefix + ".json", a.prefix + ".pftrace"):
            q = ("select t.name as name, count(*) as n from counter c join counter_track t on c.track_id = t.id "
                 "group by t.name")
            res = subprocess.run([tp, "-q", "/dev/stdin", path], input=q, capture_output=True, text=True)
            got = {}
            for line in res.stdout.splitlines():
                parts = [x.strip().strip('"') for x in line.split(",")]
                if len(parts) == 2 and parts[1].isdigit():
                    got[parts[0]] = int(parts[1])
            for name, pts in jpoints.items():
                if got.get(name) != len(pts):
                    problems.append("trace processor on %s: %s has %s points, want %d" % (path, name, got.get(name), len(pts)))
            print("trace processor: %s: %d counter tracks" % (os.path.basename(path), len(got)))

    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
