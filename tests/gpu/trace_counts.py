"""What check_trace.py and its checks share: the EXPECT line, the report of
checks (printed lines and summary rows), Trace Event slices and CSV tables
read back, and the names of categories, copy kinds and columns.

Python standard library only: this runs on the GPU machine as it is.
"""

import csv
import re

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
API_CATS = ("cuda_runtime", "cuda_driver")
STEPS_TID = 0x7FFFFFFE  # the "Steps" track of torch.profiler-style steps (timeline/track_layout.h)
GRAPH_LAUNCHES = ("cudaGraphLaunch", "cuGraphLaunch")
COPY_KINDS = ("HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP")
MEMORY_KEYS = {"memcpy_pageable": "Pageable", "memcpy_pinned": "Pinned"}
CSV_TABLES = ("kernels", "memcpy", "memset", "api", "nvtx")
NVTX_TYPES = {"nvtx_pushpop": "PushPop", "nvtx_startend": "StartEnd", "nvtx_marks": "Mark"}
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
