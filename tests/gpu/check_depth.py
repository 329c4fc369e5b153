#!/usr/bin/env python3
"""GPU memory, unified memory and CUDA graph checks.

As a module of check_trace.py, EXPECT keys (samples/memory_alloc.cu, managed_faults.cu):

  mem_allocs=Device:3,Pinned:1     allocation records per memory kind (static kinds left out)
  mem_frees=Device:2,Pinned:1      free records per memory kind
  mem_peak_bytes=N                 most bytes allocated at once (frees matched by address)
  mem_leak_bytes=N                 bytes allocated and never freed by the end of the trace
  uvm_htod=1 uvm_dtoh=1            at least this many unified memory migrations each way
  uvm_cpu_faults=1 uvm_gpu_faults=1  at least this many page faults
and, for a sample with graph_launches (samples/cuda_graph.cu, node records): every
kernel and set carries graph_id and graph_node_id and was launched by cudaGraphLaunch.

The reports of the native trace (`cuptitrace stats --report NAME --format json`) agree
with the same keys: `leaks` and `gpu_memory` with mem_leak_bytes and mem_peak_bytes;
`uvm` with the uvm_* keys (a row per counter, bytes for migrations); and, with the keys
check_features.py reads, `osrt` with osrt_calls (samples/file_io_between_kernels.cu) and
`external_ids` with ext_ids and ext_scopes (samples/external_ids.cu: kernels per id and per
innermost scope, each launched by a call counted in the same row).

As a command, the graph-level mode (CUPTITRACE_GRAPHS=graph) of one traced run:

  check_depth.py graph-mode PREFIX --launches N [--cuptitrace BIN]

N graph records (JSON slices of category "graph", rows of PREFIX.graphs.csv, the
graphs report of PREFIX.native), each linked to its own cudaGraphLaunch call.

Python standard library only.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict

DEPTH_KEYS = {"mem_allocs", "mem_frees", "mem_peak_bytes", "mem_leak_bytes",
              "uvm_htod", "uvm_dtoh", "uvm_cpu_faults", "uvm_gpu_faults"}
STATIC_KINDS = ("DeviceStatic", "ManagedStatic")
UVM_KEYS = {"uvm_htod": "HtoD", "uvm_dtoh": "DtoH", "uvm_cpu_faults": "CPU page fault",
            "uvm_gpu_faults": "GPU page fault"}
SHOW = 3


def parse_counts(text):
    """'Device:3,Pinned:1' -> {'Device': 3, 'Pinned': 1}"""
    out = {}
    for item in text.split(","):
        name, sep, value = item.rpartition(":")
        if not sep or not name:
            raise ValueError(f"bad item {item!r} in {text!r} (expected NAME:COUNT)")
        out[name] = int(value)
    return out


def memory_walk(rows):
    """memory.csv rows -> (peak bytes, bytes never freed), static kinds left out,
    frees matched to allocations by address, in time order (allocations first)."""
    events = []
    for r in rows:
        if r.get("memory_kind") in STATIC_KINDS:
            continue
        events.append((int(r["timestamp_ns"]), 0 if r["operation"] == "alloc" else 1, r["address"],
                       int(r["bytes"])))
    live, current, peak = {}, 0, 0
    for _, op, address, size in sorted(events):
        if op == 0:
            current += size - live.get(address, 0)
            live[address] = size
            peak = max(peak, current)
        elif address in live:
            current -= live.pop(address)
    return peak, sum(live.values())


def check_json(report, fmt, events, slices, expect):
    """events: the traceEvents; slices: trace_counts.Slice objects of the same file."""
    if "mem_peak_bytes" in expect:
        values = [int(v) for e in events if isinstance(e, dict) and e.get("ph") == "C"
                  and e.get("name") == "Memory allocated" for v in (e.get("args") or {}).values()]
        report.count(fmt, "mem_peak_bytes (counter track)", int(expect["mem_peak_bytes"]),
                     max(values) if values else None)
    uvm_wanted = [k for k in UVM_KEYS if k in expect]
    if uvm_wanted:
        names = Counter(e.get("name") for e in events
                        if isinstance(e, dict) and e.get("cat") == "uvm" and e.get("ph") in ("X", "i"))
        for key in uvm_wanted:
            report.count(fmt, key, int(expect[key]), names[UVM_KEYS[key]], at_least=True)
        counters = {e.get("name") for e in events if isinstance(e, dict) and e.get("ph") == "C"}
        report.check(fmt, "unified memory counter tracks written",
                     "Unified memory HtoD" in counters, f"counters: {sorted(str(c) for c in counters)}")
    if int(expect.get("graph_launches", 0)) > 0:
        check_graph_nodes(report, fmt, slices)


def check_graph_nodes(report, fmt, slices):
    """Node records: every kernel and set of a graph carries its graph and node ids and
    was launched by a cudaGraphLaunch call; launches are (graph, correlation) pairs."""
    launches = defaultdict(list)
    for s in slices:
        if s.cat in ("cuda_runtime", "cuda_driver") and "correlation" in s.args:
            launches[s.args["correlation"]].append(s.name or "")
    graph_launch = {c for c, names in launches.items()
                    if any(n.startswith(("cudaGraphLaunch", "cuGraphLaunch")) for n in names)}
    # A program may run work outside graphs too: the nodes are what a graph
    # launch started, or what says it belongs to a graph.
    nodes = [s for s in slices if s.cat in ("kernel", "gpu_memset", "gpu_memcpy")
             and (s.args.get("graph_id") or s.args.get("correlation") in graph_launch)]
    bad = [s for s in nodes if not s.args.get("graph_id") or not s.args.get("graph_node_id")
           or s.args.get("correlation") not in graph_launch]
    report.check(fmt, "every graph node slice has graph_id, graph_node_id and a cudaGraphLaunch",
                 bool(nodes) and not bad,
                 f"{len(nodes)} node slices, {len(bad)} without"
                 + "".join(f"; e.g. {s.describe()} args {s.args}" for s in bad[:SHOW]))


def check_csv(report, fmt, prefix, expect):
    if any(k in expect for k in ("mem_allocs", "mem_frees", "mem_peak_bytes", "mem_leak_bytes")):
        rows = read_rows(report, fmt, prefix + ".memory.csv")
        if rows is not None:
            kinds = Counter((r["operation"], r["memory_kind"]) for r in rows
                            if r["memory_kind"] not in STATIC_KINDS)
            for key, op in (("mem_allocs", "alloc"), ("mem_frees", "free")):
                if key in expect:
                    wanted = parse_counts(expect[key])
                    for kind, n in wanted.items():
                        report.count(fmt, f"{key}[{kind}]", n, kinds[(op, kind)])
                    extra = {k: v for (o, k), v in kinds.items() if o == op and k not in wanted}
                    report.check(fmt, f"{key}: no other memory kinds", not extra, f"also: {extra}" if extra else "")
            peak, leak = memory_walk(rows)
            if "mem_peak_bytes" in expect:
                report.count(fmt, "mem_peak_bytes", int(expect["mem_peak_bytes"]), peak)
            if "mem_leak_bytes" in expect:
                report.count(fmt, "mem_leak_bytes", int(expect["mem_leak_bytes"]), leak)
    uvm_wanted = [k for k in UVM_KEYS if k in expect]
    if uvm_wanted:
        rows = read_rows(report, fmt, prefix + ".uvm.csv")
        if rows is not None:
            kinds = Counter(r["kind"] for r in rows)
            for key in uvm_wanted:
                report.count(fmt, key, int(expect[key]), kinds[UVM_KEYS[key]], at_least=True)
            moved = sum(int(r["bytes"] or 0) for r in rows if r["kind"] == "HtoD")
            report.check(fmt, "uvm HtoD rows move bytes", moved > 0, f"{moved} bytes")


def read_rows(report, fmt, path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, csv.Error) as e:
        report.check(fmt, f"{os.path.basename(path)} parses", False, str(e))
        return None
    report.check(fmt, f"{os.path.basename(path)} parses", True, f"{len(rows)} rows")
    return rows


def stats_report(cli, native, name):
    """The rows of one report of `cli stats native`, as dicts; None when it failed."""
    done = subprocess.run([cli, "stats", native, "--report", name, "--format", "json"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return None, done.stderr.strip()[-400:]
    try:
        return json.loads(done.stdout)["reports"][0]["rows"], ""
    except (ValueError, KeyError, IndexError) as e:
        return None, str(e)


def check_uvm_report(report, fmt, cli, native, expect):
    """uvm report: rows per device and counter; counts summed over devices."""
    rows, why = stats_report(cli, native, "uvm")
    if not report.check(fmt, "cuptitrace stats --report uvm", rows is not None, why):
        return
    counts, moved = Counter(), Counter()
    for r in rows:
        counts[r.get("counter")] += int(r.get("count") or 0)
        moved[r.get("counter")] += int(r.get("total_bytes") or 0)
    for key, counter in UVM_KEYS.items():
        if key in expect:
            report.count(fmt, f"{key} (uvm report)", int(expect[key]), counts[counter], at_least=True)
    for counter in ("HtoD", "DtoH"):
        if counts[counter]:
            report.check(fmt, f"uvm report: {counter} rows move bytes", moved[counter] > 0,
                         f"{moved[counter]} bytes in {counts[counter]} migrations")


def check_osrt_report(report, fmt, cli, native, expect):
    """osrt report: a row per C library function, at least the sample's calls each, timed."""
    rows, why = stats_report(cli, native, "osrt")
    if not report.check(fmt, "cuptitrace stats --report osrt", rows is not None, why):
        return
    by_name = {r.get("name"): r for r in rows}
    for name, n in parse_counts(expect["osrt_calls"]).items():
        row = by_name.get(name) or {}
        report.count(fmt, f"osrt_calls[{name}] (osrt report)", n, int(row.get("calls") or 0), at_least=True)
        report.check(fmt, f"osrt report: {name} has a total time", int(row.get("total_ns") or 0) > 0,
                     f"total_ns {row.get('total_ns')}")


