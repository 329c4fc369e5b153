#!/usr/bin/env bash
# The SQLite output on real programs:
#  1. vector_add and nvtx_ranges traced with CUPTITRACE_FORMAT=sqlite,csv,native;
#     check_sqlite.py runs Nsight's example queries (Python's sqlite3, and
#     pandas where installed) and compares them with the same run's CSV tables;
#  2. both native traces converted into one database: each keeps its own
#     globalPid, and every kernel of each is there;
#  3. a Python program that has loaded its own SQLite (the sqlite3 module)
#     traced while it uses CUDA: both SQLites work, the database is written.
#   sqlite.sh SAMPLES_DIR LIBCUPTITRACE CUPTITRACE_CLI OUTDIR
# Exits 77 without a GPU, 1 when a check failed.
set -u
if [ $# -ne 4 ]; then
  echo "usage: $0 SAMPLES_DIR LIBCUPTITRACE CUPTITRACE_CLI OUTDIR" >&2
  exit 2
fi
samples=$1 lib=$2 cli=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "sqlite: no GPU here: skipped"
  exit 77
fi
mkdir -p "$out" && rm -f "$out"/*.sqlite "$out"/*.csv "$out"/*.native "$out"/*.out
fail=0
# The tracer's symbols: no SQLite among the exported ones.
if nm -D --defined-only "$lib" | grep -qi sqlite; then
  echo "FAIL sqlite: libcuptitrace.so exports SQLite symbols:"; nm -D --defined-only "$lib" | grep -i sqlite | head
  fail=1
fi

for sample in vector_add nvtx_ranges; do
  env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" CUPTITRACE_FORMAT=sqlite,csv,native \
      CUPTITRACE_SUMMARY=none CUPTITRACE_OUTPUT="$out/$sample" "$samples/$sample" >"$out/$sample.out" 2>&1 \
    || { echo "FAIL sqlite: $sample exited $?"; cat "$out/$sample.out"; fail=1; continue; }
  echo "== $sample.sqlite: Nsight's example queries against $sample's CSV tables"
  python3 "$here/check_sqlite.py" "$out/$sample.sqlite" --csv "$out/$sample" || fail=1
done

echo "== vector_add and nvtx_ranges in one database"
if "$cli" convert "$out/vector_add.native" "$out/nvtx_ranges.native" --to sqlite -o "$out/both" >/dev/null; then
  python3 - "$out" <<'PY' || fail=1
import csv, sqlite3, sys
out = sys.argv[1]
db = sqlite3.connect(f"{out}/both.sqlite")
want = {}
for sample in ("vector_add", "nvtx_ranges"):
    with open(f"{out}/{sample}.kernels.csv", newline="") as f:
        want[sample] = sum(1 for _ in csv.DictReader(f))
got = dict(db.execute("SELECT t.file, COUNT(k.start) FROM CUPTITRACE_TRACES t LEFT JOIN "
                      "CUPTI_ACTIVITY_KIND_KERNEL k ON k.globalPid = t.globalPid GROUP BY t.globalPid"))
got = {f.rsplit("/", 1)[-1].split(".")[0]: n for f, n in got.items()}
pids = db.execute("SELECT COUNT(DISTINCT globalPid) FROM PROCESSES").fetchone()[0]
print(f"kernels per process: {got}, want {want}; processes: {pids}")
sys.exit(0 if got == want and pids == 2 else 1)
PY
else
  echo "FAIL sqlite: convert to one database"; fail=1
fi

echo "== a Python program with its own SQLite, traced"
cudart=$(ls /usr/local/cuda/lib64/libcudart.so* 2>/dev/null | head -n 1)
if [ -z "$cudart" ]; then
  echo "skip: no libcudart.so under /usr/local/cuda/lib64"
else
  env CUDA_INJECTION64_PATH="$lib" CUPTITRACE_FORMAT=sqlite CUPTITRACE_SUMMARY=none \
      CUPTITRACE_OUTPUT="$out/python" python3 - "$cudart" <<'PY' >"$out/python.out" 2>&1 || { fail=1; cat "$out/python.out"; }
import ctypes, sqlite3, sys
db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE t (x)")
db.execute("INSERT INTO t VALUES (1)")
cudart = ctypes.CDLL(sys.argv[1])
p = ctypes.c_void_p()
assert cudart.cudaMalloc(ctypes.byref(p), 1 << 20) == 0
assert cudart.cudaMemset(p, 0, 1 << 20) == 0
assert cudart.cudaDeviceSynchronize() == 0
assert cudart.cudaFree(p) == 0
assert db.execute("SELECT SUM(x) FROM t").fetchone()[0] == 1
print("python sqlite", sqlite3.sqlite_version, "works beside the tracer")
PY
  cat "$out/python.out"
  python3 - "$out/python.sqlite" <<'PY' || fail=1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMSET").fetchone()[0]
calls = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                   "WHERE s.value LIKE 'cudaMemset%'").fetchone()[0]
print(f"python.sqlite: {n} memset, {calls} cudaMemset calls")
sys.exit(0 if n == 1 and calls == 1 else 1)
PY
fi
[ $fail -eq 0 ] && echo "PASS sqlite" || echo "FAIL sqlite"
exit $fail
