#!/usr/bin/env bash
# SQLite inside libcuptitrace.so is ours alone: no sqlite3_* symbol exported
# (a program's own SQLite, Python's sqlite3 module, never binds to it, nor ours
# to its), and no libsqlite3 needed on the traced machine. Then Python loads
# the library before its own sqlite3 module and both keep working.
#   sqlite_hidden.sh LIBCUPTITRACE
set -u
lib=$1
fail=0
exported=$(nm -D --defined-only "$lib" | grep -i sqlite)
if [ -n "$exported" ]; then
  echo "FAIL: $lib exports SQLite symbols:"; echo "$exported" | head; fail=1
else
  echo "ok  no SQLite symbol exported"
fi
if readelf -d "$lib" | grep NEEDED | grep -qi sqlite; then
  echo "FAIL: $lib needs a shared SQLite:"; readelf -d "$lib" | grep NEEDED; fail=1
else
  echo "ok  no shared SQLite needed"
fi
if command -v python3 >/dev/null; then
  python3 - "$lib" <<'PY' || fail=1
import ctypes, os, sys
ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | ctypes.RTLD_GLOBAL)
import sqlite3
db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE t (x)")
db.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(100)])
assert db.execute("SELECT SUM(x) FROM t").fetchone()[0] == 4950
print("ok  python's sqlite3", sqlite3.sqlite_version, "works with the library loaded first")
PY
fi
exit $fail
