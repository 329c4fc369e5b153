#!/usr/bin/env python3
"""Checks what cuptitrace wrote for one sample run against what the sample launched.

usage: check_trace.py SAMPLE_STDOUT PREFIX [--cuptitrace BIN] [--formats json,csv,native]
                      [--summary FILE] [--sample NAME]

SAMPLE_STDOUT is the traced run's stdout; its last line is the sample's
`EXPECT key=value ...` line. PREFIX is the CUPTITRACE_OUTPUT prefix of that run:
PREFIX.json, PREFIX.{kernels,memcpy,memset,api,nvtx}.csv and PREFIX.native are read.
The native trace is converted back with `BIN convert PREFIX.native --to json|csv -o TMP`
and the converted outputs get the same checks; `BIN stats PREFIX.native --report
gpu_activities --format json` must count the same kernels, copies and sets, and
PREFIX.reports.txt (when written) must hold every report.

Prints one line per check, `ok` or `FAIL`, with expected and written numbers, and
exits 1 when any check fails (2 on bad usage). --summary writes one tab-separated
row per counted key: sample, format, key, expected, written, ok|FAIL.

Python standard library only: this runs on the GPU machine as it is.
"""

import argparse
import bisect
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict

import check_depth
import check_features

GPU_CATS = ("kernel", "memcpy", "memset")
API_CATS = ("cuda_runtime", "cuda_driver")
GRAPH_LAUNCHES = ("cudaGraphLaunch", "cuGraphLaunch")
COPY_KINDS = ("HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP")
MEMORY_KEYS = {"memcpy_pageable": "Pageable", "memcpy_pinned": "Pinned"}
CSV_TABLES = ("kernels", "memcpy", "memset", "api", "nvtx")
NVTX_TYPES = {"nvtx_pushpop": "PushPop", "nvtx_startend": "StartEnd", "nvtx_marks": "Mark"}
# Every EXPECT key this checker understands; others are reported as not checked.
KNOWN_KEYS = (
    {"kernels", "memcpy", "memset", "launch_calls", "threads", "streams", "graph_launches",
     "nvtx_depth", "named_stream", "named_thread"}
    | set(NVTX_TYPES) | set(MEMORY_KEYS) | {"memcpy_" + k for k in COPY_KINDS}
    | check_features.FEATURE_KEYS | check_depth.DEPTH_KEYS)
# Numeric keys, in the order the summary lists them.
COUNT_KEYS = (["kernels", "memcpy", "memset"] + list(NVTX_TYPES) + ["memcpy_" + k for k in COPY_KINDS]
              + list(MEMORY_KEYS) + ["launch_calls", "threads", "streams", "graph_launches", "nvtx_depth"])
# Column names tried, in order, for CSV columns the checker needs.
CSV_COLUMNS = {
    "correlation": ("correlation_id", "correlation"),
    "copy_kind": ("copy_kind",),
    "src_kind": ("src_kind",),
    "dst_kind": ("dst_kind",),
    "type": ("type",),
    "thread": ("thread_id", "tid", "thread"),
    "stream": ("stream_id", "stream"),
    "device": ("device_id", "device"),
    "name": ("name",),
}
SHOW = 3  # examples shown per failed check


class Report:
    """Collects check results; prints each as it comes."""

    def __init__(self, sample):
        self.sample = sample
        self.failures = 0
        self.rows = []  # (format, key, expected, written, status)

    def check(self, fmt, what, ok, detail=""):
        if not ok:
            self.failures += 1
        print(f"{'ok  ' if ok else 'FAIL'} [{fmt}] {what}" + (f": {detail}" if detail else ""))
        return ok

    def note(self, fmt, what):
        print(f"note [{fmt}] {what}")

    def unwritten(self, fmt, expect, keys):
        """Summary rows for counts that could not be read (the reason was already printed)."""
        for key in keys:
            if key in expect:
                self.rows.append((fmt, key, expect[key], "-", "FAIL"))

    def count(self, fmt, key, expected, written, at_least=False):
        """Compares a count; at_least: written >= expected passes."""
        ok = written is not None and (written >= expected if at_least else written == expected)
        op = ">=" if at_least else "=="
        self.rows.append((fmt, key, str(expected), "-" if written is None else str(written),
                          "ok" if ok else "FAIL"))
        return self.check(fmt, key, ok, f"expected {op} {expected}, written {written}")


