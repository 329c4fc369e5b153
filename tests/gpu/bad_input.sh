#!/usr/bin/env bash
# Bad input never harms the traced program: each case checks the message on
# stderr, the program's exit code and which files exist afterwards.
#   bad_input.sh SAMPLES_DIR LIBCUPTITRACE OUTDIR
set -u
samples=$1 lib=$2 out=$3
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "bad_input: no GPU here: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
traced() {  # traced LOG [VAR=VALUE...] PROGRAM: runs it injected, returns its exit code
  local log=$1; shift
  env CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" "$@" >"$log.out" 2>"$log.err"
}

# 1. An invalid value: one line naming the variable, the value and what is accepted; defaults used.
traced "$out/invalid" CUPTITRACE_BUFFER_SIZE=12abc CUPTITRACE_ACTIVITIES=kernel,bogus \
  CUPTITRACE_OUTPUT="$out/invalid" "$samples/vector_add"
rc=$?
cat "$out/invalid.err"
check "invalid values: program exit code 0" [ "$rc" -eq 0 ]
check "invalid CUPTITRACE_BUFFER_SIZE named with value and accepted values" \
  grep -q 'CUPTITRACE_BUFFER_SIZE="12abc" is not valid (accepted: a size' "$out/invalid.err"
check "invalid CUPTITRACE_ACTIVITIES named with value" \
  grep -q 'CUPTITRACE_ACTIVITIES="kernel,bogus" is not valid (accepted: comma list of kernel' "$out/invalid.err"
check "invalid values: one line each" [ "$(grep -c 'is not valid' "$out/invalid.err")" -eq 2 ]
check "invalid values: trace still written with the defaults" [ -s "$out/invalid.json" ]
traced "$out/typo" CUPTITRACE_FORMATS=csv CUPTITRACE_OUTPUT="$out/typo" "$samples/vector_add"
check "unknown CUPTITRACE_FORMATS suggests CUPTITRACE_FORMAT" \
  grep -q 'unknown variable "CUPTITRACE_FORMATS" is ignored (did you mean CUPTITRACE_FORMAT?)' "$out/typo.err"

# 2. An output directory that does not exist is made; one that cannot be written
#    (a file stands where a directory should be) gives way to $TMPDIR, said in one line.
traced "$out/missing" CUPTITRACE_FORMAT=json,csv,native CUPTITRACE_OUTPUT="$out/no/such/dir/trace" \
  "$samples/vector_add"
rc=$?
cat "$out/missing.err"
check "missing output directory: program exit code 0" [ "$rc" -eq 0 ]
check "missing output directory: made, and the trace written there" [ -s "$out/no/such/dir/trace.json" ]
check "missing output directory: native and CSV too" [ -s "$out/no/such/dir/trace.native" ]
check "missing output directory: nothing said about it" [ "$(grep -c 'directory' "$out/missing.err")" -eq 0 ]
: >"$out/blocker"
mkdir -p "$out/tmp"
traced "$out/blocked" TMPDIR="$out/tmp" CUPTITRACE_FORMAT=json CUPTITRACE_OUTPUT="$out/blocker/sub/trace" \
  "$samples/vector_add"
rc=$?
cat "$out/blocked.err"
check "unwritable output directory: program exit code 0" [ "$rc" -eq 0 ]
check "unwritable output directory: one line says where the trace went" \
  [ "$(grep -c "the trace goes to $out/tmp/ instead" "$out/blocked.err")" -eq 1 ]
check "unwritable output directory: the trace is in TMPDIR" [ -s "$out/tmp/trace.json" ]
check "unwritable output directory: the summary names the file" grep -q "wrote $out/tmp/trace.json" "$out/blocked.err"

# 3. CUPTI already taken by the program: one clear line, untraced run, the program's own exit code.
traced "$out/taken" CUPTITRACE_OUTPUT="$out/taken" "$samples/cupti_taken"
rc=$?
cat "$out/taken.out" "$out/taken.err"
check "CUPTI taken: program exit code 3 preserved" [ "$rc" -eq 3 ]
check "CUPTI taken: one line says tracing is off and who holds CUPTI" \
  grep -q 'tracing is off for this process: CUPTI is already in use in this process by ".*cupti_taken sample' "$out/taken.err"
check "CUPTI taken: no file left behind" [ -z "$(ls "$out" | grep '^taken\.' | grep -v -e '\.out$' -e '\.err$')" ]

echo "bad_input: $failures failed"
[ "$failures" -eq 0 ]
