#!/usr/bin/env bash
# The loaded libcupti's release, and the osrt preload library, on a GPU:
# 1. the CUPTI installed here is accepted and named (info log), and traced;
# 2. a CUPTI that answers another release (a preloaded stand-in for
#    cuptiGetVersion) is refused with one line, the CUDA program unharmed,
#    no file written;
# 3. through the cuptitrace command with osrt, a CUDA program started by a
#    shell is traced and its osrt wrappers connected, while the shell and a
#    child without CUDA map the small osrt library and not libcupti.
#   compat.sh SAMPLES_DIR LIBCUPTITRACE CUPTITRACE_CLI FAKE_CUPTI_VERSION_LIB OUTDIR
set -u
samples=$1 lib=$2 cli=$3 fake=$4 out=$5
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "compat: no GPU here: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}

# 1. The installed CUPTI.
env CUDA_INJECTION64_PATH="$lib" CUPTITRACE_LOG_LEVEL=info CUPTITRACE_OUTPUT="$out/installed" \
  "$samples/vector_add" >"$out/installed.out" 2>"$out/installed.err"
rc=$?
grep -i 'cupti' "$out/installed.err"
check "installed CUPTI: program exit code 0" [ "$rc" -eq 0 ]
check "installed CUPTI: accepted and named with its file" grep -q 'CUPTI 13\.0 (API 1300[0-9][0-9]) from .*libcupti' "$out/installed.err"
check "installed CUPTI: no refusal" bash -c "! grep -q 'cannot read' '$out/installed.err'"
check "installed CUPTI: trace written" [ -s "$out/installed.json" ]

# 2. Another release: refused before CUPTI is used.
env LD_PRELOAD="$fake" FAKE_CUPTI_VERSION=130200 CUDA_INJECTION64_PATH="$lib" CUPTITRACE_OUTPUT="$out/newer" \
  "$samples/vector_add" >"$out/newer.out" 2>"$out/newer.err"
rc=$?
cat "$out/newer.err"
check "CUPTI 13.2: program exit code 0" [ "$rc" -eq 0 ]
check "CUPTI 13.2: one line naming both versions" \
  grep -q 'the loaded CUPTI 13.2 (API 130200) (.*) writes activity records this build cannot read (built for CUPTI 13.0' \
  "$out/newer.err"
check "CUPTI 13.2: exactly one 'tracing is off' line" [ "$(grep -c 'tracing is off' "$out/newer.err")" -eq 1 ]
check "CUPTI 13.2: no file written" bash -c "! ls '$out'/newer.* 2>/dev/null | grep -v '\.out$\|\.err$'"

# 3. osrt through the command: a shell runs the CUDA program, then a child without CUDA.
"$cli" --library "$lib" --activities default,osrt --format json --output "$out/osrt" -- \
  bash -c "cat /proc/self/maps > '$out/child-maps.txt'; cat /proc/\$\$/maps > '$out/shell-maps.txt'; '$samples/vector_add'" \
  >"$out/osrt.out" 2>"$out/osrt.err"
rc=$?
cat "$out/osrt.err"
check "osrt: program exit code 0" [ "$rc" -eq 0 ]
check "osrt: the CUDA program was traced" bash -c "ls '$out'/osrt*.json >/dev/null 2>&1"
check "osrt: the tracer found the preloaded osrt library" bash -c "! grep -q 'C library calls are not recorded' '$out/osrt.err'"
for who in child shell; do
  check "osrt: the $who without CUDA maps libcuptitrace-osrt.so" grep -q 'libcuptitrace-osrt\.so' "$out/$who-maps.txt"
  check "osrt: the $who without CUDA maps neither libcupti nor the tracer" \
    bash -c "! grep -q 'libcupti\.so\|libcuptitrace\.so' '$out/$who-maps.txt'"
done

[ "$failures" -eq 0 ] && echo "compat: ok"
[ "$failures" -eq 0 ]
