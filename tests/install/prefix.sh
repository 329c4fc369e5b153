#!/usr/bin/env bash
# `cmake --install BUILD --prefix P` into a temporary prefix, moved, then the
# installed command used from the moved prefix alone: the source and build
# trees are hidden (empty folders mounted over them in a mount namespace of
# this test, where the system allows one), and prefix_checks.sh runs the
# command, its library, its Python hook and its recipes from P. No GPU needed.
#   prefix.sh BUILD SOURCE NVTX_ONLY RANK_BENCH
set -u
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) nvtx_only=$3 bench=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/cuptitrace-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

# Installed in one place and used from another: the prefix moves as a whole.
cmake --install "$build" --prefix "$work/installed" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
mv "$work/installed" "$prefix"
for file in bin/cuptitrace lib/libcuptitrace.so lib/libcuptitrace-osrt.so lib/libcuptitrace-watch.so \
  share/cuptitrace/python/cuptitrace_pyhook/sitecustomize.py share/cuptitrace/python/cuptitrace_recipes/__main__.py \
  include/cuptitrace/cuptitrace.h lib/cmake/cuptitrace/cuptitraceConfig.cmake \
  lib/cmake/cuptitrace/cuptitraceConfigVersion.cmake lib/cmake/cuptitrace/cuptitraceTargets.cmake \
  share/bash-completion/completions/cuptitrace share/doc/cuptitrace/LICENSE; do
  check "installed $file" test -f "$prefix/$file"
done
check "the command is executable" test -x "$prefix/bin/cuptitrace"
check "no compiled Python in share/" test -z "$(find "$prefix/share" -name '*.pyc' -o -name __pycache__)"
# Nothing installed points back at the trees it came from.
for elf in "$prefix"/bin/cuptitrace "$prefix"/lib/*.so; do
  readelf -d "$elf" | grep -E 'RPATH|RUNPATH' >"$work/rpath.txt"
  check "$(basename "$elf"): no RUNPATH into the build or source tree" \
    bash -c '! grep -qF -e "$1" -e "$2" "$3"' _ "$build" "$source" "$work/rpath.txt"
done

prepare_checks "$work" "$source" "$build" "$nvtx_only" "$bench"
checks_from "$prefix" "$work" "$source" "$build"
rc=$?
[ "$failures" -eq 0 ] || { echo "prefix: $failures check(s) of the layout failed"; exit 1; }
exit "$rc"