def check_external_ids_report(report, fmt, cli, native, expect):
    """external_ids report: kernels per id and per innermost scope, as the sample launched
    them ("none" is not a row: work without an id or scope has none)."""
    rows, why = stats_report(cli, native, "external_ids")
    if not report.check(fmt, "cuptitrace stats --report external_ids", rows is not None, why):
        return
    for key, kind in (("ext_ids", "id"), ("ext_scopes", "scope")):
        if key not in expect:
            continue
        wanted = {k: v for k, v in parse_counts(expect[key]).items() if k != "none"}
        written = {str(r.get("name")): r for r in rows if r.get("kind") == kind}
        for name, n in wanted.items():
            row = written.get(name) or {}
            report.count(fmt, f"{key}[{name}] (external_ids report)", n, int(row.get("kernels") or 0))
            report.check(fmt, f"external_ids report: {kind} {name} has GPU time and its launch calls",
                         int(row.get("gpu_total_ns") or 0) > 0 and int(row.get("api_calls") or 0) >= n,
                         f"gpu_total_ns {row.get('gpu_total_ns')}, api_calls {row.get('api_calls')}")
        extra = sorted(name for name, r in written.items() if name not in wanted and int(r.get("kernels") or 0))
        report.check(fmt, f"external_ids report: no other {kind} rows with kernels", not extra,
                     f"also: {extra}" if extra else "")