def read_expect(path):
    """The key=value pairs of the EXPECT line, which must be the last non-empty line."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line.strip() for line in f if line.strip()]
    if not lines or not lines[-1].startswith("EXPECT "):
        last = lines[-1] if lines else "(empty)"
        raise ValueError(f"{path}: the last line is not an EXPECT line: {last!r}")
    expect = {}
    for item in lines[-1].split()[1:]:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{path}: bad EXPECT item {item!r}")
        expect[key] = value
    return expect


def int_value(expect, key):
    try:
        return int(expect[key])
    except ValueError:
        raise ValueError(f"EXPECT {key}={expect[key]!r} is not a whole number") from None


def ns(value):
    """Trace Event microseconds (number or numeric string) -> integer nanoseconds."""
    return round(float(value) * 1000)


def api_base_name(name):
    """cudaGraphLaunch_v10000 / cudaMemcpyAsync_ptsz_v7000 -> cudaGraphLaunch / cudaMemcpyAsync."""
    name = re.sub(r"_v\d+$", "", name or "")
    return re.sub(r"_(ptsz|ptds)$", "", name)


# ---- Chrome Trace Event JSON ------------------------------------------------

class Slice:
    """One X event, times in integer ns."""
    __slots__ = ("event", "cat", "name", "track", "start", "end", "args")

    def __init__(self, event):
        self.event = event
        self.cat = event.get("cat")
        self.name = event.get("name")
        self.track = (event.get("pid"), event.get("tid"))
        self.start = ns(event["ts"])
        self.end = self.start + ns(event["dur"])
        self.args = event.get("args") or {}

    def describe(self):
        return f"{self.cat} '{self.name}' on pid {self.track[0]} tid {self.track[1]} at {self.start} ns"


def check_json(report, fmt, path, expect):
    """All checks on one JSON file; returns {'api': count} for the CSV checks, or None."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        report.check(fmt, "JSON parses", False, str(e))
        report.unwritten(fmt, expect, COUNT_KEYS)
        return None
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        report.check(fmt, "JSON parses", False, "no traceEvents array")
        report.unwritten(fmt, expect, COUNT_KEYS)
        return None
    report.check(fmt, "JSON parses", True, f"{len(events)} events in {path}")

    metadata = doc.get("metadata") if isinstance(doc, dict) else None
    dropped = metadata.get("dropped_records") if isinstance(metadata, dict) else None
    report.check(fmt, "metadata.dropped_records == 0", dropped == 0,
                 f"dropped_records = {dropped}" if dropped is not None else "missing")
    # Records the exporter could not draw (no start, no end, end before start).
    incomplete = metadata.get("incomplete_records") if isinstance(metadata, dict) else None
    if incomplete is not None:
        report.check(fmt, "metadata.incomplete_records == 0", incomplete == 0,
                     f"incomplete_records = {incomplete}")

    # X events: well-formed, non-negative durations.
    slices, bad = [], []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        try:
            s = Slice(e)
        except (KeyError, TypeError, ValueError):
            bad.append(f"no numeric ts/dur: {json.dumps(e)[:160]}")
            continue
        if s.end < s.start:
            bad.append(f"dur < 0: {s.describe()}")
        slices.append(s)
    report.check(fmt, "every X event has ts and dur >= 0", not bad,
                 f"{len(slices)} X events" + (f"; {len(bad)} bad, e.g. {bad[:SHOW]}" if bad else ""))

    by_cat = defaultdict(list)
    for s in slices:
        by_cat[s.cat].append(s)
    gpu = [s for c in GPU_CATS for s in by_cat[c]]
    api = [s for c in API_CATS for s in by_cat[c]]
    phases = Counter((e.get("ph"), e.get("cat")) for e in events if isinstance(e, dict))

    # Counts by category.
    for key, cat in (("kernels", "kernel"), ("memcpy", "memcpy"), ("memset", "memset")):
        if key in expect:
            report.count(fmt, key, int_value(expect, key), len(by_cat[cat]))
    # A start/end range of zero length is one async instant "n" instead of a b/e pair.
    nvtx_written = {"nvtx_pushpop": len(by_cat["nvtx"]),
                    "nvtx_startend": phases[("b", "nvtx")] + phases[("n", "nvtx")],
                    "nvtx_marks": phases[("i", "nvtx")] + phases[("I", "nvtx")]}
    for key, written in nvtx_written.items():
        if key in expect:
            report.count(fmt, key, int_value(expect, key), written)
    check_async_pairs(report, fmt, events)

    # Copies by direction and by host memory kind.
    copies = by_cat["memcpy"]
    for kind in COPY_KINDS:
        key = "memcpy_" + kind
        if key in expect:
            report.count(fmt, key, int_value(expect, key),
                         sum(1 for s in copies if s.args.get("copy_kind") == kind))
    for key, memory in MEMORY_KEYS.items():
        if key in expect:
            report.count(fmt, key, int_value(expect, key),
                         sum(1 for s in copies
                             if memory in (s.args.get("src_kind"), s.args.get("dst_kind"))))

    check_json_links(report, fmt, events, gpu, api, expect)
    check_nesting(report, fmt, slices, expect)
    check_names(report, fmt, events, gpu, api, by_cat["nvtx"], expect)
    check_features.check_json(report, fmt, slices, expect)
    check_depth.check_json(report, fmt, events, slices, expect)
    return {"api": len(api)}


