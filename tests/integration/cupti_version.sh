#!/usr/bin/env bash
# The start-up check of the loaded libcupti's release (collectors/cupti_layouts.h):
# with a CUPTI that answers another version (a preloaded stand-in for
# cuptiGetVersion), the library enables nothing and says so in one line naming
# both versions and the library it found; the program runs to its own end.
#   cupti_version.sh NVTX_ONLY_BIN LIBCUPTITRACE FAKE_CUPTI_VERSION_LIB OUTDIR
set -u
bin=$1 lib=$2 fake=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
fail=0
run() {  # version -> stdout/stderr in $out/<version>.*
  env LD_PRELOAD="$fake" FAKE_CUPTI_VERSION="$1" NVTX_INJECTION64_PATH="$lib" CUDA_INJECTION64_PATH="$lib" \
    CUPTITRACE_OUTPUT="$out/trace-$1" "$bin" >"$out/$1.out" 2>"$out/$1.err"
  rc=$?
  cat "$out/$1.out" "$out/$1.err"
  [ "$rc" -eq 7 ] || { echo "FAIL ($1): exit code $rc, expected the program's own 7"; fail=1; }
  grep -q "nvtx_only: ran" "$out/$1.out" || { echo "FAIL ($1): the program did not run to its end"; fail=1; }
}
expect() {  # version, text expected in its stderr
  grep -qF -- "$2" "$out/$1.err" || { echo "FAIL ($1): stderr lacks: $2"; fail=1; }
}

# Newer and older releases: refused before anything else (no driver is even asked for).
for v in 130200 28; do
  run "$v"
  [ "$(grep -c 'tracing is off for this process' "$out/$v.err")" -eq 1 ] ||
    { echo "FAIL ($v): expected exactly one 'tracing is off' line"; fail=1; }
  expect "$v" "writes activity records this build cannot read"
  expect "$v" "$fake"
  expect "$v" "built for CUPTI 13.0 (API 1300"
  grep -q "no CUDA driver\|already in use" "$out/$v.err" && { echo "FAIL ($v): CUPTI was used after the refusal"; fail=1; }
  if ls "$out"/trace-"$v"* >/dev/null 2>&1; then echo "FAIL ($v): files were left behind"; fail=1; fi
done
expect 130200 "the loaded CUPTI 13.2 (API 130200)"
expect 28 "the loaded CUPTI API 28"

# 13.0 itself passes the check: without a driver the next step says so instead.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' && [ ! -e /dev/nvidia0 ]; then
  run 130000
  grep -q "cannot read" "$out/130000.err" && { echo "FAIL (130000): 13.0 was refused"; fail=1; }
  expect 130000 "no CUDA driver"
fi
[ "$fail" -eq 0 ] && echo "cupti_version: ok"
exit "$fail"
