#!/usr/bin/env python3
"""Checks samples/gpu_metrics_kernels MS windows traced with --capture profiler
and --gpu-metrics (tests/gpu/gpu_metrics.sh): the four measured kernels, each
in a capture window of its own, and GPU metrics sampled inside the windows only.

usage: check_gpu_metrics_windows.py PREFIX.json --interval-ns N

Checks that:
- the trace holds the four measured kernels, none of the calibration runs;
- the sampler stopped at each window's end (gpu_metrics.capture_pauses: the
  four windows, and the set-up outside them) and lost no sample;
- it sampled inside the windows only: the samples it kept number about the
  windows' time over the interval, not the whole run's;
- each kernel is covered from its start to its end: the first and last
  samples whose GR Active shows it (the compute engine busy: above the 10 %
  an idle device stays under) lie within one interval of both, with a sample
  for nearly every interval of it (sampling started before the window's
  first kernel, with no gap). GR Active rather than SMs Active: a copy's
  last blocks keep the engine busy while most SMs are already idle.
Exits 0 when all hold.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_gpu_metrics import read_json, short_name  # noqa: E402


GR_ACTIVE = "GR Active [Throughput %]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--interval-ns", type=int, default=100_000)
    a = ap.parse_args()
    interval = a.interval_ns
    problems = []
    points, kernels, meta = read_json(a.json)
    counters = meta.get("counters", {})
    windows = [(w["start_ns"], w["end_ns"]) for w in meta.get("capture_windows", [])]
    names = sorted(short_name(k[0]) for k in kernels)
    print("kernels:", names, "windows:", len(windows))
    if names != sorted(["stream_copy", "fma_loop", "mma_loop", "sleep_kernel"]):
        problems.append("want the four measured kernels, got %s" % names)
    if len(windows) != 4:
        problems.append("want 4 capture windows, got %d" % len(windows))
    pauses = counters.get("gpu_metrics.capture_pauses", 0)
    lost = counters.get("gpu_metrics.samples_lost")
    kept = counters.get("gpu_metrics.samples", 0)
    window_ns = sum(e - s for s, e in windows)
    print("capture_pauses %d, samples kept by the sampler %d, lost %s, windows %.1f ms (%d intervals)" % (
        pauses, kept, lost, window_ns / 1e6, window_ns // interval))
    if pauses < 4:
        problems.append("gpu_metrics.capture_pauses %d: sampling did not stop at the windows' ends" % pauses)
    if lost != 0:
        problems.append("gpu_metrics.samples_lost %s" % lost)
    # A window's last decode may hold a few samples past its end (they leave the trace).
    if kept > window_ns / interval * 1.1 + 200:
        problems.append("%d samples decoded for %.1f ms of windows: sampled outside them" % (kept, window_ns / 1e6))
    gr = sorted(points.get(GR_ACTIVE, []))
    if not gr:
        problems.append("no %s samples" % GR_ACTIVE)
    for name, start, end in sorted(kernels, key=lambda k: k[1]):
        inside = [(t, v) for t, v in gr if start - interval < t < end]
        active = [t for t, v in inside if v > 10]
        want = (end - start) / interval
        first = active[0] - start if active else None
        last = active[-1] + interval - end if active else None
        print("  %-13s %6.1f ms: %5d samples (%.0f intervals), first active %s ns from its start, last %s ns "
              "from its end" % (short_name(name), (end - start) / 1e6, len(inside), want, first, last))
        if len(inside) < 0.95 * want - 2:
            problems.append("%s: %d samples for %.0f intervals" % (short_name(name), len(inside), want))
        if first is None or abs(first) > interval or abs(last) > interval:
            problems.append("%s: first/last active sample %s/%s ns from its start/end (want within %d)" % (
                short_name(name), first, last, interval))
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
