#!/usr/bin/env python3
"""Runs Nsight Systems' documented example queries on a cuptitrace SQLite
database and compares what they return with what the trace holds.

  check_sqlite.py DB EXPECT.json       expectations written by the unit test
  check_sqlite.py DB --csv PREFIX      expectations read from the same run's CSV
                                       tables (PREFIX.kernels.csv, .api.csv, .nvtx.csv)

The queries are the ones scripts written for `nsys export --type sqlite` use:
a kernel summary joined to StringIds, kernel launches joined to the API calls
that made them on correlationId (pid from globalPid / globalTid), and NVTX
ranges with their text. With pandas installed the kernel summary is also read
with pandas.read_sql; without it that part is skipped and says so.
Exit status 0 when every check passes.
"""
import collections
import csv
import json
import sqlite3
import sys

KERNEL_SUMMARY = """
SELECT s.value AS name, COUNT(*) AS calls, SUM(k.end - k.start) AS total_ns
FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.demangledName
GROUP BY name ORDER BY total_ns DESC
"""
# Nsight's "Correlate CUDA kernel launches with CUDA API kernel launches".
LAUNCHES = """
SELECT kn.value AS kernel, an.value AS api, r.start AS api_start, k.start AS kernel_start,
       k.globalPid / 0x1000000 % 0x1000000 AS pid, r.globalTid % 0x1000000 AS tid
FROM CUPTI_ACTIVITY_KIND_KERNEL AS k
JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r
  ON k.correlationId = r.correlationId
 AND k.globalPid / 0x1000000 % 0x1000000 = r.globalTid / 0x1000000 % 0x1000000
JOIN StringIds AS kn ON kn.id = k.demangledName
JOIN StringIds AS an ON an.id = r.nameId
"""
NVTX_RANGES = """
SELECT COALESCE(n.text, s.value) AS text, n.start, n.end, n.eventType,
       n.globalTid / 0x1000000 % 0x1000000 AS pid
FROM NVTX_EVENTS AS n LEFT JOIN StringIds AS s ON n.textId = s.id
WHERE n.eventType IN (59, 60)
"""
NVTX_MARKS = "SELECT COALESCE(text, '') FROM NVTX_EVENTS WHERE eventType = 34"


def expect_from_csv(prefix):
    def rows(table):
        try:
            with open(f"{prefix}.{table}.csv", newline="", encoding="utf-8") as f:
                return list(csv.DictReader(f))
        except FileNotFoundError:
            return []
    kernels = rows("kernels")
    apis = [a for a in rows("api") if a["domain"] in ("runtime", "driver")]
    nvtx = rows("nvtx")
    by_corr = collections.defaultdict(list)
    for a in apis:
        by_corr[a["correlation_id"]].append(a["name"])
    pairs = collections.Counter()
    for k in kernels:
        for api in by_corr.get(k["correlation_id"], []):
            pairs[k["name"] + "|" + api] += 1
    return {
        "kernels": dict(collections.Counter(k["name"] for k in kernels)),
        "launch_pairs": dict(pairs),
        "nvtx_ranges": dict(collections.Counter(n["message"] for n in nvtx if n["type"] != "Mark")),
        "nvtx_marks": dict(collections.Counter(n["message"] for n in nvtx if n["type"] == "Mark")),
    }


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--csv":
        expect = expect_from_csv(sys.argv[3])
    elif len(sys.argv) == 3:
        with open(sys.argv[2], encoding="utf-8") as f:
            expect = json.load(f)
    else:
        print(__doc__)
        return 2
    db = sqlite3.connect(sys.argv[1])
    failures = []

    def check(what, got, want):
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")
        else:
            print(f"ok  {what}")

    summary = {name: calls for name, calls, _ in db.execute(KERNEL_SUMMARY)}
    check("kernel summary (count per name)", summary, expect["kernels"])
    pairs = collections.Counter(f"{k}|{a}" for k, a, *_ in db.execute(LAUNCHES))
    check("kernel launches joined to API calls", dict(pairs), expect["launch_pairs"])
    for kernel, api, api_start, kernel_start, pid, _ in db.execute(LAUNCHES):
        if "pid" in expect and pid != expect["pid"]:
            failures.append(f"launch of {kernel}: pid {pid}, want {expect['pid']}")
            break
    ranges = collections.Counter(t for t, *_ in db.execute(NVTX_RANGES))
    check("NVTX ranges with their text", dict(ranges), expect["nvtx_ranges"])
    marks = collections.Counter(t for (t,) in db.execute(NVTX_MARKS))
    check("NVTX marks", dict(marks), expect["nvtx_marks"])
    # Every referenced name exists.
    dangling = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds s "
                          "ON s.id = k.shortName WHERE s.id IS NULL").fetchone()[0]
    check("kernel shortNames in StringIds", dangling, 0)
    labels = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY m LEFT JOIN ENUM_CUDA_MEMCPY_OPER e "
                        "ON e.id = m.copyKind WHERE e.label IS NULL").fetchone()[0]
    check("memcpy kinds in ENUM_CUDA_MEMCPY_OPER", labels, 0)

    try:
        import pandas
    except ImportError:
        print("skip pandas part: pandas is not installed (python3-pandas)")
    else:
        frame = pandas.read_sql(KERNEL_SUMMARY, db)
        check("pandas.read_sql kernel summary", dict(zip(frame["name"], frame["calls"].astype(int))),
              expect["kernels"])
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
