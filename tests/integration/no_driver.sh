#!/usr/bin/env bash
# Where there is no CUDA driver (CI, a login node), a program the library is
# injected into runs untraced: one line says why, its exit code is its own,
# and no file is left behind. Skipped (77) where a driver is present.
#   no_driver.sh NVTX_ONLY_BIN LIBCUPTITRACE OUTDIR
set -u
bin=$1 lib=$2 out=$3
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' || [ -e /dev/nvidia0 ]; then
  echo "no_driver: a CUDA driver is installed here: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
env NVTX_INJECTION64_PATH="$lib" CUDA_INJECTION64_PATH="$lib" CUPTITRACE_OUTPUT="$out/trace" \
  "$bin" >"$out/stdout.txt" 2>"$out/stderr.txt"
rc=$?
cat "$out/stdout.txt" "$out/stderr.txt"
fail=0
[ "$rc" -eq 7 ] || { echo "FAIL: exit code $rc, expected the program's own 7"; fail=1; }
grep -q "nvtx_only: ran" "$out/stdout.txt" || { echo "FAIL: the program did not run to its end"; fail=1; }
[ "$(grep -c 'tracing is off for this process' "$out/stderr.txt")" -eq 1 ] ||
  { echo "FAIL: expected exactly one 'tracing is off' line"; fail=1; }
grep -q "no CUDA driver" "$out/stderr.txt" || { echo "FAIL: the line does not say the driver is missing"; fail=1; }
if ls "$out"/trace* >/dev/null 2>&1; then echo "FAIL: files were left behind"; fail=1; fi
[ "$fail" -eq 0 ] && echo "no_driver: ok"
exit "$fail"