def check_async_pairs(report, fmt, events):
    """Every NVTX async begin has one end with the same (cat, id), and the reverse."""
    opened, closed = Counter(), Counter()
    for e in events:
        if isinstance(e, dict) and e.get("cat") == "nvtx" and e.get("ph") in ("b", "e"):
            key = json.dumps(e.get("id", e.get("id2")), sort_keys=True)
            (opened if e["ph"] == "b" else closed)[key] += 1
    unmatched = (opened - closed) + (closed - opened)
    report.check(fmt, "NVTX async b/e events pair up by id", not unmatched,
                 f"{sum(opened.values())} b, {sum(closed.values())} e"
                 + (f"; unmatched ids {list(unmatched)[:SHOW]}" if unmatched else ""))


def check_json_links(report, fmt, events, gpu, api, expect):
    """Correlation ids and flow arrows from API calls to GPU work."""
    api_by_corr = defaultdict(list)
    for s in api:
        if "correlation" in s.args:
            api_by_corr[s.args["correlation"]].append(s)
    no_corr = [s for s in gpu if "correlation" not in s.args]
    unlinked = [s for s in gpu if "correlation" in s.args and s.args["correlation"] not in api_by_corr]
    report.check(fmt, "every GPU slice's args.correlation matches an API slice", not no_corr and not unlinked,
                 f"{len(gpu)} GPU slices, {len(api)} API slices; "
                 f"{len(no_corr)} without correlation, {len(unlinked)} unmatched"
                 + "".join(f"; e.g. {s.describe()} correlation {s.args.get('correlation')}"
                           for s in (no_corr + unlinked)[:SHOW]))

    # Flows, either encoding: v1 s/t/f events matched by (cat, name, id), the f
    # (or t) inside the GPU slice and the s inside the launching API slice; or
    # v2 bind_id with flow_out on the API slice and flow_in on the GPU slice.
    def flow_key(e):
        return (e.get("cat"), e.get("name"), json.dumps(e.get("id", e.get("id2")), sort_keys=True))

    starts = defaultdict(list)
    ends = defaultdict(list)  # track -> sorted [(ts, key)]
    for e in events:
        if not isinstance(e, dict) or e.get("ph") not in ("s", "t", "f") or "ts" not in e:
            continue
        try:
            ts = ns(e["ts"])
        except (TypeError, ValueError):
            continue
        if e["ph"] == "s":
            starts[flow_key(e)].append(((e.get("pid"), e.get("tid")), ts))
        else:
            ends[(e.get("pid"), e.get("tid"))].append((ts, flow_key(e)))
    for track in ends:
        ends[track].sort()

    def has_flow(g):
        launchers = api_by_corr.get(g.args.get("correlation"), [])
        if g.event.get("bind_id") is not None and g.event.get("flow_in"):
            if any(a.event.get("bind_id") == g.event["bind_id"] and a.event.get("flow_out")
                   for a in launchers):
                return True
        track_ends = ends.get(g.track, [])
        lo = bisect.bisect_left(track_ends, (g.start - 1,))
        for ts, key in track_ends[lo:]:
            if ts > g.end + 1:
                break
            for track, s_ts in starts.get(key, []):
                if any(a.track == track and a.start - 1 <= s_ts <= a.end + 1 for a in launchers):
                    return True
        return False

    no_flow = [g for g in gpu if not has_flow(g)]
    report.check(fmt, "a flow connects every GPU slice to its launching API slice", not no_flow,
                 f"{len(gpu) - len(no_flow)} of {len(gpu)} connected"
                 + "".join(f"; e.g. {g.describe()}" for g in no_flow[:SHOW]))

    # One arrow per launch: where a runtime call and the driver call made inside
    # it share a correlation id, only the runtime call starts the arrow.
    nested = {c for c, calls in api_by_corr.items()
              if {a.cat for a in calls} >= {"cuda_runtime", "cuda_driver"}}
    driver_sources = [a for c in nested for a in api_by_corr[c]
                      if a.cat == "cuda_driver" and a.event.get("flow_out")]
    report.check(fmt, "no driver call made inside a runtime call starts an arrow", not driver_sources,
                 f"{len(nested)} correlation ids shared by a runtime and a driver call"
                 + "".join(f"; e.g. {a.describe()}" for a in driver_sources[:SHOW]))

    linked = {s.args["correlation"] for s in gpu if s.args.get("correlation") in api_by_corr}
    if "launch_calls" in expect:
        report.count(fmt, "launch_calls", int_value(expect, "launch_calls"), len(linked))
    # The lanes of a track (tid + lane << 24, timeline/track_layout.h) count as the track.
    def unlaned(track):
        pid, tid = track
        return (pid, tid & 0xFFFFFF if isinstance(tid, int) else tid)

    if "threads" in expect:
        tracks = {unlaned(a.track) for c in linked for a in api_by_corr[c]}
        report.count(fmt, "threads", int_value(expect, "threads"), len(tracks))
    if "streams" in expect:
        report.count(fmt, "streams", int_value(expect, "streams"), len({unlaned(s.track) for s in gpu}))
    if "graph_launches" in expect:
        # Runtime or driver launches; a driver call made inside a runtime call
        # shares its correlation id and is the same launch.
        launches = {s.args.get("correlation", id(s)) for s in api if api_base_name(s.name) in GRAPH_LAUNCHES}
        report.count(fmt, "graph_launches", int_value(expect, "graph_launches"), len(launches))


