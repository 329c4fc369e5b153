#!/usr/bin/env bash
# How long writing a trace takes with one writer thread and with every core,
# paired in one run, per million records, without a GPU: what a program's
# exit waits for (export_bench --exit: each format written as at exit, the
# store within the default memory cap and the rest spilled), then the
# command on a saved trace of the same size: cuptitrace convert to each
# format, cuptitrace merge of two traces of half the size each into JSON and
# .pftrace, and cuptitrace stats.
#   scripts/bench-writers.sh [BUILD]   BUILD defaults to build-gpu; PAIRS=5000000 (launches:
#                                      twice as many records), DIR=/tmp/cuptitrace-writers,
#                                      FORMATS="native pftrace json sqlite csv", REPEAT=1,
#                                      EXIT=0 leaves out the exit rows
set -euo pipefail
BUILD=${1:-${BUILD:-build-gpu}}
PAIRS=${PAIRS:-5000000}
DIR=${DIR:-/tmp/cuptitrace-writers}
FORMATS=${FORMATS:-native pftrace json sqlite csv}
REPEAT=${REPEAT:-1}
EXIT=${EXIT:-1}
bench=$BUILD/bench/export_bench
cli=$BUILD/cli/cuptitrace
for f in "$bench" "$cli"; do
  [ -x "$f" ] || { echo "bench-writers: $f is missing (build targets export_bench cuptitrace_cli)" >&2; exit 2; }
done
rm -rf "$DIR"
mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT
records=$((2 * PAIRS))
cores=$(nproc)

[ "$EXIT" = 0 ] || "$bench" --pairs "$PAIRS" --repeat "$REPEAT" --exit "$DIR"

# The saved traces: one of PAIRS launches, two of half as many for merge.
"$bench" --pairs "$PAIRS" --native "$DIR/whole.native"
"$bench" --pairs $((PAIRS / 2)) --seed 2 --native "$DIR/a.native"
"$bench" --pairs $((PAIRS / 2)) --seed 3 --native "$DIR/b.native"

# Seconds of `$@` with CUPTITRACE_WRITER_THREADS=$1 (its outputs removed after).
timed() {
  local threads=$1
  shift
  local t0 t1
  t0=$(date +%s%N)
  CUPTITRACE_WRITER_THREADS=$threads "$@" >/dev/null 2>"$DIR/err" || { echo "bench-writers: $* failed: $(tail -2 "$DIR/err")" >&2; exit 1; }
  t1=$(date +%s%N)
  rm -f "$DIR"/out.*
  awk -v t=$((t1 - t0)) 'BEGIN {printf "%.3f", t / 1e9}'
}
row() {
  local name=$1
  shift
  local one all
  one=$(timed 1 "$@")
  all=$(timed "$cores" "$@")
  awk -v n="$name" -v a="$one" -v b="$all" -v r="$records" 'BEGIN {
    printf "%-22s %10.3f %10.3f %10.3f %10.3f %8.2f\n", n, a, a / (r / 1e6), b, b / (r / 1e6), a / b }'
}
echo
echo "the command on $((records / 1000000)) M records, 1 writer thread and $cores (all cores)"
printf '%-22s %10s %10s %10s %10s %8s\n' command "1 thread s" s/M "all s" s/M ratio
for f in $FORMATS; do row "convert --to $f" "$cli" convert "$DIR/whole.native" --to "$f" -o "$DIR/out" --overwrite; done
row "merge -o .json" "$cli" merge "$DIR/a.native" "$DIR/b.native" -o "$DIR/out.json" --overwrite
row "merge -o .pftrace" "$cli" merge "$DIR/a.native" "$DIR/b.native" -o "$DIR/out.pftrace" --overwrite
row "stats" "$cli" stats "$DIR/whole.native"