def check_stats(report, cli, native, expect):
    """The reports of the native trace agree with the sample."""
    fmt = "native>stats"
    if "mem_leak_bytes" in expect:
        rows, why = stats_report(cli, native, "leaks")
        if report.check(fmt, "cuptitrace stats --report leaks", rows is not None, why):
            report.count(fmt, "mem_leak_bytes (leaks report)", int(expect["mem_leak_bytes"]),
                         sum(int(r.get("bytes") or 0) for r in rows))
    if "mem_peak_bytes" in expect:
        rows, why = stats_report(cli, native, "gpu_memory")
        if report.check(fmt, "cuptitrace stats --report gpu_memory", rows is not None, why):
            peaks = [int(r.get("peak_bytes") or 0) for r in rows if r.get("memory_kind") == "All"]
            report.count(fmt, "mem_peak_bytes (gpu_memory report)", int(expect["mem_peak_bytes"]),
                         max(peaks) if peaks else None)
    if any(k in expect for k in UVM_KEYS):
        check_uvm_report(report, fmt, cli, native, expect)
    if "osrt_calls" in expect:
        check_osrt_report(report, fmt, cli, native, expect)
    if "ext_ids" in expect or "ext_scopes" in expect:
        check_external_ids_report(report, fmt, cli, native, expect)


# ---- graph-level mode ---------------------------------------------------------------

