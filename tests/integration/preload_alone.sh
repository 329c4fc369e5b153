#!/usr/bin/env bash
# Run with LD_PRELOAD naming libcuptitrace-osrt.so: a process that never uses
# CUDA (this shell, and a child it starts) maps the osrt library and neither
# libcupti nor the tracer.
set -u
case "${LD_PRELOAD:-}" in
  *libcuptitrace-osrt.so*) ;;
  *) echo "preload_alone: LD_PRELOAD must name libcuptitrace-osrt.so" >&2; exit 2 ;;
esac
maps=$(cat /proc/self/maps)  # the child's own maps: cat runs with the same preload
failures=0
echo "$maps" | grep -q 'libcuptitrace-osrt\.so' || { echo "preload_alone: FAIL the osrt library is not mapped" >&2; failures=1; }
if echo "$maps" | grep -q 'libcupti\.so\|libcuptitrace\.so\|libstdc++'; then
  echo "preload_alone: FAIL a child without CUDA maps more than the osrt library:" >&2
  echo "$maps" | grep 'libcupti\.so\|libcuptitrace\.so\|libstdc++' | awk '{print "  " $6}' | sort -u >&2
  failures=1
fi
[ "$failures" -eq 0 ] && echo "preload_alone: ok"
[ "$failures" -eq 0 ]
