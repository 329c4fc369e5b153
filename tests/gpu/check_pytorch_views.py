"""Checks the PyTorch views of the runs pytorch_views.sh made, against what
the CSV tables and the JSON timeline hold, computed here on their own.

  check_pytorch_views.py CUPTITRACE OUTDIR

Prints one line per check (`ok ...` or `FAIL ...`); exits 1 when one fails."""
import bisect
import csv
import json
import re
import subprocess
import sys
from collections import defaultdict

FIELDS = re.compile(r", (?:seq|op_id|sizes|input_op_ids) = ")
failures = 0


def check(ok, text):
    global failures
    print(("ok   " if ok else "FAIL ") + text)
    if not ok:
        failures += 1


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def report(cli, native, name, *extra):
    out = subprocess.run([cli, "stats", native, "--report", name, "--format", "json", *extra],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["reports"][0]


def op_name(message):
    return FIELDS.split(message, 1)[0]


class Run:
    """A run's operator ranges, launching calls and GPU work, from its CSV tables."""

    def __init__(self, prefix):
        self.ranges = defaultdict(list)  # thread -> [(start, end, name)], sorted by start
        for r in rows(prefix + ".nvtx.csv"):
            if r["type"] != "PushPop" or r["domain"] != "" or r["open"] == "1":
                continue
            self.ranges[r["thread_id"]].append((int(r["start_ns"]), int(r["end_ns"]), op_name(r["message"])))
        for v in self.ranges.values():
            v.sort(key=lambda x: (x[0], -x[1]))
        self.starts = {t: [x[0] for x in v] for t, v in self.ranges.items()}
        self.calls = {}
        for r in rows(prefix + ".api.csv"):
            if r["domain"] in ("runtime", "driver"):
                key = int(r["correlation_id"])
                if key not in self.calls or r["domain"] == "runtime":
                    self.calls[key] = (r["thread_id"], int(r["start_ns"]))
        self.work = []  # (duration, thread, call start, is kernel)
        for table, kernel in ((".kernels.csv", True), (".memcpy.csv", False), (".memset.csv", False)):
            try:
                recs = rows(prefix + table)
            except FileNotFoundError:
                continue
            for r in recs:
                call = self.calls.get(int(r["correlation_id"]))
                if call is not None and int(r["end_ns"]) >= int(r["start_ns"]) > 0:
                    self.work.append((int(r["end_ns"]) - int(r["start_ns"]), call[0], call[1], kernel))

    def open_at(self, thread, t):
        """The ranges open on `thread` at `t`, outermost first."""
        v = self.ranges.get(thread, [])
        n = bisect.bisect_right(self.starts.get(thread, []), t)
        return [x for x in v[:n] if x[0] <= t < x[1]]

    def device_times(self, name):
        """Device total and self time of operator `name`, as PyTorch counts them."""
        total = self_ = 0
        for dur, thread, t, _ in self.work:
            open_ = self.open_at(thread, t)
            total += dur * sum(1 for x in open_ if x[2] == name)
            if open_ and max(open_, key=lambda x: (x[0], -x[1]))[2] == name:
                self_ += dur
        return total, self_


def by_name(rep, key="name"):
    return {r[key]: r for r in rep["rows"]}


def check_operators(cli, out, run, names, backward):
    native = f"{out}/{run}.native"
    rep = report(cli, native, "operators")
    ops = defaultdict(lambda: {"device_total_ns": 0, "device_self_ns": 0, "calls": 0, "forward_op": ""})
    for r in rep["rows"]:  # with shapes, one row per name and shapes
        o = ops[r["name"]]
        for k in ("device_total_ns", "device_self_ns", "calls"):
            o[k] += r[k]
        o["forward_op"] = o["forward_op"] or r["forward_op"]
    csvrun = Run(f"{out}/{run}")
    for name in names:
        if name not in ops:
            check(False, f"{run}: operator {name} in the operators report")
            continue
        total, self_ = csvrun.device_times(name)
        o = ops[name]
        check(total > 0 and o["device_total_ns"] == total and o["device_self_ns"] == self_,
              f"{run}: {name}: {o['calls']} calls, device total {o['device_total_ns']} ns and self "
              f"{o['device_self_ns']} ns; from the CSV tables: {total} and {self_}")
    for node, forward in backward.items():
        got = ops.get(node, {}).get("forward_op")
        check(got == forward, f"{run}: backward node {node} links to its forward operator: {got} (want {forward})")
    return rep


def check_steps(cli, out, run, want):
    rep = report(cli, f"{out}/{run}.native", "breakdown")
    steps = [r for r in rep["rows"] if r["range"] != "Average"]
    avg = rep["rows"][-1]
    rule = next((n for n in rep["notes"] if n.startswith("Steps: ")), "")
    check(len(steps) == want and "optimizer" in rule,
          f"{run}: {len(steps)} steps found (want {want}); {rule}")
    check(avg["dataloader_ns"] > 0 and avg["cpu_exec_ns"] > 0,
          f"{run}: average step: DataLoader {avg['dataloader_ns']:.0f} ns, CPU Exec {avg['cpu_exec_ns']:.0f} ns, "
          f"Kernel {avg['kernel_ns']:.0f} ns of {avg['total_ns']} ns")


def tensor_share(cli, out, run):
    rep = report(cli, f"{out}/{run}.native", "gpu_summary")
    return rep["rows"][0]["tensor_core_pct"], rep["rows"][0]


def check_python_lines(cli, out, run):
    with open(f"{out}/{run}.json", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    calls = kernels = 0
    lines = set()
    for e in events:
        line = (e.get("args") or {}).get("python")
        if not line:
            continue
        lines.add(line.split(" <- ")[0])
        if e.get("cat") == "kernel":
            kernels += 1
        elif e.get("cat") in ("cuda_runtime", "cuda_driver"):
            calls += 1
    mine = sorted(x for x in lines if "pytorch_train.py:" in x)
    check(calls > 0 and kernels > 0 and mine,
          f"{run}: {calls} CUDA calls and {kernels} kernels carry a Python line; lines of the program: {mine[:4]}")
    rep = report(cli, f"{out}/{run}.native", "kernels", "--by-python")
    grouped = [r for r in rep["rows"] if "pytorch_train.py:" in r.get("python", "")]
    check(len(grouped) > 0, f"{run}: kernels --by-python: {len(grouped)} rows name a line of pytorch_train.py")


def check_occupancy(cli, out):
    want = {}
    with open(f"{out}/occupancy.out", encoding="utf-8") as f:
        for line in f:
            m = re.match(r"occupancy (\S+) .*blocks_per_sm=(\d+) theoretical_pct=([\d.]+)", line)
            if m:
                want[m.group(1)] = (int(m.group(2)), float(m.group(3)))
    check(len(want) == 3, f"occupancy: CUDA's calculator answered for {len(want)} kernels (want 3)")
    rep = report(cli, f"{out}/occupancy.native", "gpu_kernels")
    for r in rep["rows"]:
        for name, (blocks, pct) in want.items():
            if name in r["name"]:
                got = r["theoretical_occupancy_pct"]
                check(got is not None and abs(got - pct) < 0.01,
                      f"occupancy: {name}: theoretical {got}% (limited by {r['limited_by']}); CUDA's "
                      f"calculator: {pct}% ({blocks} blocks per SM)")


def main():
    cli, out = sys.argv[1], sys.argv[2]
    conv = ["aten::conv2d", "aten::addmm", "aten::cudnn_convolution", "ConvolutionBackward0", "AddmmBackward0"]
    links = {"ConvolutionBackward0": "aten::conv2d", "AddmmBackward0": "aten::addmm"}
    check_operators(cli, out, "fp32", conv, links)
    check_steps(cli, out, "fp32", 8)
    share, row = tensor_share(cli, out, "fp32")
    check(share == 0, f"fp32 with TF32 off: Tensor Core share {share}% (want 0)")
    check(row["sm_efficiency_pct"] is not None and row["achieved_occupancy_pct"] is not None,
          f"fp32: est. SM efficiency {row['sm_efficiency_pct']}%, est. achieved occupancy "
          f"{row['achieved_occupancy_pct']}%, utilization {row['utilization_pct']}%")

    rep = check_operators(cli, out, "half", ["aten::conv2d", "aten::addmm", "aten::mm"], links)
    shapes = [r["input_shapes"] for r in rep["rows"] if r["name"] == "aten::addmm"]
    check(shapes and all(s.startswith("[[") for s in shapes), f"half with shapes: aten::addmm shapes {shapes[:2]}")
    check_steps(cli, out, "half", 8)
    share, _ = tensor_share(cli, out, "half")
    check(share > 0, f"half: Tensor Core share {share}% (want > 0)")
    check_python_lines(cli, out, "half")

    rep = report(cli, f"{out}/compile.native", "operators")
    check(len(rep["rows"]) > 0, f"compile: {len(rep['rows'])} operators")
    check_steps(cli, out, "compile", 6)

    check_occupancy(cli, out)
    print(f"check_pytorch_views: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