class Report:
    def __init__(self):
        self.failures = 0

    def check(self, fmt, what, ok, detail=""):
        if not ok:
            self.failures += 1
        print(f"{'ok  ' if ok else 'FAIL'} [{fmt}] {what}" + (f": {detail}" if detail else ""))
        return ok

    def count(self, fmt, key, expected, written, at_least=False):
        ok = written is not None and (written >= expected if at_least else written == expected)
        return self.check(fmt, key, ok, f"expected {'>=' if at_least else '=='} {expected}, written {written}")


def graph_mode_json(report, path, launches):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    config = (doc.get("metadata") or {}).get("config") or {}
    report.check("json", "CUPTITRACE_GRAPHS=graph in the metadata", config.get("CUPTITRACE_GRAPHS") == "graph",
                 f"config: {config.get('CUPTITRACE_GRAPHS')}")
    counters = (doc.get("metadata") or {}).get("counters") or {}
    report.check("json", "CUPTI did not refuse graph-level records", "refused_kind.graph" not in counters,
                 f"counters: { {k: v for k, v in counters.items() if k.startswith('refused')} }")
    calls = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and e.get("flow_out"):
            calls[e.get("bind_id")] = e.get("name") or ""
    graphs = [e for e in events if e.get("ph") == "X" and e.get("cat") == "graph"]
    report.count("json", "graph slices", launches, len(graphs))
    linked = [g for g in graphs if g.get("flow_in") and
              calls.get(g.get("bind_id"), "").startswith(("cudaGraphLaunch", "cuGraphLaunch"))]
    report.count("json", "graph slices with an arrow from cudaGraphLaunch", launches, len(linked))
    report.count("json", "distinct launches (correlation ids)", launches,
                 len({g["args"].get("correlation") for g in linked}))
    nodes = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memset")
             and (e.get("args") or {}).get("graph_id")]
    print(f"note [json] {len(nodes)} node slices (kernels, sets) recorded besides the graph records")


def graph_mode_csv(report, fmt, prefix, launches):
    try:
        with open(prefix + ".graphs.csv", newline="", encoding="utf-8") as f:
            graphs = list(csv.DictReader(f))
        with open(prefix + ".api.csv", newline="", encoding="utf-8") as f:
            api = list(csv.DictReader(f))
    except OSError as e:
        report.check(fmt, "graphs.csv and api.csv", False, str(e))
        return
    report.count(fmt, "graphs.csv rows", launches, len(graphs))
    names = {r["correlation_id"]: r["name"] for r in api}
    launched = [g for g in graphs if names.get(g["correlation_id"], "").startswith(("cudaGraphLaunch", "cuGraphLaunch"))]
    report.count(fmt, "graph rows whose correlation id is a cudaGraphLaunch", launches, len(launched))
    report.count(fmt, "distinct correlation ids", launches, len({g["correlation_id"] for g in launched}))
    timed = [g for g in graphs if g["duration_ns"]]
    report.count(fmt, "graph rows with a duration", launches, len(timed))


def graph_mode(args):
    report = Report()
    graph_mode_json(report, args.prefix + ".json", args.launches)
    graph_mode_csv(report, "csv", args.prefix, args.launches)
    native = args.prefix + ".native"
    if args.cuptitrace and os.path.isfile(native):
        rows, why = stats_report(args.cuptitrace, native, "graphs")
        if report.check("native>stats", "cuptitrace stats --report graphs", rows is not None, why):
            report.count("native>stats", "launches in the graphs report", args.launches,
                         sum(int(r.get("launches") or 0) for r in rows))
        out = args.prefix + ".native-graphs"
        done = subprocess.run([args.cuptitrace, "convert", native, "--to", "csv", "-o", out, "--overwrite"],
                              capture_output=True, text=True, timeout=300)
        if report.check("native>csv", "cuptitrace convert --to csv", done.returncode == 0, done.stderr.strip()[-300:]):
            graph_mode_csv(report, "native>csv", out, args.launches)
    print(f"check_depth: graph mode: " + ("all checks passed" if not report.failures
                                          else f"{report.failures} checks FAILED"))
    return 1 if report.failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("graph-mode", help="check a run traced with CUPTITRACE_GRAPHS=graph")
    g.add_argument("prefix")
    g.add_argument("--launches", type=int, required=True)
    g.add_argument("--cuptitrace")
    args = parser.parse_args()
    return graph_mode(args)


if __name__ == "__main__":
    sys.exit(main())
