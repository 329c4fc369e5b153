#!/usr/bin/env bash
# The OpenACC sample (samples/openacc) under the cuptitrace command, with GCC's
# OpenACC runtime (libgomp.so.1, libgomp-plugin-nvptx.so.1) from RUNTIME_DIR:
# the command sets ACC_PROFLIB, libgomp calls the library's
# acc_register_library, and the trace must hold the sample's launches,
# uploads, downloads and waits (check_openacc.py), the openacc report must
# print, at exit and from `cuptitrace stats`.
#
# usage: openacc.sh SAMPLE RUNTIME_DIR LIB CUPTITRACE_BIN OUTDIR
# Exit 77 (skipped) without a GPU, or when the sample was not built (no gcc-12-offload-nvptx).
set -u
sample=$1 runtime=$2 lib=$3 cli=$4 outdir=$5
here=$(cd "$(dirname "$0")" && pwd)

if [ -z "$sample" ] || [ ! -x "$sample" ]; then
  echo "SKIP openacc: the OpenACC sample was not built (gcc-12-offload-nvptx not installed where it was built)"
  exit 77
fi
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP openacc: no GPU (/dev/nvidia0 missing or nvidia-smi -L failed)"
  exit 77
fi
for f in "$runtime/libgomp.so.1" "$runtime/libgomp-plugin-nvptx.so.1" "$lib" "$cli"; do
  if [ ! -e "$f" ]; then
    echo "FAIL openacc: $f does not exist" >&2
    exit 1
  fi
done
mkdir -p "$outdir" || exit 1
prefix=$outdir/openacc_saxpy
rm -f "$prefix".* 2>/dev/null
export LD_LIBRARY_PATH="$runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset ACC_PROFLIB

# 1. Untraced: the program works on its own with this runtime, on the GPU.
"$sample" >"$prefix.untraced.out" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
  echo "SKIP openacc: the OpenACC runtime found no NVIDIA device:"
  cat "$prefix.untraced.out"
  exit 77
fi
if [ $rc -ne 0 ]; then
  echo "FAIL openacc: untraced run exited $rc:"
  cat "$prefix.untraced.out"
  exit 1
fi

# 2. Traced through the command, which sets ACC_PROFLIB.
"$cli" --library "$lib" --format json,csv,native,pftrace,sqlite --output "$prefix" -- "$sample" \
  >"$prefix.stdout" 2>"$prefix.stderr"
rc=$?
echo "== traced: exit $rc; stderr:"
cat "$prefix.stderr"
echo "== stdout:"
cat "$prefix.stdout"
if [ $rc -ne 0 ]; then
  echo "FAIL openacc: traced run exited $rc (untraced exited 0)"
  exit 1
fi
failures=0
fail() { echo "FAIL openacc: $*"; failures=$((failures + 1)); }

# 3. The records against the program's counts, the timeline, the SQLite tables.
python3 "$here/check_openacc.py" "$prefix" || failures=$((failures + 1))

# 4. The report: at exit (stderr) and from the saved trace.
grep -q "cuptitrace: OpenACC (excl)" "$prefix.stderr" || fail "the exit summary has no OpenACC (excl) table"
"$cli" stats "$prefix.native" --report openacc >"$prefix.openacc-report.txt" 2>&1 || fail "cuptitrace stats --report openacc failed"
echo "== cuptitrace stats --report openacc"
cat "$prefix.openacc-report.txt"
grep -q "acc_enqueue_launch" "$prefix.openacc-report.txt" || fail "the openacc report has no acc_enqueue_launch row"

if [ $failures -ne 0 ]; then
  echo "openacc: $failures check(s) failed; outputs in $outdir"
  exit 1
fi
echo "openacc: ok"
