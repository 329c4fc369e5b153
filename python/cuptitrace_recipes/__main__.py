"""python3 -m cuptitrace_recipes: run by `cuptitrace recipe` (cli/recipe_command.cpp).

The command picks the recipe's reports and checks the options; this module maps
`cuptitrace summarize` over the traces on Dask and reduces with
`cuptitrace stats --summaries -`. Exit status: that of the reports' step, or 1
when the cluster could not run. A trace whose task failed is named by the
reports' step, with why, and the reports cover the others.
"""
import argparse
import collections
import json
import os
import resource
import struct
import subprocess
import sys
import time

from . import cluster, tasks


def parse(argv):
    p = argparse.ArgumentParser(prog="cuptitrace recipe")
    p.add_argument("--recipe", required=True)
    p.add_argument("--reports", required=True, help="--report of cuptitrace stats")
    p.add_argument("--cuptitrace", required=True, help="the cuptitrace binary, at this path on every worker")
    p.add_argument("--workers", type=int)
    p.add_argument("--scheduler")
    p.add_argument("--wait", type=int, default=60, help="seconds to wait for the scheduler and a first worker")
    p.add_argument("--format")
    p.add_argument("--time-unit")
    p.add_argument("--top")
    p.add_argument("--name-width")
    p.add_argument("--measure", help="write times and peak memory as JSON here")
    p.add_argument("--traces-per-task", type=int, help="default: about 8 tasks per worker, at most 32 traces each")
    p.add_argument("traces", nargs="+")
    return p.parse_args(argv)


def batches(traces, workers, per_task=None):
    """`traces` cut in order into the tasks' lists.

    A task per trace costs a process start and a scheduler round trip each
    (several milliseconds, as long as reading a trace of a few MiB); a few
    tasks per worker keep the workers evenly busy while sparing most of that.
    """
    size = per_task or max(1, min(32, len(traces) // (max(1, workers) * 8)))
    return [traces[i:i + size] for i in range(0, len(traces), size)]


# `cuptitrace stats --summaries` reads a trace that could not be summarized as
# a failure blob (reports/rank_summary_blob.h): "CTRS", u16 version, u16 kind 1,
# u64 payload length, then the file and the reason, each a u32 length and bytes.
BLOB_VERSION = 1
FAILURE_KIND = 1


def failure_blob(path, reason):
    """The blob saying that `path` could not be summarized and why (one line)."""
    def text(s):
        b = s.encode("utf-8", errors="replace")
        return struct.pack("<I", len(b)) + b
    payload = text(path) + text(" ".join(str(reason).split()) or "no message")
    return b"CTRS" + struct.pack("<HHQ", BLOB_VERSION, FAILURE_KIND, len(payload)) + payload


def task_failure(path, error):
    """Why the task of `path` failed, in one line naming it."""
    message = " ".join(str(error).split()) or type(error).__name__
    if message.startswith(path):
        return message
    return f"{path}: its task failed on the Dask cluster ({type(error).__name__}: {message})"


def run_tasks(client, cuptitrace, traces, measure):
    """(result or exception, in the order of `traces`: a list of traces per task)."""
    from distributed import as_completed

    futures = client.map(tasks.summarize, [cuptitrace] * len(traces), traces, measure=measure, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    results = [None] * len(traces)
    for future in as_completed(futures):
        i = index[future.key]
        try:
            results[i] = future.result()
        except Exception as e:  # cuptitrace could not run there, or the worker died
            results[i] = e
        future.release()  # the worker can forget the summary once we have it
    return results


def map_summaries(client, cuptitrace, traces, measure):
    """The summaries' bytes, task by task in the order of `traces` (a list of
    traces per task), and each task's measurements.

    A task that fails loses no other task's summaries: a task of several traces
    is run again one trace a task, and each trace whose own task fails gets a
    failure blob naming it and why, so that the reports cover the others and
    say which they do not."""
    import cloudpickle

    # Workers started elsewhere (`dask worker`) need not have this package on
    # their path: the task's code travels with it.
    cloudpickle.register_pickle_by_value(tasks)
    results = run_tasks(client, cuptitrace, traces, measure)
    again = [i for i, r in enumerate(results) if isinstance(r, Exception) and len(traces[i]) > 1]
    singles = [[path] for i in again for path in traces[i]]
    alone = iter(run_tasks(client, cuptitrace, singles, measure) if singles else [])
    blobs = [b""] * len(traces)
    measured = []
    for i, r in enumerate(results):
        if isinstance(r, Exception) and len(traces[i]) > 1:
            pairs = [(path, next(alone)) for path in traces[i]]
        else:
            pairs = [(traces[i][0], r)]
        for path, part in pairs:
            if isinstance(part, Exception):
                blobs[i] += failure_blob(path, task_failure(path, part))
            else:
                blobs[i] += part[0]
                measured.append(part[1])
    return blobs, measured


def reduce_summaries(args, blobs):
    """Runs `cuptitrace stats --summaries -` on the summaries; returns (exit status, its peak RSS in KiB when measured)."""
    cmd = [args.cuptitrace, "stats", "--summaries", "-", "--report", args.reports]
    for flag in ("format", "time_unit", "top", "name_width"):
        value = getattr(args, flag)
        if value is not None:
            cmd += ["--" + flag.replace("_", "-"), value]
    sys.stdout.flush()
    cmd, timed = tasks.measured_command(cmd) if args.measure else (cmd, False)
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE if timed else None)
    try:
        for b in blobs:
            proc.stdin.write(b)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    peak = 0
    if timed:
        peak, stderr = tasks.peak_from_stderr(proc.stderr.read())
        if stderr:
            print(stderr, file=sys.stderr)
    return proc.wait(), peak


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    # Workers elsewhere (--scheduler) run in their own directories: paths relative
    # to ours would name other files there, or none.
    args.traces = [os.path.abspath(t) for t in args.traces]
    start = time.monotonic()
    try:
        with cluster.open_client(args.scheduler, args.workers, args.wait) as client:
            ready = time.monotonic()
            workers = len(client.scheduler_info().get("workers", {}))
            work = batches(args.traces, workers, args.traces_per_task)
            blobs, measured = map_summaries(client, args.cuptitrace, work, bool(args.measure))
            mapped = time.monotonic()
    except Exception as e:  # the scheduler unreachable, no workers, a task that could not run
        where = f"the Dask scheduler at {args.scheduler}" if args.scheduler else "a local Dask cluster"
        print(f"cuptitrace recipe: {args.recipe} on {where}: {e}", file=sys.stderr)
        return 1
    closed = time.monotonic()
    rc, reduce_kib = reduce_summaries(args, blobs)
    end = time.monotonic()
    if args.measure:
        m = {
            "recipe": args.recipe,
            "traces": len(args.traces),
            "tasks": len(work),
            "workers": workers,
            "scheduler": bool(args.scheduler),
            "wall_s": end - start,
            "cluster_start_s": ready - start,
            "map_s": mapped - ready,
            "cluster_stop_s": closed - mapped,
            "reduce_s": end - closed,
            "summaries_bytes": sum(len(b) for b in blobs),
            "driver_peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "reduce_peak_kib": reduce_kib,
            "worker_peak_kib": max((x["worker_peak_kib"] for x in measured), default=0),
            "summarize_peak_kib": max((x["summarize_peak_kib"] for x in measured), default=0),
            "tasks_per_worker": dict(collections.Counter(x["worker"] for x in measured)),
        }
        with open(args.measure, "w") as f:
            json.dump(m, f, indent=1)
    return rc


if __name__ == "__main__":
    sys.exit(main())
