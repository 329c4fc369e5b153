#!/usr/bin/env bash
# Runs one sample under libcuptitrace.so and checks what it wrote.
#
# usage: run_sample.sh SAMPLE_BIN LIB CUPTITRACE_BIN OUTDIR [sample args...]
#
# Exit 77 (CTest: skipped) when there is no GPU. Otherwise: runs the sample once
# untraced (it must work on its own), then traced with every output format into
# OUTDIR/<sample>.*, and runs check_trace.py on the result; exits with its status.
# Leaves in OUTDIR: the trace (<sample>.json, .*.csv, .native, .native-check/),
# the runs' output (<sample>.untraced.out, .stdout, .stderr), the checker's
# report (<sample>.check.txt) and <sample>.summary.tsv (read by scripts/gpu-test.sh).
#
# RUN_SAMPLE_ACTIVITIES picks the activity kinds (default: default). With
# RUN_SAMPLE_VIA_CLI=1 the traced run goes through the cuptitrace command
# (which preloads the library when osrt is selected) instead of the bare
# injection variables.
set -u

if [ $# -lt 4 ]; then
  echo "usage: $0 SAMPLE_BIN LIB CUPTITRACE_BIN OUTDIR [sample args...]" >&2
  exit 2
fi
sample_bin=$1 lib=$2 cli=$3 outdir=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$sample_bin")

if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP $name: no GPU (/dev/nvidia0 missing or nvidia-smi -L failed)"
  exit 77
fi
for f in "$sample_bin" "$lib" "$cli"; do
  if [ ! -e "$f" ]; then
    echo "FAIL $name: $f does not exist" >&2
    exit 1
  fi
done

mkdir -p "$outdir" || exit 1
prefix=$outdir/$name
rm -rf "$prefix".json "$prefix".*.csv "$prefix".native "$prefix".native-check "$prefix".reports.txt \
  "$prefix".untraced.out "$prefix".stdout "$prefix".stderr "$prefix".summary.tsv "$prefix".check.txt

# 1. Untraced: the sample itself must work (and tells us about a missing GPU).
"$sample_bin" "$@" >"$prefix.untraced.out" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
  echo "SKIP $name: the sample found no usable GPU:"
  cat "$prefix.untraced.out"
  exit 77
fi
if [ $rc -ne 0 ]; then
  echo "FAIL $name: untraced run exited $rc:"
  cat "$prefix.untraced.out"
  exit 1
fi

# 2. Traced, every output format. Only our variables are set; any other
# CUPTITRACE_* in the caller's environment is left as it is.
activities=${RUN_SAMPLE_ACTIVITIES:-default}
if [ "${RUN_SAMPLE_VIA_CLI:-0}" = 1 ]; then
  "$cli" --library "$lib" --format json,csv,native --activities "$activities" --output "$prefix" -- \
    "$sample_bin" "$@" >"$prefix.stdout" 2>"$prefix.stderr"
else
  env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" \
    CUPTITRACE_FORMAT=json,csv,native CUPTITRACE_ACTIVITIES="$activities" CUPTITRACE_OUTPUT="$prefix" \
    "$sample_bin" "$@" >"$prefix.stdout" 2>"$prefix.stderr"
fi
rc=$?
echo "== $name traced: exit $rc; stderr:"
cat "$prefix.stderr"
echo "== $name stdout (last line):"
tail -n 1 "$prefix.stdout"
if [ $rc -ne 0 ]; then
  echo "FAIL $name: traced run exited $rc (untraced exited 0)"
  exit 1
fi

# 3. Check the outputs.
echo "== check_trace.py"
python3 "$here/check_trace.py" "$prefix.stdout" "$prefix" --cuptitrace "$cli" \
  --summary "$prefix.summary.tsv" --sample "$name" 2>&1 | tee "$prefix.check.txt"
exit "${PIPESTATUS[0]}"
