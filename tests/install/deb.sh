#!/usr/bin/env bash
# The Debian package (packaging/cpack.cmake): made by CPack from the build
# tree as it is, inspected (dpkg-deb -I, -c), its dependencies checked against
# this system (apt-get --simulate), then installed by dpkg into a scratch root
# (--root: the system's own files and package database are not touched), and
# the command run from there.
#   deb.sh BUILD
set -u
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
for tool in cpack dpkg-deb dpkg-shlibdeps dpkg; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool (Debian: dpkg-dev)"; exit 77; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/cuptitrace-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/package" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/package/cuptitrace_*.deb 2>/dev/null)
echo "made $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
check "one package, named as Debian names them" bash -c '[[ $(basename "$1") =~ ^cuptitrace_[0-9.]+_[a-z0-9]+\.deb$ ]]' _ "$deb"

dpkg-deb -I "$deb" >"$work/info.txt"
grep -E '^ (Package|Version|Architecture|Depends|Recommends|Suggests|Section):' "$work/info.txt"
check "Package: cuptitrace" grep -qx ' Package: cuptitrace' "$work/info.txt"
check "Architecture: this machine's" grep -qx " Architecture: $(dpkg --print-architecture)" "$work/info.txt"
check "Depends names the C and C++ runtimes (dpkg-shlibdeps)" \
  bash -c 'grep "^ Depends:" "$1" | grep -q "libc6 (>=" && grep "^ Depends:" "$1" | grep -q "libstdc++6 (>="' _ "$work/info.txt"
check "Depends names no CUDA package (libcupti is the toolkit's)" bash -c '! grep "^ Depends:" "$1" | grep -qi cu[dp]' _ "$work/info.txt"

dpkg-deb -c "$deb" | awk '{print $NF}' >"$work/files.txt"
for file in ./usr/bin/cuptitrace ./usr/lib/libcuptitrace.so ./usr/lib/libcuptitrace-osrt.so ./usr/lib/libcuptitrace-watch.so \
  ./usr/share/cuptitrace/python/cuptitrace_pyhook/sitecustomize.py ./usr/share/cuptitrace/python/cuptitrace_recipes/__main__.py \
  ./usr/include/cuptitrace/cuptitrace.h ./usr/lib/cmake/cuptitrace/cuptitraceConfig.cmake \
  ./usr/share/bash-completion/completions/cuptitrace ./usr/share/modulefiles/cuptitrace/ ./usr/share/doc/cuptitrace/LICENSE; do
  check "the package holds ${file#.}" bash -c 'grep -qxF "$1" "$2" || grep -q "^${1//./\\.}" "$2"' _ "$file" "$work/files.txt"
done
check "everything is under /usr" bash -c '! grep -v -e "^\./$" -e "^\./usr/" "$1"' _ "$work/files.txt"
check "the binaries are stripped" bash -c 'dpkg-deb -x "$1" "$2/x" && ! file "$2"/x/usr/bin/cuptitrace "$2"/x/usr/lib/*.so | grep -q "not stripped"' _ "$deb" "$work"
check "the module file names /usr" grep -qx 'set prefix "/usr"' "$work"/x/usr/share/modulefiles/cuptitrace/*

# The dependencies, as apt would resolve them here (nothing is installed).
if command -v apt-get >/dev/null; then
  apt-get install --simulate --no-install-recommends "$deb" >"$work/apt.txt" 2>&1
  check "apt-get would install it here: its dependencies are met" grep -q '^Inst cuptitrace ' "$work/apt.txt" ||
    cat "$work/apt.txt"
fi

# dpkg -i into a scratch root with its own (empty) package database: no
# dependency is registered there, hence --force-depends; as a user who is not
# root, --force-not-root (the files are then owned by that user).
root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
force=--force-depends
[ "$(id -u)" -eq 0 ] || force=$force,not-root,bad-path
dpkg --root="$root" --log=/dev/null "$force" --force-script-chrootless -i "$deb" >"$work/dpkg.log" 2>&1
rc=$?
check "dpkg -i into the scratch root" test "$rc" -eq 0 || cat "$work/dpkg.log"
check "dpkg registers it as installed" bash -c 'dpkg --root="$1" -s cuptitrace 2>/dev/null | grep -qx "Status: install ok installed"' _ "$root"
"$root/usr/bin/cuptitrace" --version >"$work/version.txt"
cat "$work/version.txt"
check "cuptitrace --version from the installed package" grep -qE '^cuptitrace [0-9]+\.[0-9]+\.[0-9]+$' "$work/version.txt"
# What a clean machine needs for it: each library the command and the
# libraries load comes from a package its Depends names, but libcupti (the
# CUDA Toolkit's, for the tracer alone).
grep '^ Depends:' "$work/info.txt" | sed 's/^ Depends://; s/([^)]*)//g' | tr ',|' '\n\n' | tr -d ' ' >"$work/depends.txt"
for elf in "$root/usr/bin/cuptitrace" "$root"/usr/lib/libcuptitrace*.so; do
  ldd "$elf" | awk '/=>/ {print $1, $3}' >"$work/loads.txt"
  while read -r name lib; do
    case $name in
      libcupti.so*)
        check "$(basename "$elf") loads $name, and only the tracer does" test "$(basename "$elf")" = libcuptitrace.so
        continue ;;
    esac
    owner=$( (dpkg -S "$lib" || dpkg -S "$(readlink -f "$lib")") 2>/dev/null | head -1 | cut -d: -f1)
    check "$(basename "$elf") loads $name from ${owner:-no package}, which Depends names" \
      bash -c '[ -n "$1" ] && grep -qxF "$1" "$2"' _ "$owner" "$work/depends.txt"
  done <"$work/loads.txt"
done
check "ldd read the command (it loads libstdc++)" grep -q "^libstdc++" <(ldd "$root/usr/bin/cuptitrace" | awk '{print $1}')
"$root/usr/bin/cuptitrace" -- env >"$work/env.txt"
check "it injects the package's library" has "$work/env.txt" "CUDA_INJECTION64_PATH=$root/usr/lib/libcuptitrace.so"
finish deb "$(basename "$deb") installs under /usr and runs"