def check_nesting(report, fmt, slices, expect):
    """No two X events on a track partially overlap (Perfetto rejects that);
    NVTX push/pop slices nest as deep as the sample nested them."""
    def walk(items):
        """-> (max depth, partial overlaps as (outer, inner))."""
        deepest, overlaps, stack = 0, [], []
        for s in sorted(items, key=lambda s: (s.start, -s.end)):
            while stack and stack[-1].end <= s.start:
                stack.pop()
            if stack and s.end > stack[-1].end:
                overlaps.append((stack[-1], s))
                continue  # keep the outer slice; count the offender once
            stack.append(s)
            deepest = max(deepest, len(stack))
        return deepest, overlaps

    tracks = defaultdict(list)
    for s in slices:
        tracks[s.track].append(s)
    overlaps, nvtx_depth, nvtx_overlaps = [], 0, []
    for items in tracks.values():
        overlaps += walk(items)[1]
        depth, bad = walk([s for s in items if s.cat == "nvtx"])
        nvtx_depth = max(nvtx_depth, depth)
        nvtx_overlaps += bad
    report.check(fmt, "X events on every track nest (no partial overlap)", not overlaps,
                 f"{len(tracks)} tracks, {len(overlaps)} partial overlaps"
                 + "".join(f"; e.g. {a.describe()}..{a.end} vs {b.describe()}..{b.end}"
                           for a, b in overlaps[:SHOW]))
    report.check(fmt, "NVTX push/pop slices nest on each thread", not nvtx_overlaps,
                 f"{len(nvtx_overlaps)} partial overlaps")
    if "nvtx_depth" in expect:
        report.count(fmt, "nvtx_depth", int_value(expect, "nvtx_depth"), nvtx_depth, at_least=True)


