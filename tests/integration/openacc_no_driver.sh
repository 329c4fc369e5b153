#!/usr/bin/env bash
# An OpenACC program (samples/openacc) where there is no CUDA driver: GCC's
# runtime loads the library through ACC_PROFLIB (the command sets it) and
# calls acc_register_library; tracing cannot start, so CUPTI must not be handed
# the runtime (its callbacks would crash the program), and the program runs
# on the host to its end. With the openacc kind off, the library does nothing.
# Skipped (77) where a driver is present or the sample was not built.
#   openacc_no_driver.sh SAMPLE RUNTIME_DIR CUPTITRACE_BIN LIBCUPTITRACE OUTDIR
set -u
sample=$1 runtime=$2 cli=$3 lib=$4 out=$5
if [ -z "$sample" ] || [ ! -x "$sample" ]; then
  echo "openacc_no_driver: the OpenACC sample was not built (gcc-12-offload-nvptx not installed): skipped"
  exit 77
fi
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' || [ -e /dev/nvidia0 ]; then
  echo "openacc_no_driver: a CUDA driver is installed here: skipped"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
export LD_LIBRARY_PATH="$runtime${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset ACC_PROFLIB
fail=0
for activities in default kernel; do
  "$cli" --library "$lib" --activities "$activities" --output "$out/trace" -- "$sample" host \
    >"$out/$activities.stdout" 2>"$out/$activities.stderr"
  rc=$?
  cat "$out/$activities.stdout" "$out/$activities.stderr"
  [ "$rc" -eq 0 ] || { echo "FAIL ($activities): exit code $rc"; fail=1; }
  grep -q "openacc_saxpy: ok" "$out/$activities.stdout" || { echo "FAIL ($activities): the program did not finish"; fail=1; }
done
# openacc on (default): acc_register_library tried to start tracing, which says why it cannot.
[ "$(grep -c 'tracing is off for this process' "$out/default.stderr")" -eq 1 ] ||
  { echo "FAIL: expected one 'tracing is off' line with the openacc kind on"; fail=1; }
# openacc off: the library was not even loaded as ACC_PROFLIB.
grep -q 'tracing is off' "$out/kernel.stderr" && { echo "FAIL: tracing was started with the openacc kind off"; fail=1; }
[ "$fail" -eq 0 ] && echo "openacc_no_driver: ok"
exit "$fail"
