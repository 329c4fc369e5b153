#!/usr/bin/env bash
# CUDA graphs traced at graph level: samples/cuda_graph under
# CUPTITRACE_GRAPHS=graph must give one graph record per cudaGraphLaunch,
# each linked to its call (check_depth.py graph-mode).
#
# usage: graph_mode.sh CUDA_GRAPH_BIN LIB CUPTITRACE_BIN OUTDIR [launches (default 7)]
# Exit 77 (CTest: skipped) when there is no GPU.
set -u

if [ $# -lt 4 ]; then
  echo "usage: $0 CUDA_GRAPH_BIN LIB CUPTITRACE_BIN OUTDIR [launches]" >&2
  exit 2
fi
bin=$1 lib=$2 cli=$3 outdir=$4 launches=${5:-7}
here=$(cd "$(dirname "$0")" && pwd)

if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP graph_mode: no GPU"
  exit 77
fi
mkdir -p "$outdir" || exit 1
prefix=$outdir/cuda_graph-graph-mode
rm -rf "$prefix".*

env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" CUPTITRACE_GRAPHS=graph \
  CUPTITRACE_FORMAT=json,csv,native CUPTITRACE_OUTPUT="$prefix" \
  "$bin" "$launches" >"$prefix.stdout" 2>"$prefix.stderr"
rc=$?
echo "== cuda_graph (CUPTITRACE_GRAPHS=graph, $launches launches): exit $rc; stderr:"
cat "$prefix.stderr"
[ $rc -eq 77 ] && exit 77
if [ $rc -ne 0 ]; then
  echo "FAIL graph_mode: the traced run exited $rc"
  exit 1
fi
python3 "$here/check_depth.py" graph-mode "$prefix" --launches "$launches" --cuptitrace "$cli"