def check_names(report, fmt, events, gpu, api, nvtx, expect):
    """NVTX-given names on their tracks; GPU processes named 'GPU <n>: <model>'."""
    thread_names = defaultdict(list)  # name -> tracks
    process_names = {}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "M":
            continue
        name = (e.get("args") or {}).get("name")
        if e.get("name") == "thread_name":
            thread_names[name].append((e.get("pid"), e.get("tid")))
        elif e.get("name") == "process_name":
            process_names[e.get("pid")] = name

    def named(key, holders, what):
        value = expect[key]
        tracks = thread_names.get(value, [])
        busy = [t for t in tracks if t in holders]
        similar = [n for n in thread_names if isinstance(n, str) and value in n and n != value]
        report.check(fmt, f"{key}: a thread_name '{value}' names a track holding {what}", bool(busy),
                     f"{len(tracks)} tracks so named, {len(busy)} holding {what}"
                     + (f"; similar names: {similar[:SHOW]}" if similar and not busy else ""))

    if "named_stream" in expect:
        named("named_stream", {s.track for s in gpu}, "GPU work")
    if "named_thread" in expect:
        named("named_thread", {s.track for s in api + nvtx}, "API calls or NVTX ranges")

    gpu_pids = sorted({s.track[0] for s in gpu}, key=str)
    bad = [(pid, process_names.get(pid)) for pid in gpu_pids
           if not re.match(r"^GPU \d+: \S", str(process_names.get(pid) or ""))]
    report.check(fmt, "GPU processes are named 'GPU <n>: <model>'", bool(gpu_pids) and not bad,
                 f"{[process_names.get(p) for p in gpu_pids][:SHOW]}"
                 + (f"; bad: {bad[:SHOW]}" if bad else ""))


# ---- CSV ----------------------------------------------------------------------

