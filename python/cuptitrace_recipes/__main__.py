"""python3 -m cuptitrace_recipes: run by `cuptitrace recipe` (cli/recipe_command.cpp).

The command picks the recipe's reports and checks the options; this module maps
`cuptitrace summarize` over the traces on Dask and reduces with
`cuptitrace stats --summaries -`. Exit status: that of the reports' step, or 1
when the cluster or a task could not run.
"""
import argparse
import collections
import json
import resource
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


def map_summaries(client, cuptitrace, traces, measure):
    """The summaries' bytes, task by task in the order of `traces` (a list of
    traces per task), and each task's measurements."""
    import cloudpickle
    from distributed import as_completed

    # Workers started elsewhere (`dask worker`) need not have this package on
    # their path: the task's code travels with it.
    cloudpickle.register_pickle_by_value(tasks)
    futures = client.map(tasks.summarize, [cuptitrace] * len(traces), traces, measure=measure, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    blobs = [b""] * len(traces)
    measured = []
    for future in as_completed(futures):
        i = index[future.key]
        try:
            blobs[i], m = future.result()
        except Exception as e:  # a worker that could not run cuptitrace, or died
            for f in futures:
                f.cancel()
            raise RuntimeError(f"the task of {traces[i][0]} failed: {e}") from None
        measured.append(m)
        future.release()  # the worker can forget the summary once we have it
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
