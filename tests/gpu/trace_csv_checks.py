"""check_trace.py's checks of the CSV tables (PREFIX.{kernels,memcpy,memset,api,nvtx}.csv):
each parses, counts by table, NVTX type and copy kind, and every GPU row's
correlation id in api.csv.

Python standard library only: this runs on the GPU machine as it is.
"""

import csv
from collections import Counter, defaultdict

import check_depth
import check_features
from trace_counts import (COPY_KINDS, CSV_TABLES, GRAPH_LAUNCHES, MEMORY_KEYS, NVTX_TYPES, SHOW,
                          api_base_name, column, int_value, read_csv)


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
