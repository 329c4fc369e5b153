"""check_trace.py's checks of a Chrome Trace Event JSON file: counts by
category, copy kind and memory kind, NVTX pairs, links and flows from API
calls to GPU work, nesting, and the names of tracks and processes.

Python standard library only: this runs on the GPU machine as it is.
"""

import bisect
import json
import re
from collections import Counter, defaultdict

import check_depth
import check_features
from trace_counts import (API_CATS, COPY_KINDS, COUNT_KEYS, GPU_CATS, GRAPH_LAUNCHES, MEMORY_KEYS,
                          SHOW, STEPS_TID, Slice, api_base_name, int_value, ns)


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
    for key, cat in (("kernels", "kernel"), ("memcpy", "gpu_memcpy"), ("memset", "gpu_memset")):
        if key in expect:
            report.count(fmt, key, int_value(expect, key), len(by_cat[cat]))
    # A start/end range of zero length is one async instant "n" instead of a b/e pair.
    # PyTorch's operators and steps are push/pop ranges too, in the profiler's categories
    # (the "Steps" track's ProfilerStep#N slices are not ranges of the program's).
    pushpop = by_cat["nvtx"] + by_cat["cpu_op"] + [s for s in by_cat["user_annotation"] if s.track[1] != STEPS_TID]
    nvtx_written = {"nvtx_pushpop": len(pushpop),
                    "nvtx_startend": phases[("b", "nvtx")] + phases[("n", "nvtx")],
                    "nvtx_marks": phases[("i", "nvtx")] + phases[("I", "nvtx")]}
    for key, written in nvtx_written.items():
        if key in expect:
            report.count(fmt, key, int_value(expect, key), written)
    check_async_pairs(report, fmt, events)

    # Copies by direction and by host memory kind.
    copies = by_cat["gpu_memcpy"]
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
        depth, bad = walk([s for s in items if s.cat in ("nvtx", "cpu_op", "user_annotation")])
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
