"""GPU metrics at one rate, read back from a native trace of samples/gpu_metrics_rate.

usage: check_gpu_metrics_rate.py TRACE.native --interval-ns N [--targets] [--reset] [--report-only]

Prints two lines. The first: samples kept, samples lost (the trace's gpu_metrics.samples_lost),
the longest gap between two samples, the sampling thread's CPU time as a
fraction of a core (gpu_metrics.sampler_cpu_ns over gpu_metrics.sampling_ns)
and the evaluation's, and the alignment check: for each kernel, the first
and last sample whose SMs Active shows it (20 % or more), looked for between
the midpoints of the idle times around the kernel, must lie within one
period of the kernel's start and end. With --reset the time the device had
no context (the kernels' pause around cudaDeviceReset) is not a gap. The
second: how the decodes went (gpu_metrics.decodes and the time they are
measured over, the longest decode call, the longest time between two decodes
of a session, the wall time in CUPTI's decode proper and in reading the
samples' spans, per second of sampling, the images' room and how many were
made afresh), so that a run explains its losses and its CPU time.

Exit 1 when a check fails: always the alignment (95 % of the kernels, and
every kernel has a sample over it); with --targets also 0 samples lost, no
gap longer than a period (the sampler's share of a core is printed against
its target of 0.25, not checked: a cost belongs to the benchmarks); with
--reset, samples over the kernels after cudaDeviceReset and
gpu_metrics.sessions_resumed 1. --report-only prints what fails and exits 0.

Python standard library only: it runs on the GPU machine as it is.
"""

import argparse
import bisect
import re
import struct
import sys

KIND_KERNEL = 0
KIND_GPU_METRIC = 13
SET_MAGIC = "gpu-metrics/1\n"


def read_native(path):
    """(strings, counters, kernels [(start, end, name id)], samples [(start, end, set id, values)])."""
    data = open(path, "rb").read()
    if data[:8] != b"CUPTITRC":
        raise SystemExit("%s: not a native trace" % path)
    pos = 12
    strings, counters, kernels, samples = [""], {}, [], []
    while pos + 12 <= len(data):
        tag, length = struct.unpack_from("<IQ", data, pos)
        pos += 12
        body = data[pos:pos + length]
        pos += length
        if tag == 0:
            break
        if tag == 1:
            count = struct.unpack_from("<I", body, 0)[0]
            at = 4
            for _ in range(count):
                n = struct.unpack_from("<I", body, at)[0]
                strings.append(body[at + 4:at + 4 + n].decode("utf-8", "replace"))
                at += 4 + n
        elif tag == 2:
            # Counters are written as (u32 length, name, u64 value): found by their names.
            for m in re.finditer(rb"(gpu_metrics\.[a-z_]+)", body):
                name = m.group(1)
                start = m.start()
                if start < 4 or struct.unpack_from("<I", body, start - 4)[0] != len(name):
                    continue
                if m.end() + 8 <= len(body):
                    counters[name.decode()] = struct.unpack_from("<Q", body, m.end())[0]
        elif tag == 3:
            kind, size, count = struct.unpack_from("<BIQ", body, 0)
            raw = body[13:13 + size * count]
            if kind == KIND_KERNEL and size == 80:
                for i in range(count):
                    start, end, _node, name = struct.unpack_from("<QQQI", raw, i * size)
                    kernels.append((start, end, name))
            elif kind == KIND_GPU_METRIC and size == 88:
                for i in range(count):
                    rec = struct.unpack_from("<QQII16f", raw, i * size)
                    samples.append((rec[0], rec[1], rec[3], rec[4:]))
    return strings, counters, kernels, samples


