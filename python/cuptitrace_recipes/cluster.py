"""The Dask client: a local cluster sized to the machine, private to this
process (in-process transport, no socket), or an existing scheduler."""
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
    import dask
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
    # The scheduler and its workers in this process, talking over Dask's in-process
    # transport: no socket is opened for them, so no other user of a shared machine
    # can reach them and submit code (a TCP scheduler, even on loopback, takes any
    # local user's tasks; TLS would need certificates and still listen). Threads
    # cost nothing here: a task's work is a `cuptitrace summarize` child process,
    # waited on with the GIL released. One thread a worker: the number of traces
    # read at once is the number of workers, as with --jobs.
    # Dask (2022.12, Debian 12) starts an HTTP server in every scheduler and worker
    # whatever the transport (health, metrics, task pages; the dashboard and a proxy
    # where those are installed): no pages, on loopback, closed once they are up.
    with dask.config.set({"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}):
        cluster = LocalCluster(n_workers=workers or default_workers(), threads_per_worker=1,
                               processes=False, protocol="inproc://", dashboard_address="127.0.0.1:0",
                               worker_dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
    for node in [cluster.scheduler] + list(cluster.workers.values()):
        server = getattr(node, "http_server", None)
        if server is not None:
            server.stop()
    try:
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()
