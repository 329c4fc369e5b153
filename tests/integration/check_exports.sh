#!/usr/bin/env bash
# What the two libraries export, exactly, and what the osrt preload library
# needs. Usage: check_exports.sh libcuptitrace.so libcuptitrace-osrt.so SOURCE_DIR
set -u
tracer=$1 osrt=$2 src=$3
failures=0
fail() { echo "check_exports: FAIL $*" >&2; failures=$((failures + 1)); }

# Defined dynamic symbols, one name a line, without version suffixes.
exported() { nm -D --defined-only "$1" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u; }

# The tracer: its injection entry points (CUDA's, NVTX's, OpenACC's) and the public API, whose every
# function the header names in a comment ("cuptitrace_v1_active", ...).
expected_tracer=$( { printf '%s\n' InitializeInjection InitializeInjectionNvtx2 acc_register_library;
  grep -o '/\* "cuptitrace_[a-z0-9_]*" \*/' "$src/include/cuptitrace/cuptitrace.h" | tr -d '/*" '; } | sort -u)
actual_tracer=$(exported "$tracer")
if [ "$actual_tracer" != "$expected_tracer" ]; then
  fail "$tracer exports other symbols than its entry points and public API:"
  diff <(echo "$expected_tracer") <(echo "$actual_tracer") | sed 's/^/  /' >&2
fi
[ "$(echo "$expected_tracer" | wc -l)" -ge 5 ] || fail "the public header names too few functions: $expected_tracer"

# The osrt library: the calls its version script lists, and nothing else.
expected_osrt=$(sed -n '/global:/,/local:/p' "$src/preload/exports.map" | sed 's#/\*.*\*/##' |
  grep -v 'global:\|local:' | tr ';' '\n' | tr -d ' ' | grep -v '^$' | sort -u)
actual_osrt=$(exported "$osrt")
if [ "$actual_osrt" != "$expected_osrt" ]; then
  fail "$osrt exports other symbols than its wrappers and attach entry:"
  diff <(echo "$expected_osrt") <(echo "$actual_osrt") | sed 's/^/  /' >&2
fi
echo "$actual_osrt" | grep -qx cuptitrace_osrt_v1_attach || fail "$osrt lacks cuptitrace_osrt_v1_attach"
[ "$(echo "$actual_osrt" | wc -l)" -ge 40 ] || fail "$osrt exports only $(echo "$actual_osrt" | wc -l) symbols"
# None of the wrapped calls is left in the tracer.
for name in read write nanosleep pthread_mutex_lock; do
  echo "$actual_tracer" | grep -qx "$name" && fail "$tracer still defines $name"
done

# Loaded into every child process: no CUPTI, no tracer, no C++ runtime.
needed=$(readelf -d "$osrt" | awk '/NEEDED/ { gsub(/[][]/, "", $5); print $5 }')
for bad in libcupti libcuptitrace.so libstdc++ libcuda; do
  echo "$needed" | grep -q "$bad" && fail "$osrt needs $bad ($(echo $needed))"
done
echo "$needed" | grep -q '^libc.so' || fail "$osrt does not name the C library it wraps ($(echo $needed))"

if [ "$failures" -eq 0 ]; then
  echo "check_exports: ok ($(echo "$actual_tracer" | wc -l) tracer symbols, $(echo "$actual_osrt" | wc -l) osrt symbols; osrt needs: $(echo $needed))"
fi
[ "$failures" -eq 0 ]
