#!/usr/bin/env bash
# `cuptitrace recipe --scheduler` against a Dask scheduler and two workers
# started here, on loopback only, each bounded in time and stopped at the
# end whatever happens: the reports equal `cuptitrace stats`, and both
# workers took tasks, also from trace paths relative to a directory the
# workers do not run in. The workers do not have the recipes' package on
# their path: the task's code travels with it.
#   recipe_scheduler.sh CUPTITRACE RANK_BENCH WORKDIR
set -euo pipefail
cli=$1 bench=$2 work=$3
. "$(dirname "$0")/dask_python.sh"
rm -rf "$work"
mkdir -p "$work"
make_job "$work/job"

pids=()
stop() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap stop EXIT

port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
address=tcp://127.0.0.1:$port
# timeout bounds each process even if this script is killed before its trap runs.
(cd "$work" && exec timeout 300 env -u PYTHONPATH "$python" -m distributed.cli.dask_scheduler \
  --host 127.0.0.1 --port "$port" --no-dashboard >"$work/scheduler.log" 2>&1) &
pids+=($!)
for w in 1 2; do
  (cd "$work" && exec timeout 300 env -u PYTHONPATH "$python" -m distributed.cli.dask_worker "$address" \
    --host 127.0.0.1 --nthreads 1 --no-nanny --no-dashboard --name "worker-$w" --death-timeout 60 \
    --local-directory "$work/worker-$w" >"$work/worker-$w.log" 2>&1) &
  pids+=($!)
done
timeout 90 "$python" -c "
from distributed import Client
c = Client('$address', timeout='60s')
c.wait_for_workers(2, timeout=60)
c.close()" || fail "the scheduler and 2 workers did not come up: $(tail -3 "$work"/*.log)"

for format in csv json; do
  "$cli" stats "$work/job/t.*.native" --report "$rank_reports" --format "$format" >"$work/stats.$format"
  timeout 120 "$cli" recipe rank_summary "$work/job/t.*.native" --scheduler "$address" --format "$format" \
    --measure "$work/measure.json" >"$work/recipe.$format" || fail "the recipe failed on $address"
  cmp "$work/stats.$format" "$work/recipe.$format" || fail "--scheduler --format $format differs from cuptitrace stats"
done
# Traces named relative to the directory the recipe runs in: the workers run in another
# ($work), so the paths must reach them whole.
(cd "$work/job" && timeout 120 "$cli" recipe rank_summary "t.*.native" --scheduler "$address" --format csv \
  >"$work/relative.csv" 2>"$work/relative.err") || fail "the recipe failed on relative paths: $(tail -3 "$work/relative.err")"
cmp "$work/stats.csv" "$work/relative.csv" || fail "relative paths: the reports differ from cuptitrace stats"
"$python" -c "
import json, sys
m = json.load(open(sys.argv[1]))
busy = [w for w, n in m['tasks_per_worker'].items() if n > 0]
sys.exit(0 if m['workers'] == 2 and len(busy) == 2 else 1)" "$work/measure.json" ||
  fail "the 2 workers did not both take tasks: $(cat "$work/measure.json")"
# An unreachable scheduler is one line, not a hang.
closed=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
if timeout 120 "$cli" recipe rank_summary "$work/job/t.0.native" --scheduler "tcp://127.0.0.1:$closed" --wait 5 \
  >/dev/null 2>"$work/unreachable.err"; then
  fail "a recipe on a closed port succeeded"
fi
grep -q "cuptitrace recipe: rank_summary on the Dask scheduler at tcp://127.0.0.1:$closed" "$work/unreachable.err" ||
  fail "no line naming the unreachable scheduler: $(cat "$work/unreachable.err")"

stop
trap - EXIT
rm -rf "$work"
echo "recipe_scheduler: rank_summary on a separate scheduler with 2 workers equals cuptitrace stats, from absolute and relative paths"
