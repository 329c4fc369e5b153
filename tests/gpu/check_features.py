"""EXPECT keys for the public API's external ids and scopes
(samples/external_ids.cu) and for C library calls (osrt,
samples/file_io_between_kernels.cu); used by check_trace.py.

  ext_ids=1001:4,none:3       kernels per external_id argument ("none": without one)
  ext_scopes=outer:2,none:7   kernels per innermost scope (argument "scope")
  osrt_calls=fopen:2,...      at least this many osrt slices of each name on the
                              launching thread, between its two batches of launches
  osrt_min_ns=usleep:20000000 the longest such slice of each name lasts at least this

Python standard library only.
"""

import csv
from collections import Counter, defaultdict

FEATURE_KEYS = {"ext_ids", "ext_scopes", "osrt_calls", "osrt_min_ns"}
SHOW = 3


def parse_counts(text):
    """'1001:4,none:3' -> {'1001': 4, 'none': 3}"""
    out = {}
    for item in text.split(","):
        name, sep, value = item.rpartition(":")
        if not sep or not name:
            raise ValueError(f"bad item {item!r} in {text!r} (expected NAME:COUNT)")
        out[name] = int(value)
    return out


def compare_counts(report, fmt, key, expected, written, at_least=False):
    for name, n in expected.items():
        report.count(fmt, f"{key}[{name}]", n, written.get(name, 0), at_least=at_least)
    if not at_least:
        extra = {k: v for k, v in written.items() if k not in expected}
        report.check(fmt, f"{key}: nothing unexpected", not extra, f"also written: {extra}" if extra else "")


def _value(args, name):
    v = args.get(name)
    return "none" if v is None or v == "" else str(v)


def check_json(report, fmt, slices, expect):
    """slices: trace_counts.Slice objects of one JSON file."""
    kernels = [s for s in slices if s.cat == "kernel"]
    calls = defaultdict(list)
    for s in slices:
        if s.cat in ("cuda_runtime", "cuda_driver") and "correlation" in s.args:
            calls[s.args["correlation"]].append(s)
    for key, arg in (("ext_ids", "External id"), ("ext_scopes", "scope")):
        if key not in expect:
            continue
        compare_counts(report, fmt, key, parse_counts(expect[key]), Counter(_value(k.args, arg) for k in kernels))
        # The kernel's value is its launch call's.
        differ = [k for k in kernels for c in calls.get(k.args.get("correlation"), [])[:1]
                  if _value(c.args, arg) != _value(k.args, arg)]
        report.check(fmt, f"{key}: every kernel's {arg} is its launch call's", not differ,
                     "".join(f"; e.g. {k.describe()}" for k in differ[:SHOW]))
    if "ext_scopes" in expect:
        # Each scope is drawn as a range on the thread of the calls it holds.
        ranges = defaultdict(list)
        for s in slices:
            if s.cat == "nvtx":
                ranges[(s.name, s.track)].append(s)
        outside = []
        for k in kernels:
            scope = k.args.get("scope")
            for c in calls.get(k.args.get("correlation"), [])[:1]:
                if scope and not any(r.start <= c.start and c.end <= r.end for r in ranges.get((scope, c.track), [])):
                    outside.append(c)
        report.check(fmt, "ext_scopes: each scoped call lies in its scope's range on its thread", not outside,
                     "".join(f"; e.g. {c.describe()}" for c in outside[:SHOW]))
    if "osrt_calls" in expect or "osrt_min_ns" in expect:
        check_osrt_json(report, fmt, slices, kernels, calls, expect)


def _launch_gap(launches):
    """The longest pause between consecutive launch calls: (end of one, start of the next)."""
    launches = sorted(launches, key=lambda s: s.start)
    best = None
    for a, b in zip(launches, launches[1:]):
        if best is None or b.start - a.end > best[1] - best[0]:
            best = (a.end, b.start)
    return best


def check_osrt_json(report, fmt, slices, kernels, calls, expect):
    osrt = [s for s in slices if s.cat == "osrt"]
    launches = [c for k in kernels for c in calls.get(k.args.get("correlation"), [])[:1]]
    tracks = {c.track for c in launches}
    gap = _launch_gap(launches)
    if not report.check(fmt, "osrt: the launches have a pause between two batches", gap is not None and len(tracks) == 1,
                        f"{len(launches)} launch calls on {len(tracks)} threads"):
        return
    inside = [s for s in osrt if s.track in tracks and gap[0] <= s.start and s.end <= gap[1]]
    report.check(fmt, "osrt: C library calls were recorded on the launching thread", bool(inside),
                 f"{len(osrt)} osrt slices, {len(inside)} between the batches")
    if "osrt_calls" in expect:
        compare_counts(report, fmt, "osrt_calls", parse_counts(expect["osrt_calls"]),
                       Counter(s.name for s in inside), at_least=True)
    if "osrt_min_ns" in expect:
        longest = Counter()
        for s in inside:
            longest[s.name] = max(longest[s.name], s.end - s.start)
        compare_counts(report, fmt, "osrt_min_ns", parse_counts(expect["osrt_min_ns"]), longest, at_least=True)


def check_csv(report, fmt, tables, read_csv, prefix, expect):
    """tables: trace_csv_checks' {name: (header, rows)}; external_ids.csv is read here."""
    kernels = tables.get("kernels")
    for key, col in (("ext_ids", "external_id"), ("ext_scopes", "scope")):
        if key not in expect or kernels is None:
            continue
        header, rows = kernels
        if report.check(fmt, f"kernels.csv has a {col} column", col in header, "" if col in header else f"{header}"):
            compare_counts(report, fmt, key, parse_counts(expect[key]), Counter(_value(r, col) for r in rows))
    if "ext_ids" in expect:
        try:
            header, rows = read_csv(f"{prefix}.external_ids.csv")
        except (OSError, ValueError, csv.Error) as e:
            report.check(fmt, "external_ids.csv parses", False, str(e))
            rows = None
        if rows is not None and kernels is not None:
            ids = {(r["correlation_id"], r["external_id"]) for r in rows if r.get("kind") == "id"}
            k_header, k_rows = kernels
            missing = [r for r in k_rows if r.get("external_id") and (r["correlation_id"], r["external_id"]) not in ids]
            report.check(fmt, "external_ids.csv holds every kernel's (correlation_id, external_id)", not missing,
                         f"{len(rows)} rows; {len(missing)} kernels missing")
    if "osrt_calls" in expect and "api" in tables:
        header, rows = tables["api"]
        osrt = Counter(r.get("name") for r in rows if r.get("domain") == "osrt")
        compare_counts(report, fmt, "osrt_calls", parse_counts(expect["osrt_calls"]), osrt, at_least=True)
