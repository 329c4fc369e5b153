# Sourced by the recipe tests: the Python that has Dask, as `cuptitrace
# recipe` picks it (CUPTITRACE_PYTHON, python3, /usr/bin/python3), in $python;
# exit 77 (skipped) where none can import it. CI installs Debian's
# python3-dask and python3-distributed (scripts/install-deps.sh), so there
# the tests run.
python=""
for candidate in "${CUPTITRACE_PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$candidate" ] && "$candidate" -c 'import dask.distributed' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "SKIP: no Python can import dask.distributed (install python3-dask python3-distributed)"
  exit 77
fi
export CUPTITRACE_PYTHON=$python

# Fails the test with a message.
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The 64-rank synthetic job of rank_bench (rank 21 late in every step) in $1.
make_job() {
  "$bench" --ranks 64 --steps 100 --kernels 4 --dir "$1" --generate-only >/dev/null
}

# The reports of the rank_summary recipe, as stats names them.
rank_reports=ranks,collectives,collective_spread,rank_findings
