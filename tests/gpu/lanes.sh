#!/usr/bin/env bash
# Concurrent work on one stream drawn on lanes: samples/graph_branches (a CUDA
# graph of parallel branches of different lengths, launched R times into one
# stream) traced into JSON, .pftrace and CSV; check_lanes.py checks that every
# kernel's slice has the CSV's start and end to the nanosecond in both
# timelines, that nothing was clamped, that the branches took several lanes
# and that every kernel has its arrow from its cudaGraphLaunch.
#
# With TRACE_PROCESSOR=/path/to/trace_processor_shell (Perfetto's), both files
# must also import with no error stat.
#
# usage: lanes.sh GRAPH_BRANCHES_BIN LIB OUTDIR [branches (default 6)] [launches (default 20)]
# Exit 77 (CTest: skipped) when there is no GPU.
set -u

if [ $# -lt 3 ]; then
  echo "usage: $0 GRAPH_BRANCHES_BIN LIB OUTDIR [branches] [launches]" >&2
  exit 2
fi
bin=$1 lib=$2 outdir=$3 branches=${4:-6} launches=${5:-20}
here=$(cd "$(dirname "$0")" && pwd)

if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP lanes: no GPU"
  exit 77
fi
mkdir -p "$outdir" || exit 1
prefix=$outdir/graph_branches
rm -rf "$prefix".*

env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" \
  CUPTITRACE_FORMAT=json,pftrace,csv CUPTITRACE_OUTPUT="$prefix" \
  "$bin" "$branches" "$launches" >"$prefix.stdout" 2>"$prefix.stderr"
rc=$?
echo "== graph_branches ($branches branches, $launches launches): exit $rc; stdout and stderr:"
cat "$prefix.stdout" "$prefix.stderr"
[ $rc -eq 77 ] && exit 77
if [ $rc -ne 0 ]; then
  echo "FAIL lanes: the traced run exited $rc"
  exit 1
fi
python3 "$here/check_lanes.py" "$prefix" --kernels $((launches * (branches + 2))) --min-lanes 2
