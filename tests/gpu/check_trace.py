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

The JSON and CSV checks are in trace_json_checks.py and trace_csv_checks.py,
what they share in trace_counts.py; this script runs them and checks the native
trace, the stats command and the reports file.

Python standard library only: this runs on the GPU machine as it is.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter

import check_depth
import check_features
from trace_counts import COPY_KINDS, MEMORY_KEYS, NVTX_TYPES, Report, int_value, read_expect
from trace_csv_checks import check_csv
from trace_json_checks import check_json

# Every EXPECT key this checker understands; others are reported as not checked.
KNOWN_KEYS = (
    {"kernels", "memcpy", "memset", "launch_calls", "threads", "streams", "graph_launches",
     "nvtx_depth", "named_stream", "named_thread"}
    | set(NVTX_TYPES) | set(MEMORY_KEYS) | {"memcpy_" + k for k in COPY_KINDS}
    | check_features.FEATURE_KEYS | check_depth.DEPTH_KEYS)


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
