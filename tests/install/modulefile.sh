#!/usr/bin/env bash
# The environment module of an installed prefix (packaging/modulefile.in):
# `module use P/share/modulefiles; module load cuptitrace` with Lmod or
# Environment Modules puts P's command first on PATH and P on
# CMAKE_PREFIX_PATH; `module unload` takes them away again.
#   modulefile.sh BUILD
set -u
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
# Each system's command that prints shell code for `module ...`.
modulecmd=()
for lmod in "${LMOD_CMD:-}" /usr/share/lmod/lmod/libexec/lmod /usr/lib/lmod/lmod/libexec/lmod; do
  [ -n "$lmod" ] && [ -x "$lmod" ] && { modulecmd=("$lmod"); break; }
done
if [ ${#modulecmd[@]} -eq 0 ]; then
  for tcl in /usr/lib/*/modulecmd.tcl /usr/share/modules/libexec/modulecmd.tcl; do
    [ -f "$tcl" ] && command -v tclsh >/dev/null && { modulecmd=(tclsh "$tcl"); break; }
  done
fi
[ ${#modulecmd[@]} -gt 0 ] || { echo "SKIP: neither Lmod nor Environment Modules is installed (Debian: lmod)"; exit 77; }
echo "with ${modulecmd[*]}"
work=$(mktemp -d "${TMPDIR:-/tmp}/cuptitrace-module.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/opt/cuptitrace
cmake --install "$build" --prefix "$prefix" >/dev/null || exit 1
files=("$prefix"/share/modulefiles/cuptitrace/*)
check "one module file, named by the version" bash -c '[ $# -eq 1 ] && [[ $(basename "$1") =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]' _ "${files[@]}"
check "it names its prefix" grep -qxF "set prefix \"$prefix\"" "${files[0]}"

# A login shell's view: nothing of cuptitrace, then the module loaded and unloaded.
env -i HOME="$work" PATH=/usr/bin:/bin MODULEPATH="$prefix/share/modulefiles" bash -c '
  module() { eval "$("$@")"; }
  cmd=("${@:2}")
  module "${cmd[@]}" bash load cuptitrace
  echo "loaded: $(command -v cuptitrace)"
  cuptitrace --version
  echo "CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH"
  echo "CUPTITRACE_ROOT=$CUPTITRACE_ROOT"
  module "${cmd[@]}" bash unload cuptitrace
  echo "unloaded: $(command -v cuptitrace || echo none) ${CUPTITRACE_ROOT:-unset}"
' _ "$prefix" "${modulecmd[@]}" >"$work/out.txt" 2>"$work/err.txt"
cat "$work/out.txt"
[ -s "$work/err.txt" ] && cat "$work/err.txt"
check "module load puts the prefix's command on PATH" has "$work/out.txt" "loaded: $prefix/bin/cuptitrace"
check "... which runs" grep -qE '^cuptitrace [0-9.]+$' "$work/out.txt"
check "... and the prefix on CMAKE_PREFIX_PATH" has "$work/out.txt" "CMAKE_PREFIX_PATH=$prefix"
check "module unload takes them away" has "$work/out.txt" "unloaded: none unset"
env -i HOME="$work" PATH=/usr/bin:/bin MODULEPATH="$prefix/share/modulefiles" "${modulecmd[@]}" bash whatis cuptitrace >/dev/null 2>"$work/whatis.txt"
check "module whatis describes it" contains "$work/whatis.txt" "a CUDA tracer built on CUPTI"
finish modulefile "module load cuptitrace puts $prefix/bin on PATH"
