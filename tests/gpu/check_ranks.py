"""Checks what `cuptitrace merge` and `cuptitrace stats` made of a job's ranks.

  check_ranks.py MERGED.json STATS.json key=value...

Keys (from the program's EXPECT line, plus what the test knows):
  world_size=N        ranks in the merged timeline, in rank order, each named "[rank r] ..."
                      with a GPU process of its own
  steps=S allreduce_per_step=A
                      every rank ran exactly S*A AllReduce kernels
  late_rank=R         (R >= 0) the rank findings name rank R the straggler of AllReduce
  min_nvtx_steps=S    each rank has at least S NVTX ranges named "step ..."
Prints one line per check ("ok   ..." / "FAIL ..."); exits 1 when one failed.
Needs no GPU: it reads files only, so it is tried on synthetic traces too.
"""
import json
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    merged = json.load(open(argv[1]))
    stats = json.load(open(argv[2]))
    want = dict(a.split("=", 1) for a in argv[3:])
    failures = 0

    def check(what, ok, detail=""):
        nonlocal failures
        print(("ok   " if ok else "FAIL ") + "ranks: " + what + (f" ({detail})" if detail else ""))
        failures += not ok

    events = merged["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    order = {e["pid"]: e["args"]["sort_index"] for e in events
             if e.get("ph") == "M" and e.get("name") == "process_sort_index"}
    print("processes in the merged timeline, in their order:")
    for pid in sorted(names, key=lambda p: (order.get(p, 0), p)):
        print(f"  {order.get(pid, '-')}: {names[pid]}")

    world = int(want.get("world_size", "0"))
    if world:
        inputs = merged["metadata"].get("inputs", [])
        ranks = [int(i.get("rank", -1)) for i in inputs]
        check("the merged inputs are the ranks in order", ranks == list(range(world)), ranks)
        hosts = [p for p, n in names.items() if n.startswith("[rank ") and " GPU " not in n]
        gpus = [p for p, n in names.items() if n.startswith("[rank ") and " GPU " in n]
        check("one host process per rank, named with its rank", len(hosts) == world, [names[p] for p in hosts])
        check("a GPU process under each rank", len(gpus) >= world, [names[p] for p in gpus])
        # Rank r's processes sort before rank r+1's.
        def rank_of(name):
            return int(name[len("[rank "):name.index("]")])
        sorted_pids = sorted(hosts + gpus, key=lambda p: order.get(p, 0))
        seq = [rank_of(names[p]) for p in sorted_pids]
        check("processes sorted by rank, each rank's GPUs after it", seq == sorted(seq), seq)

    reports = {r["name"]: r for r in stats["reports"]}
    if "steps" in want and "allreduce_per_step" in want:
        expected = int(want["steps"]) * int(want["allreduce_per_step"])
        for r in reports["collectives"]["rows"]:
            print(f"  {r['collective']} on {r['rank']}: {r['instances']} instances, median "
                  f"{r['median_ns'] / 1e3:.1f} us, last arrivals {r['last_arrivals']}")
        rows = [r for r in reports["collectives"]["rows"] if r["collective"] == "AllReduce"]
        counts = {r["rank"]: r["instances"] for r in rows}
        check(f"{expected} AllReduce kernels on every rank",
              len(counts) == (world or len(counts)) and all(n == expected for n in counts.values()), counts)
        for r in reports["ranks"]["rows"]:
            print(f"  {r['rank']}: compute {r['compute_ns'] / 1e6:.1f} ms, comm {r['comm_ns'] / 1e6:.1f} ms, "
                  f"copies {r['copies_ns'] / 1e6:.1f} ms, idle {r['idle_ns'] / 1e6:.1f} ms, "
                  f"comm overlapped {r['comm_overlapped_pct']}%")
    late = int(want.get("late_rank", "-1"))
    if late >= 0:
        findings = [r["finding"] for r in reports["rank_findings"]["rows"]]
        for f in reports["rank_findings"]["rows"]:
            print(f"  finding: {f['finding']}: {f['details']}")
        check(f"rank {late} named the straggler of AllReduce",
              f"rank {late} is the straggler of AllReduce: the other ranks wait for it" in findings, findings)
    if "min_nvtx_steps" in want:
        need = int(want["min_nvtx_steps"])
        per = {}
        for e in events:
            if e.get("cat") == "nvtx" and str(e.get("name", "")).startswith("step "):
                if e.get("ph") in ("X", "b"):
                    per[e["pid"]] = per.get(e["pid"], 0) + 1
        check(f"at least {need} NVTX step ranges on each rank",
              len(per) >= max(world, 1) and all(n >= need for n in per.values()),
              {names.get(p, p): n for p, n in per.items()})
        nccl = {}
        for e in events:
            if e.get("cat") == "nvtx" and str(e.get("name", "")).startswith("nccl"):
                nccl[e["name"]] = nccl.get(e["name"], 0) + 1
        print(f"  NCCL's own NVTX ranges (shown, not checked): {nccl}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
