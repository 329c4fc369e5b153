"""What runs on a Dask worker: one rank's trace to its summary.

The trace is read by a `cuptitrace summarize` child process, not in the
worker: its memory (one trace) is given back when the child ends, and the
worker holds only the summary's bytes until the driver takes them.
"""
import os
import resource
import subprocess
import time

# GNU time reports a child's own peak RSS. getrusage cannot here: a child
# started from a large process (this worker) inherits that process's peak
# across exec, so RUSAGE_CHILDREN would say the worker's size.
GNU_TIME = "/usr/bin/time"


def measured_command(cmd):
    """`cmd` run under GNU time when it is there: (command, whether the peak is on stderr's last line)."""
    if os.access(GNU_TIME, os.X_OK):
        return [GNU_TIME, "-f", "%M"] + cmd, True
    return cmd, False


def peak_from_stderr(stderr):
    """The peak RSS in KiB that GNU time wrote last, and stderr without it."""
    lines = stderr.decode(errors="replace").rstrip("\n").split("\n")
    try:
        return int(lines[-1]), "\n".join(lines[:-1])
    except ValueError:
        return 0, "\n".join(lines)


class SummarizeError(RuntimeError):
    """cuptitrace itself could not run (a trace that cannot be read is not one)."""


def worker_name():
    """The Dask worker running this task, for the measurements."""
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return "not a worker"


def summarize(cuptitrace, paths, measure=False):
    """Returns (summary bytes, measurements) for the traces at `paths`, in their order.

    Several traces to a task spare a process start and a scheduler round trip
    per trace; summarize still reads one at a time.
    """
    start = time.monotonic()
    plain = [cuptitrace, "summarize"] + list(paths)
    cmd, timed = measured_command(plain) if measure else (plain, False)
    path = paths[0] if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    except OSError as e:
        raise SummarizeError(f"{path}: cannot run {cuptitrace} on this worker: {e}") from None
    peak, stderr = peak_from_stderr(done.stderr) if timed else (0, done.stderr.decode(errors="replace"))
    if done.returncode != 0:
        last = stderr.strip().splitlines()[-1:] or ["no message"]
        raise SummarizeError(f"{path}: cuptitrace summarize ended with {done.returncode}: {last[0]}")
    # ru_maxrss is in KiB on Linux.
    measured = {
        "seconds": time.monotonic() - start,
        "summarize_peak_kib": peak,
        "worker_peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "worker": worker_name(),
    }
    return done.stdout, measured