def read_csv(path):
    """-> (header, rows as dicts)."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        return list(reader.fieldnames or []), rows


def column(header, what):
    for name in CSV_COLUMNS[what]:
        if name in header:
            return name
    return None


def check_csv(report, fmt, prefix, expect, json_counts):
    tables = {}
    for table in CSV_TABLES:
        path = f"{prefix}.{table}.csv"
        try:
            tables[table] = read_csv(path)
        except (OSError, csv.Error, UnicodeDecodeError) as e:
            report.check(fmt, f"{table}.csv parses", False, str(e))
            continue
        header, rows = tables[table]
        ragged = [r for r in rows if None in r or any(v is None for v in r.values())]
        report.check(fmt, f"{table}.csv parses", not ragged,
                     f"{len(rows)} rows, {len(header)} columns"
                     + (f"; {len(ragged)} rows with a wrong number of fields" if ragged else ""))

    def rows_of(table):
        return tables[table][1] if table in tables else None

    for key, table in (("kernels", "kernels"), ("memcpy", "memcpy"), ("memset", "memset")):
        if key in expect:
            rows = rows_of(table)
            report.count(fmt, key, int_value(expect, key), None if rows is None else len(rows))

    if "nvtx" in tables:
        header, rows = tables["nvtx"]
        type_col = column(header, "type")
        if report.check(fmt, "nvtx.csv has a type column", type_col is not None,
                        "" if type_col else f"columns {header}"):
            types = Counter(r[type_col] for r in rows)
            for key, type_name in NVTX_TYPES.items():
                if key in expect:
                    report.count(fmt, key, int_value(expect, key), types[type_name])
            other = {t: n for t, n in types.items() if t not in NVTX_TYPES.values()}
            report.check(fmt, "nvtx.csv types are PushPop|StartEnd|Mark", not other, f"{dict(types)}")
            # depth: nesting depth of push/pop ranges on their thread, 0 = outermost.
            if "nvtx_depth" in expect and "depth" in header:
                try:
                    depth = max((int(r["depth"]) + 1 for r in rows if r[type_col] == "PushPop"), default=0)
                except ValueError:
                    depth = None
                report.count(fmt, "nvtx_depth", int_value(expect, "nvtx_depth"), depth, at_least=True)

    if "memcpy" in tables:
        header, rows = tables["memcpy"]
        kind_col, src_col, dst_col = (column(header, w) for w in ("copy_kind", "src_kind", "dst_kind"))
        wanted = [k for k in expect if k.startswith("memcpy_")]
        if wanted and report.check(fmt, "memcpy.csv has copy_kind, src_kind, dst_kind columns",
                                   None not in (kind_col, src_col, dst_col),
                                   "" if None not in (kind_col, src_col, dst_col) else f"columns {header}"):
            for kind in COPY_KINDS:
                key = "memcpy_" + kind
                if key in expect:
                    report.count(fmt, key, int_value(expect, key),
                                 sum(1 for r in rows if r[kind_col] == kind))
            for key, memory in MEMORY_KEYS.items():
                if key in expect:
                    report.count(fmt, key, int_value(expect, key),
                                 sum(1 for r in rows if memory in (r[src_col], r[dst_col])))

    if "api" in tables and json_counts is not None:
        # C library calls (domain osrt) are drawn in a category of their own.
        cuda_rows = [r for r in tables["api"][1] if r.get("domain") != "osrt"]
        report.count(fmt, "api_rows (== API slices in the JSON)", json_counts["api"], len(cuda_rows))

    check_csv_links(report, fmt, tables, expect)
    check_features.check_csv(report, fmt, tables, read_csv, prefix, expect)
    check_depth.check_csv(report, fmt, prefix, expect)


def check_csv_links(report, fmt, tables, expect):
    if "api" not in tables:
        return
    api_header, api_rows = tables["api"]
    api_corr = column(api_header, "correlation")
    if not report.check(fmt, "api.csv has a correlation column", api_corr is not None,
                        "" if api_corr else f"columns {api_header}"):
        return
    api_by_corr = defaultdict(list)
    for r in api_rows:
        api_by_corr[r[api_corr]].append(r)
    gpu_rows, missing_col = [], []
    for table in ("kernels", "memcpy", "memset"):
        if table not in tables:
            continue
        header, rows = tables[table]
        col = column(header, "correlation")
        if col is None:
            missing_col.append(table)
            continue
        gpu_rows += [(table, r, r[col]) for r in rows]
    unlinked = [(t, c) for t, _, c in gpu_rows if c not in api_by_corr]
    report.check(fmt, "every GPU row's correlation id is in api.csv", not missing_col and not unlinked,
                 f"{len(gpu_rows)} GPU rows, {len(unlinked)} unmatched"
                 + (f", e.g. {unlinked[:SHOW]}" if unlinked else "")
                 + (f"; no correlation column in {missing_col}" if missing_col else ""))
    linked = {c for _, _, c in gpu_rows if c in api_by_corr}
    if "launch_calls" in expect:
        report.count(fmt, "launch_calls", int_value(expect, "launch_calls"), len(linked))
    thread_col = column(api_header, "thread")
    if "threads" in expect and thread_col:
        report.count(fmt, "threads", int_value(expect, "threads"),
                     len({r[thread_col] for c in linked for r in api_by_corr[c]}))
    name_col = column(api_header, "name")
    if "graph_launches" in expect and name_col:
        launches = {r[api_corr] for r in api_rows if api_base_name(r[name_col]) in GRAPH_LAUNCHES}
        report.count(fmt, "graph_launches", int_value(expect, "graph_launches"), len(launches))
    gpu_tables = [tables[t] for t in ("kernels", "memcpy", "memset") if t in tables]
    if "streams" in expect and all(column(header, "stream") for header, _ in gpu_tables):
        streams = set()
        for header, rows in gpu_tables:
            s_col, d_col = column(header, "stream"), column(header, "device")
            streams |= {(r[d_col] if d_col else "", r[s_col]) for r in rows}
        report.count(fmt, "streams", int_value(expect, "streams"), len(streams))


# ---- native -----------------------------------------------------------------

def convert_native(report, cli, native, workdir, to):
    """Runs `cli convert native --to <to> -o <workdir>/converted`; returns the prefix or None."""
    out_prefix = os.path.join(workdir, f"converted-{to}")
    command = [cli, "convert", native, "--to", to, "-o", out_prefix]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        report.check("native", f"cuptitrace convert --to {to}", False, str(e))
        return None
    produced = sorted(f for f in os.listdir(workdir) if f.startswith(f"converted-{to}"))
    ok = done.returncode == 0
    report.check("native", f"cuptitrace convert --to {to}", ok,
                 f"exit {done.returncode}, wrote {produced}"
                 + (f"; stderr: {done.stderr.strip()[-400:]}" if not ok or done.stderr.strip() else ""))
    return out_prefix if ok else None


def check_stats(report, cli, native, expect):
    """Runs `cli stats native --report gpu_activities --format json` and compares its calls
    per row with the EXPECT counts: kernels (rows not named [CUDA ...]), memcpy (and by
    direction), memset."""
    fmt = "native>stats"
    command = [cli, "stats", native, "--report", "gpu_activities", "--format", "json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        report.check(fmt, "cuptitrace stats --report gpu_activities", False, str(e))
        report.unwritten(fmt, expect, ["kernels", "memcpy", "memset"])
        return
    try:
        doc = json.loads(done.stdout) if done.returncode == 0 else None
        rows = doc["reports"][0]["rows"] if doc else None
    except (ValueError, KeyError, IndexError, TypeError) as e:
        doc, rows = None, None
        done.stderr += f" (output: {e})"
    if not report.check(fmt, "cuptitrace stats --report gpu_activities --format json", rows is not None,
                        f"exit {done.returncode}" + (f"; stderr: {done.stderr.strip()[-400:]}"
                                                     if done.stderr.strip() else "")):
        report.unwritten(fmt, expect, ["kernels", "memcpy", "memset"])
        return
    calls = Counter()
    for row in rows:
        name = row.get("name") or ""
        n = row.get("calls") or 0
        if name.startswith("[CUDA memcpy "):
            calls["memcpy"] += n
            calls["memcpy_" + name[len("[CUDA memcpy "):].rstrip("]")] += n
        elif name == "[CUDA memset]":
            calls["memset"] += n
        else:
            calls["kernels"] += n
    for key in ["kernels", "memcpy", "memset"] + ["memcpy_" + k for k in COPY_KINDS]:
        if key in expect:
            report.count(fmt, key, int_value(expect, key), calls[key])
    notes = doc["reports"][0].get("notes") or []
    report.check(fmt, "gpu_activities notes no record without a time", not notes, "; ".join(notes)[:400])


def check_reports_file(report, prefix):
    """PREFIX.reports.txt, written at exit unless CUPTITRACE_SUMMARY=none, holds every report."""
    path = prefix + ".reports.txt"
    if not os.path.isfile(path):
        report.note("reports", f"{path} not written (CUPTITRACE_SUMMARY=none?)")
        return
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    titles = ("GPU activities:", "API calls:", "Kernels:", "NVTX ranges:", "GPU utilization:", "Findings:",
              "Unified memory:", "OS runtime calls:", "GPU time per external id and scope:", "Devices:")
    missing = [t for t in titles if t not in text]
    report.check("reports", "reports file holds every report", not missing,
                 f"{path}" + (f"; missing {missing}" if missing else ""))
    # The devices report describes the GPU the sample ran on: its name comes with its details.
    devices = text[text.find("Devices:"):][:2000] if "Devices:" in text else ""
    report.check("reports", "devices report names the GPU with its details",
                 " SMs" in devices and "NVIDIA" in devices, devices[:400])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stdout", help="the traced sample's stdout (last line: EXPECT ...)")
    parser.add_argument("prefix", help="the CUPTITRACE_OUTPUT prefix of the traced run")
    parser.add_argument("--cuptitrace", help="the cuptitrace command, to convert PREFIX.native")
    parser.add_argument("--formats", default="json,csv,native", help="which outputs to check")
    parser.add_argument("--summary", help="write counted keys as TSV rows to this file")
    parser.add_argument("--sample", help="sample name for the summary (default: from PREFIX)")
    args = parser.parse_args()
    formats = {f.strip() for f in args.formats.split(",") if f.strip()}
    if formats - {"json", "csv", "native"}:
        parser.error(f"unknown formats {sorted(formats - {'json', 'csv', 'native'})}")
    if "native" in formats and not args.cuptitrace:
        parser.error("checking the native format needs --cuptitrace BIN")

    report = Report(args.sample or os.path.basename(args.prefix))
    try:
        expect = read_expect(args.stdout)
        for key in expect:
            if key not in KNOWN_KEYS:
                report.note("expect", f"key {key} is not checked")
        print(f"check_trace: {report.sample}: EXPECT " + " ".join(f"{k}={v}" for k, v in expect.items()))

        json_counts = None
        if "json" in formats:
            json_counts = check_json(report, "json", args.prefix + ".json", expect)
        if "csv" in formats:
            check_csv(report, "csv", args.prefix, expect, json_counts)
        if "native" in formats:
            native = args.prefix + ".native"
            if report.check("native", "native file exists", os.path.isfile(native), native):
                workdir = args.prefix + ".native-check"
                shutil.rmtree(workdir, ignore_errors=True)
                os.makedirs(workdir)
                converted = convert_native(report, args.cuptitrace, native, workdir, "json")
                native_counts = None
                if converted:
                    native_counts = check_json(report, "native>json", converted + ".json", expect)
                converted = convert_native(report, args.cuptitrace, native, workdir, "csv")
                if converted:
                    check_csv(report, "native>csv", converted, expect, native_counts or json_counts)
                check_stats(report, args.cuptitrace, native, expect)
                check_depth.check_stats(report, args.cuptitrace, native, expect)
        check_reports_file(report, args.prefix)
    except ValueError as e:
        report.check("expect", "EXPECT line", False, str(e))

    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as f:
            for row in report.rows:
                f.write("\t".join((report.sample,) + row) + "\n")
            f.write("\t".join((report.sample, "all", "failures", "0", str(report.failures),
                               "ok" if report.failures == 0 else "FAIL")) + "\n")
    print(f"check_trace: {report.sample}: "
          + ("all checks passed" if report.failures == 0 else f"{report.failures} checks FAILED"))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
