#!/usr/bin/env bash
# The installed tool on a GPU: `cmake --install` into a temporary prefix, the
# source and build trees hidden (tests/install/common.sh), and a sample traced
# by the prefix's command and library alone; the prefix's `stats` finds its
# kernel in the trace. Where PyTorch is installed, `--pytorch ops` from the
# prefix records its operators too. Exit 77 without a GPU.
#   installed_prefix.sh BUILD SOURCE VECTOR_ADD
set -u
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) sample=$3
if [ ! -e /dev/nvidia0 ] || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP installed_prefix: no GPU (/dev/nvidia0 missing or nvidia-smi -L failed)"
  exit 77
fi
. "$source/tests/install/common.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/cuptitrace-gpu-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null || exit 1
cp "$sample" "$work/vector_add"
cat >"$work/prefix_checks.sh" <<'SH'
# Run where the trees are hidden: PREFIX WORK [SOURCE]
prefix=$1 work=$2 source=${3:-}
. "$work/common.sh"
[ -n "$source" ] && check "the source and build trees are hidden" test ! -e "$source/CMakeLists.txt"
cd "$work" || exit 1
"$prefix/bin/cuptitrace" --format json,native -o "$work/va" -- "$work/vector_add" >"$work/run.out" 2>"$work/run.err"
rc=$?
cat "$work/run.err"
check "vector_add traced by the prefix's command exits 0" test "$rc" -eq 0
check "the trace was written" test -s "$work/va.native" -a -s "$work/va.json"
"$prefix/bin/cuptitrace" stats "$work/va.native" --report kernels >"$work/kernels.txt" 2>&1
cat "$work/kernels.txt"
check "the prefix's stats finds the kernel vectorAdd" grep -q vectorAdd "$work/kernels.txt"
if python3 -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
  "$prefix/bin/cuptitrace" --pytorch ops --format native -o "$work/torch" -- python3 -c \
    'import torch; x = torch.ones(1 << 20, device="cuda"); print(float((x * 2).sum()))' >"$work/torch.out" 2>"$work/torch.err"
  rc=$?
  cat "$work/torch.err"
  check "a PyTorch program traced with --pytorch ops from the prefix exits 0" test "$rc" -eq 0
  "$prefix/bin/cuptitrace" stats "$work/torch.native" --report operators >"$work/ops.txt" 2>&1
  grep -E "aten::(mul|sum)" "$work/ops.txt"
  check "the prefix's hook recorded aten::mul and aten::sum" \
    bash -c 'grep -q "aten::mul" "$1" && grep -q "aten::sum" "$1"' _ "$work/ops.txt"
else
  echo "note: no PyTorch with CUDA here: --pytorch from the prefix not checked on the GPU"
fi
finish installed_prefix "vector_add traced from $prefix alone"
SH
cp "$source/tests/install/common.sh" "$work/"
checks_from "$work/prefix" "$work" "$source" "$build"
