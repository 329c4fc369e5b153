#!/usr/bin/env python3
"""Checks an OpenACC sample's trace: PREFIX.openacc.csv against the EXPECT line
of PREFIX.stdout (launches and updates exactly; uploads, downloads and waits at
least), the OpenACC slices and arrows of PREFIX.json, the SQLite tables.
GCC's OpenACC runtime (libgomp 12) dispatches no download and no wait events
to a profiling library: where the trace has none of either, the program's
downloads are checked as the device-to-host copies CUPTI recorded, and its
waits as the stream or context synchronizations it recorded.

usage: check_openacc.py PREFIX
"""
import collections
import csv
import json
import re
import sqlite3
import sys


def expected(prefix):
    with open(prefix + ".stdout") as f:
        for line in f:
            if line.startswith("EXPECT openacc"):
                return {k: int(v) for k, v in re.findall(r"(\w+)>?=(\d+)", line)}
    raise SystemExit("check_openacc: no EXPECT openacc line in " + prefix + ".stdout")


def main():
    prefix = sys.argv[1]
    want = expected(prefix)
    failures = []
    try:
        with open(prefix + ".openacc.csv", newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        # The table is written only when there are OpenACC records.
        print("FAIL check_openacc: no OpenACC records (%s): was acc_register_library called? "
              "Is ACC_PROFLIB in the program's environment?" % e)
        return 1
    events = collections.Counter(r["event"] for r in rows)
    print("openacc records: %d; by event: %s" % (len(rows), dict(sorted(events.items()))))
    launches = events["acc_enqueue_launch"]
    uploads = events["acc_enqueue_upload"]
    downloads = events["acc_enqueue_download"]
    waits = events["acc_wait"] + events["acc_implicit_wait"]
    print("expected: %s" % want)
    print("found: launches=%d uploads=%d downloads=%d waits=%d" % (launches, uploads, downloads, waits))
    if launches != want["launches"]:
        failures.append("acc_enqueue_launch: %d, the program ran %d parallel loops" % (launches, want["launches"]))
    if uploads < want["uploads"]:
        failures.append("acc_enqueue_upload: %d, the program made at least %d" % (uploads, want["uploads"]))
    updates = events["acc_update"]
    if updates != want["updates"]:
        failures.append("acc_update: %d, the program ran %d update directives" % (updates, want["updates"]))
    if downloads == 0:
        with open(prefix + ".memcpy.csv", newline="") as f:
            dtoh = sum(1 for r in csv.DictReader(f) if r["copy_kind"] == "DtoH")
        print("no acc_enqueue_download events (GCC's runtime sends none): %d DtoH copies" % dtoh)
        if dtoh < want["downloads"]:
            failures.append("%d DtoH copies, the program downloaded at least %d times" % (dtoh, want["downloads"]))
    elif downloads < want["downloads"]:
        failures.append("acc_enqueue_download: %d, the program made at least %d" % (downloads, want["downloads"]))
    if waits == 0:
        with open(prefix + ".api.csv", newline="") as f:
            syncs = sum(1 for r in csv.DictReader(f)
                        if r["name"].startswith(("cuStreamSynchronize", "cuCtxSynchronize", "cudaStreamSynchronize",
                                                 "cudaDeviceSynchronize")))
        print("no acc_wait events (GCC's runtime sends none): %d synchronizations" % syncs)
        if syncs < want["waits"]:
            failures.append("%d synchronizations, the program waited at least %d times" % (syncs, want["waits"]))
    elif waits < want["waits"]:
        failures.append("acc_wait: %d, the program waited at least %d times" % (waits, want["waits"]))
    for r in rows:
        if r["event"] == "acc_enqueue_launch" and not r["kernel_name"]:
            failures.append("an enqueue launch without its kernel name")
            break

    with open(prefix + ".json") as f:
        trace = json.load(f)
    slices = [e for e in trace["traceEvents"] if e.get("cat") == "openacc" and e.get("ph") == "X"]
    timed = sum(1 for r in rows if r["duration_ns"] != "")
    print("json: %d OpenACC slices (%d records with a time)" % (len(slices), timed))
    if len(slices) != timed:
        failures.append("the JSON has %d OpenACC slices for %d timed records" % (len(slices), timed))
    kernels = [e for e in trace["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X"]
    arrows = [e for e in trace["traceEvents"] if e.get("cat") == "openacc" and e.get("ph") == "f"]
    # How many launches CUPTI tied to their kernels (external correlation): said, not required.
    print("json: %d kernels, %d arrows from OpenACC events to GPU work" % (len(kernels), len(arrows)))

    db = sqlite3.connect(prefix + ".sqlite")
    n = sum(db.execute("SELECT count(*) FROM " + t).fetchone()[0]
            for t in ("CUPTI_ACTIVITY_KIND_OPENACC_DATA", "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH",
                      "CUPTI_ACTIVITY_KIND_OPENACC_OTHER"))
    print("sqlite: %d OpenACC rows" % n)
    if n != len(rows):
        failures.append("the SQLite tables hold %d OpenACC rows for %d records" % (n, len(rows)))

    for f in failures:
        print("FAIL check_openacc: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