def sm_active_slot(strings, set_id):
    text = strings[set_id] if 0 < set_id < len(strings) else ""
    if not text.startswith(SET_MAGIC):
        return None
    for i, line in enumerate(text[len(SET_MAGIC):].splitlines()):
        parts = line.split("\t")
        if len(parts) > 1 and parts[1].startswith("SMs Active"):
            return i
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("native")
    ap.add_argument("--interval-ns", type=int, required=True)
    ap.add_argument("--targets", action="store_true")
    ap.add_argument("--reset", action="store_true")
    ap.add_argument("--report-only", action="store_true", help="print what fails, exit 0")
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    period = a.interval_ns
    strings, c, kernels, samples = read_native(a.native)
    kernels = sorted(k for k in kernels if k[1] > k[0] and "sleep_kernel" in strings[k[2]])
    samples.sort(key=lambda s: s[0])
    problems = []

    gaps = [(samples[i][0] - samples[i - 1][1], samples[i - 1][1]) for i in range(1, len(samples))]
    pause = (0, 0)
    if a.reset and len(kernels) > 1:
        # The longest time between two kernels is the reset's: no context then, no samples.
        i = max(range(1, len(kernels)), key=lambda i: kernels[i][0] - kernels[i - 1][1])
        pause = (kernels[i - 1][1], kernels[i][0])
        gaps = [g for g in gaps if not (g[1] >= pause[0] - period and g[1] + g[0] <= pause[1] + period)]
    longest = max(gaps, default=(0, 0))
    lost = c.get("gpu_metrics.samples_lost", -1)
    wall = c.get("gpu_metrics.sampling_ns", 0)
    cpu = c.get("gpu_metrics.sampler_cpu_ns", 0) / wall if wall else float("nan")
    evaluate = c.get("gpu_metrics.evaluate_cpu_ns", 0) / wall if wall else float("nan")

    # SMs Active of each sample, by its set's slot.
    slots = {}
    active = []
    for start, end, set_id, values in samples:
        if set_id not in slots:
            slots[set_id] = sm_active_slot(strings, set_id)
        slot = slots[set_id]
        active.append((start, end, values[slot] if slot is not None else float("nan")))
    starts = [s[0] for s in active]

    aligned = unsampled = 0
    worst = []
    edges = []  # (first sample showing a kernel - its start, last sample's end - its end)
    for i, (ks, ke, _) in enumerate(kernels):
        lo = (kernels[i - 1][1] + ks) // 2 if i else ks - 5 * period
        hi = (ke + kernels[i + 1][0]) // 2 if i + 1 < len(kernels) else ke + 5 * period
        first_i = bisect.bisect_left(starts, lo)
        shown = [s for s in active[first_i:bisect.bisect_right(starts, hi)] if s[1] <= hi and s[2] >= 20]
        over = [s for s in active[bisect.bisect_left(starts, ks - period):bisect.bisect_right(starts, ke)]
                if s[1] > ks]
        if not over:
            unsampled += 1
        if not shown:
            worst.append((ke - ks, None, None))
            continue
        d_start = shown[0][0] - ks
        d_end = shown[-1][1] - ke
        edges.append((d_start, d_end))
        if abs(d_start) <= period and abs(d_end) <= period:
            aligned += 1
        else:
            worst.append((ke - ks, d_start, d_end))

    resumed = c.get("gpu_metrics.sessions_resumed", 0)
    line = ("%s: %d samples, %d lost, longest gap %.1f us (period %.1f us), sampler CPU %.3f of a core "
            "(evaluation %.3f), alignment %d/%d kernels within one period, %d kernels without a sample, "
            "overflows %d, images filled %d (%d samples lost right after them), evaluated inline %d, "
            "decode period %.1f ms, buffer %d MiB"
            % (a.label or a.native, len(samples), lost, longest[0] / 1e3, period / 1e3, cpu, evaluate,
               aligned, len(kernels), unsampled, c.get("gpu_metrics.overflows", 0),
               c.get("gpu_metrics.images_filled", 0), c.get("gpu_metrics.samples_lost_at_fill", 0),
               c.get("gpu_metrics.evaluated_inline", 0),
               c.get("gpu_metrics.decode_period_ns", 0) / 1e6, c.get("gpu_metrics.hardware_buffer_bytes", 0) >> 20))
    if edges:
        # Where the samples put the kernels' edges, against the kernels' own clock.
        mid = lambda v: sorted(v)[len(v) // 2]
        line += (", median edge offsets %+.1f us (start) %+.1f us (end)"
                 % (mid([e[0] for e in edges]) / 1e3, mid([e[1] for e in edges]) / 1e3))
    if a.reset:
        line += ", sessions resumed %d (%.1f ms without a context left out of the gaps)" % (
            resumed, (pause[1] - pause[0]) / 1e6)
    print(line)
    decodes = c.get("gpu_metrics.decodes", 0)
    per_s = lambda name: c.get(name, 0) / wall if wall else float("nan")
    print("  decodes: %d (%.1f a second), longest decode call %.2f ms, longest between two decodes %.2f ms, "
          "in decode calls %.3f s a second (CUPTI's decode %.3f, spans %.3f), images of %d samples (%.1f MiB), "
          "%d made afresh"
          % (decodes, decodes * 1e9 / wall if wall else float("nan"), c.get("gpu_metrics.longest_decode_ns", 0) / 1e6,
             c.get("gpu_metrics.longest_decode_interval_ns", 0) / 1e6, per_s("gpu_metrics.decode_ns"),
             per_s("gpu_metrics.decode_data_ns"), per_s("gpu_metrics.decode_spans_ns"),
             c.get("gpu_metrics.image_samples", 0), c.get("gpu_metrics.image_bytes", 0) / 2**20,
             c.get("gpu_metrics.images_made", 0)))
    for k in worst[:5]:
        print("  kernel of %.2f ms: first sample showing it %s, last %s" %
              (k[0] / 1e6, "none" if k[1] is None else "%+.1f us from its start" % (k[1] / 1e3),
               "none" if k[2] is None else "%+.1f us from its end" % (k[2] / 1e3)))

    if not kernels or not samples:
        problems.append("no kernels or no samples in the trace")
    if aligned < 0.95 * len(kernels):
        problems.append("alignment: %d of %d kernels within one period" % (aligned, len(kernels)))
    if unsampled and not a.reset:
        problems.append("%d kernels without a sample over them" % unsampled)
    if a.targets:
        if lost != 0:
            problems.append("%d samples lost (want 0)" % lost)
        if longest[0] > period:
            problems.append("a gap of %.1f us at %d (want at most one period)" % (longest[0] / 1e3, longest[1]))
        # A cost, not a behaviour: printed for the benchmark's reader, never failed on
        # (a loaded host would fail it), like every speed target of the project.
        print("  sampling thread: %.3f of a core (target at most 0.25)" % cpu)
    if a.reset:
        if resumed != 1:
            problems.append("gpu_metrics.sessions_resumed is %d (want 1)" % resumed)
        # Kernels of the second half (after the reset's pause) have samples over them.
        pause = max(((kernels[i][0] - kernels[i - 1][1], i) for i in range(1, len(kernels))), default=(0, 0))
        after = kernels[pause[1]:]
        covered = sum(1 for ks, ke, _ in after
                      if any(s[1] > ks and s[0] < ke for s in
                             active[bisect.bisect_left(starts, ks - period):bisect.bisect_right(starts, ke)]))
        print("  after the reset: %d of %d kernels have samples" % (covered, len(after)))
        if not after or covered < 0.95 * len(after):
            problems.append("sampling did not resume after cudaDeviceReset (%d of %d kernels sampled)" %
                            (covered, len(after)))
    for p in problems:
        print(("  (reported only) " if a.report_only else "  FAIL ") + p)
    return 1 if problems and not a.report_only else 0


if __name__ == "__main__":
    sys.exit(main())
