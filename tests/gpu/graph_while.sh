#!/usr/bin/env bash
# The bodies of a conditional while node: samples/graph_while (a graph whose
# top level is one while node, launched L times, I iterations of 3 kernels
# each) traced into JSON; check_graph_while.py checks that every kernel ran
# (3 x I x L), that each has exactly one arrow, from a cudaGraphLaunch, and
# that the kernels of each launch come from that launch's call (L calls, each
# the source of 3 x I kernels that start after it).
#
# usage: graph_while.sh GRAPH_WHILE_BIN LIB OUTDIR [iterations (default 10)] [launches (default 2)]
# Exit 77 (CTest: skipped) when there is no GPU or no CUDA 12.4 driver.
set -u

if [ $# -lt 3 ]; then
  echo "usage: $0 GRAPH_WHILE_BIN LIB OUTDIR [iterations] [launches]" >&2
  exit 2
fi
bin=$1 lib=$2 outdir=$3 iterations=${4:-10} launches=${5:-2}
here=$(cd "$(dirname "$0")" && pwd)

if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP graph_while: no GPU"
  exit 77
fi
mkdir -p "$outdir" || exit 1
prefix=$outdir/graph_while
rm -rf "$prefix".*

env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" \
  CUPTITRACE_FORMAT=json,pftrace CUPTITRACE_OUTPUT="$prefix" \
  "$bin" "$iterations" "$launches" >"$prefix.stdout" 2>"$prefix.stderr"
rc=$?
echo "== graph_while ($iterations iterations, $launches launches): exit $rc; stdout and stderr:"
cat "$prefix.stdout" "$prefix.stderr"
[ $rc -eq 77 ] && exit 77
if [ $rc -ne 0 ]; then
  echo "FAIL graph_while: the traced run exited $rc"
  exit 1
fi
python3 "$here/check_graph_while.py" "$prefix.json" --kernels $((3 * iterations * launches)) --launches "$launches"
