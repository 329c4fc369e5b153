#!/usr/bin/env bash
# The recipe against `cuptitrace stats`: wall time and peak memory of the
# reports across ranks over synthetic jobs of bench/rank_bench (each rank S
# steps of 20 compute kernels, one all-reduce and a copy; rank N/3 late), for
# each number of ranks in RANKS and of workers in WORKERS:
#   stats   `cuptitrace stats --jobs W`: one process, W reader threads
#   recipe  `cuptitrace recipe rank_summary --workers W`: a local Dask
#           cluster of W worker processes, each task a `cuptitrace summarize`
#           child; the driver then runs `cuptitrace stats --summaries -`
# Peak memory: GNU time's maximum RSS for stats; for the recipe the driver
# (the Python process), the largest worker process and the largest summarize
# child, and the reports' step (from the recipe's --measure). Every output
# is compared with stats' (CSV): a difference stops the benchmark.
# Prints a Markdown table. The traces are read once before timing (page cache).
#   scripts/bench-recipe.sh [BUILD]   RANKS="64 256 1024" WORKERS="1 2 16"
#                                     STEPS=1000 REPEAT=1 DIR=/tmp/bench-recipe
set -euo pipefail
BUILD=${1:-${BUILD:-build}}
RANKS=${RANKS:-64 256 1024}
WORKERS=${WORKERS:-1 2 16}
STEPS=${STEPS:-1000}
REPEAT=${REPEAT:-1}
DIR=${DIR:-/tmp/bench-recipe}
cli=$BUILD/cli/cuptitrace
mkdir -p "$DIR"
bench=$BUILD/bench/rank_bench
for f in "$cli" "$bench" /usr/bin/time; do
  [ -x "$f" ] || { echo "bench-recipe: $f is missing (build cuptitrace_cli rank_bench; install time)" >&2; exit 2; }
done
reports=ranks,collectives,collective_spread,rank_findings
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
json() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| Ranks (traces) | Workers | stats --jobs W: wall, peak RSS | recipe: wall (cluster start, map) | recipe: driver, worker, summarize, reports' step peak RSS |"
echo "|---|---|---|---|---|"
for ranks in $RANKS; do
  job=$DIR/r$ranks
  if [ ! -e "$job/t.$((ranks - 1)).native" ]; then
    rm -rf "$job"
    "$bench" --ranks "$ranks" --steps "$STEPS" --kernels 20 --dir "$job" --generate-only >/dev/null
  fi
  size=$(du -sm "$job" | cut -f1)
  cat "$job"/t.*.native >/dev/null
  "$cli" stats "$job/t.*.native" --report "$reports" --format csv >"$DIR/expected.csv"
  for workers in $WORKERS; do
    for _ in $(seq "$REPEAT"); do
      /usr/bin/time -f "%e %M" -o "$DIR/stats.time" "$cli" stats "$job/t.*.native" --jobs "$workers" \
        --report "$reports" --format csv >"$DIR/stats.csv"
      cmp -s "$DIR/stats.csv" "$DIR/expected.csv" || { echo "bench-recipe: stats --jobs $workers differs" >&2; exit 1; }
      read -r swall speak <"$DIR/stats.time"
      /usr/bin/time -f "%e" -o "$DIR/recipe.time" "$cli" recipe rank_summary "$job/t.*.native" --workers "$workers" \
        --format csv --measure "$DIR/measure.json" >"$DIR/recipe.csv"
      cmp -s "$DIR/recipe.csv" "$DIR/expected.csv" || { echo "bench-recipe: the recipe differs from stats" >&2; exit 1; }
      rwall=$(cat "$DIR/recipe.time")
      start=$(printf "%.1f" "$(json "$DIR/measure.json" cluster_start_s)")
      map=$(printf "%.1f" "$(json "$DIR/measure.json" map_s)")
      echo "| $ranks ($size MiB) | $workers | ${swall} s, $(mib "$speak") MiB | ${rwall} s (${start} s, ${map} s) |" \
        "$(mib "$(json "$DIR/measure.json" driver_peak_kib)"), $(mib "$(json "$DIR/measure.json" worker_peak_kib)")," \
        "$(mib "$(json "$DIR/measure.json" summarize_peak_kib)"), $(mib "$(json "$DIR/measure.json" reduce_peak_kib)") MiB |"
    done
  done
done
