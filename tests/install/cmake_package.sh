#!/usr/bin/env bash
# find_package(cuptitrace) from an installed prefix: a user's program
# (consumer/) configured against the prefix alone builds with cuptitrace::api,
# learns the prefix's command and library, and its scopes reach a library
# loaded as the driver loads it (a stand-in, fake_cuptitrace) and are quiet
# no-ops without one.
#   cmake_package.sh BUILD FAKE_CUPTITRACE VERSION
set -u
build=$(cd "$1" && pwd) fake=$2 version=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/cuptitrace-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null || exit 1
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$here/consumer" -B "$work/consumer" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER_LAUNCHER= >"$work/configure.log" 2>&1 && cmake --build "$work/consumer" >"$work/build.log" 2>&1 ||
  { cat "$work/configure.log" "$work/build.log"; exit 1; }
check "the package's config came from the prefix" \
  grep -qxF "cuptitrace_DIR:PATH=$prefix/lib/cmake/cuptitrace" "$work/consumer/CMakeCache.txt"

env -u CUDA_INJECTION64_PATH -u NVTX_INJECTION64_PATH "$work/consumer/consumer" >"$work/untraced.txt"
cat "$work/untraced.txt"
check "cuptitrace_VERSION is the project's" has "$work/untraced.txt" "version $version"
check "cuptitrace_LIBRARY is the prefix's library" has "$work/untraced.txt" "library $prefix/lib/libcuptitrace.so"
check "cuptitrace_EXECUTABLE is the prefix's command" has "$work/untraced.txt" "executable $prefix/bin/cuptitrace"
check "untraced, a scope is a quiet no-op" has "$work/untraced.txt" "scope 0"
check "... and so is its pop (CUPTITRACE_NOT_TRACED)" has "$work/untraced.txt" "pop 1"
CUDA_INJECTION64_PATH=$fake "$work/consumer/consumer" >"$work/traced.txt"
check "with the library loaded the scope reaches it" has "$work/traced.txt" "scope 1001"
check "... and so does its pop (CUPTITRACE_OK)" has "$work/traced.txt" "pop 0"

# A version the package does not satisfy is refused.
mkdir -p "$work/newer"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(newer NONE)\nfind_package(cuptitrace 999 REQUIRED)\n' >"$work/newer/CMakeLists.txt"
check "find_package(cuptitrace 999) is refused" \
  bash -c '! cmake -S "$1/newer" -B "$1/newer/build" -DCMAKE_PREFIX_PATH="$2" >/dev/null 2>&1' _ "$work" "$prefix"
finish cmake_package "find_package(cuptitrace) from $prefix gives cuptitrace::api"
