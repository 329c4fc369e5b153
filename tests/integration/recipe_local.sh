#!/usr/bin/env bash
# `cuptitrace recipe` on a local Dask cluster of 2 workers over 64 synthetic
# ranks with a planted straggler: the same bytes as `cuptitrace stats` over
# the same traces (table, CSV, JSON; both recipes), from native traces and
# from the tracer's SQLite databases; a truncated rank's trace named in one
# line, the others reported, and how many ranks the reports cover said.
#   recipe_local.sh CUPTITRACE RANK_BENCH WORKDIR
set -euo pipefail
cli=$1 bench=$2 work=$3
. "$(dirname "$0")/dask_python.sh"
rm -rf "$work"
mkdir -p "$work"
make_job "$work/job"
recipe() { timeout 120 "$cli" recipe "$@"; }

"$cli" stats "$work/job/t.*.native" --report rank_findings >"$work/findings.txt"
grep -q "rank 21 is the straggler of AllReduce" "$work/findings.txt" || fail "the planted straggler is not found"

for format in table csv json; do
  "$cli" stats "$work/job/t.*.native" --report "$rank_reports" --format "$format" >"$work/stats.$format"
  recipe rank_summary "$work/job/t.*.native" --workers 2 --format "$format" >"$work/recipe.$format"
  cmp "$work/stats.$format" "$work/recipe.$format" || fail "rank_summary --format $format differs from cuptitrace stats"
done
"$cli" stats "$work/job/t.*.native" --report rank_kernels --format csv >"$work/stats-kernels.csv"
recipe kernel_summary "$work/job/t.*.native" --workers 2 --format csv >"$work/recipe-kernels.csv"
cmp "$work/stats-kernels.csv" "$work/recipe-kernels.csv" || fail "kernel_summary differs from cuptitrace stats"

# The tracer's SQLite databases, PREFIX.sqlite, of 8 ranks: the reports of their native traces.
mkdir -p "$work/sqlite"
natives=()
for r in 0 1 2 3 4 5 6 7; do
  cp "$work/job/t.$r.native" "$work/sqlite/"
  "$cli" convert "$work/sqlite/t.$r.native" --to sqlite >/dev/null
  natives+=("$work/sqlite/t.$r.native")
done
"$cli" stats "${natives[@]}" --report "$rank_reports" --format csv >"$work/stats-8.csv"
recipe rank_summary "$work/sqlite/t.*.sqlite" --workers 2 --format csv >"$work/recipe-sqlite.csv"
cmp "$work/stats-8.csv" "$work/recipe-sqlite.csv" || fail "the recipe over SQLite databases differs from stats over their native traces"

# A truncated rank: named once, the other 63 reported (their CSV rows are stats' over the 63).
cp -r "$work/job" "$work/cut"
truncate -s 4000 "$work/cut/t.5.native"
recipe rank_summary "$work/cut/t.*.native" --workers 2 --format csv >"$work/cut.csv" 2>"$work/cut.err" ||
  fail "the recipe failed over a truncated rank: $(cat "$work/cut.err")"
[ "$(grep -c "t\.5\.native" "$work/cut.err")" = 1 ] || fail "the truncated trace is not named in exactly one line: $(cat "$work/cut.err")"
grep -q "cover 63 of 64 ranks" "$work/cut.err" || fail "no 'cover 63 of 64 ranks' on stderr: $(cat "$work/cut.err")"
rm "$work/cut/t.5.native"
"$cli" stats "$work/cut/t.*.native" --report "$rank_reports" --format csv >"$work/stats-63.csv"
cmp "$work/stats-63.csv" "$work/cut.csv" || fail "the reports over 63 ranks differ from cuptitrace stats over them"
truncate -s 4000 "$work/job/t.5.native"
recipe rank_summary "$work/job/t.*.native" --workers 2 >"$work/cut.txt" 2>/dev/null
grep -q "These reports cover 63 of 64 ranks" "$work/cut.txt" || fail "the table does not say what it covers"

# The local cluster opens no socket that another user of the machine could reach: no
# listening TCP socket and no listening Unix socket in the recipe's process while it runs.
recipes=$(cd "$(dirname "$0")/../../python" && pwd)
PYTHONPATH=$recipes timeout 120 "$python" "$(dirname "$0")/recipe_private.py" ||
  fail "the local cluster is reachable from outside the process"

# A task that dies (cuptitrace killed on rank 5) loses no other rank: the task's other traces
# are summarized again alone, and the rank that failed is named, with why.
{
  echo '#!/usr/bin/env bash'
  echo 'for a in "$@"; do case $a in */t.5.native) kill -KILL $$;; esac; done'
  echo "exec \"$cli\" \"\$@\""
} >"$work/dies-on-5"
chmod +x "$work/dies-on-5"
cp -r "$work/job" "$work/dies"
traces=("$work"/dies/t.*.native)
PYTHONPATH=$recipes timeout 120 "$python" -m cuptitrace_recipes --recipe rank_summary --reports "$rank_reports" \
  --cuptitrace "$work/dies-on-5" --workers 2 --traces-per-task 8 --format csv "${traces[@]}" \
  >"$work/dies.csv" 2>"$work/dies.err" || fail "the recipe failed when one task died: $(cat "$work/dies.err")"
[ "$(grep -c "t\.5\.native" "$work/dies.err")" = 1 ] || fail "the dead rank is not named in exactly one line: $(cat "$work/dies.err")"
grep "t\.5\.native" "$work/dies.err" | grep -q -- "-9" || fail "the line does not say why: $(cat "$work/dies.err")"
grep -q "cover 63 of 64 ranks" "$work/dies.err" || fail "no 'cover 63 of 64 ranks' on stderr: $(cat "$work/dies.err")"
rm "$work/dies/t.5.native"
"$cli" stats "$work/dies/t.*.native" --report "$rank_reports" --format csv >"$work/stats-dies.csv"
cmp "$work/stats-dies.csv" "$work/dies.csv" || fail "the reports without the dead rank differ from cuptitrace stats over the 63"

rm -rf "$work"
echo "recipe_local: rank_summary and kernel_summary equal cuptitrace stats; a truncated rank named and skipped; no socket opened; a dead task's rank named, the others kept"
