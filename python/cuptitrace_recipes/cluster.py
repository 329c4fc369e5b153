"""The Dask client: a local cluster sized to the machine, or an existing scheduler."""
import contextlib
import logging
import os


def default_workers():
    """One worker per core this process may use: each task is one core's work."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@contextlib.contextmanager
def open_client(scheduler=None, workers=None, wait_s=60):
    """Yields a connected distributed.Client; closes what it started."""
    from distributed import Client, LocalCluster

    if scheduler:
        client = Client(scheduler, timeout=f"{wait_s}s")
        try:
            # Tasks would wait for ever on a scheduler without workers.
            client.wait_for_workers(1, timeout=wait_s)
            yield client
        finally:
            client.close()
        return
    # One thread per worker process: a task is a child process that reads one trace,
    # so the number of traces read at once is the number of workers, as with --jobs.
    cluster = LocalCluster(n_workers=workers or default_workers(), threads_per_worker=1,
                           processes=True, host="127.0.0.1", dashboard_address=None,
                           silence_logs=logging.ERROR)
    try:
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()
