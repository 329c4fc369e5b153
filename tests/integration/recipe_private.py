"""The recipes' local Dask cluster is reachable from this process only: while
it runs, the process holds no listening TCP socket and no listening Unix
socket, and the scheduler and workers have in-process addresses.
Run by recipe_local.sh with the recipes' package on PYTHONPATH; exits 1,
saying what it found, when the cluster can be reached from outside."""
import os
import sys

from cuptitrace_recipes import cluster


def socket_inodes():
    """The inodes of the sockets this process holds open."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    return inodes


def listening(inodes):
    """Those of `inodes` that accept connections, as /proc/net says."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                parts = line.split()
                if parts[3] == "0A" and parts[9] in inodes:  # TCP_LISTEN
                    found.append(f"{table} {parts[1]}")
    with open("/proc/net/unix") as f:
        for line in f.readlines()[1:]:
            parts = line.split()
            if int(parts[3], 16) & 0x10000 and parts[6] in inodes:  # __SO_ACCEPTCON
                found.append("unix " + (parts[7] if len(parts) > 7 else "(unnamed)"))
    return found


def main():
    with cluster.open_client(None, 2) as client:
        addresses = [client.scheduler.address] + list(client.scheduler_info()["workers"])
        found = listening(socket_inodes())
    if found or len(addresses) != 3 or not all(a.startswith("inproc://") for a in addresses):
        print(f"listening: {found}; addresses: {addresses}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
