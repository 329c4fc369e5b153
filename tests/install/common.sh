# Sourced by the install tests: check DESCRIPTION COMMAND... prints "ok" or
# "FAIL" and counts failures; finish prints the tally line and exits with it.
failures=0
check() {
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
# has FILE TEXT: FILE holds the line TEXT (fixed string).
has() { grep -qxF -- "$2" "$1"; }
# contains FILE TEXT: some line of FILE contains TEXT (fixed string).
contains() { grep -qF -- "$2" "$1"; }
finish() {  # finish NAME SUMMARY
  if [ "$failures" -eq 0 ]; then echo "$1: $2"; else echo "$1: $failures check(s) failed"; fi
  [ "$failures" -eq 0 ]
  exit $?
}
# Whether a CUDA driver is installed (then the library traces instead of saying there is none).
has_driver() { ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' || [ -e /dev/nvidia0 ]; }

# prepare_checks WORK SOURCE BUILD NVTX_ONLY RANK_BENCH: copies into WORK what
# prefix_checks.sh needs from the trees (test programs, a stand-in torch, 8
# synthetic ranks, the docs' trace and the build's report of it).
prepare_checks() {
  local work=$1 source=$2 build=$3 nvtx_only=$4 bench=$5
  cp "$nvtx_only" "$work/nvtx_only"
  cp -r "$source/tests/integration/pyhook/fake_torch" "$work/fake_torch"
  "$bench" --ranks 8 --steps 20 --kernels 4 --dir "$work/job" --generate-only >/dev/null
  cp "$source/docs/examples/train.native" "$work/train.native"
  "$build/cli/cuptitrace" stats "$work/train.native" >"$work/train.stats"
  cp "$source/tests/install/prefix_checks.sh" "$source/tests/install/common.sh" "$work/"
}

# checks_from PREFIX WORK SOURCE BUILD: runs prefix_checks.sh on PREFIX with
# the source and build trees hidden: an empty tmpfs over each, in a mount
# namespace of this test alone (as root, or in a user namespace), where the
# system allows one; elsewhere with the trees in view (the checks still name
# the files used).
checks_from() {
  local prefix=$1 work=$2 source=$3 build=$4
  local hide_list=("$source")
  case "$build/" in "$source"/*) ;; *) hide_list+=("$build") ;; esac
  # The first way that can mount a tmpfs here (containers may refuse both).
  local hide=() way
  mkdir -p "$work/probe"
  for way in "unshare -m" "unshare -rm"; do
    [ "$way" = "unshare -m" ] && [ "$(id -u)" -ne 0 ] && continue
    if $way mount -t tmpfs -o size=1m cuptitrace-probe "$work/probe" 2>/dev/null; then
      read -r -a hide <<<"$way"
      break
    fi
  done
  if [ ${#hide[@]} -eq 0 ]; then
    echo "note: no mount namespace here: the trees stay in view"
    bash "$work/prefix_checks.sh" "$prefix" "$work" ""
    return
  fi
  # From /, so that no working directory keeps a way into the hidden trees.
  (cd / && "${hide[@]}" bash -c 'for d in "${@:4}"; do mount -t tmpfs -o size=1m cuptitrace-hidden "$d" || exit 1; done
                                  exec bash "$2/prefix_checks.sh" "$1" "$2" "$3"' _ "$prefix" "$work" "$source" "${hide_list[@]}")
}
