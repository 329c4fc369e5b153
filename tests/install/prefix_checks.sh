#!/usr/bin/env bash
# The installed command from its prefix alone (run by prefix.sh, copied out
# of the source tree, which is hidden while it runs where SOURCE is given).
#   prefix_checks.sh PREFIX WORK [SOURCE]
set -u
prefix=$1 work=$2 source=${3:-}
. "$work/common.sh"
cli=$prefix/bin/cuptitrace
out=$work/out
mkdir -p "$out"
if [ -n "$source" ]; then
  check "the source and build trees are hidden" test ! -e "$source/CMakeLists.txt"
fi

"$cli" --version >"$out/version.txt"
cat "$out/version.txt"
check "cuptitrace --version from the prefix" grep -qE '^cuptitrace [0-9]+\.[0-9]+\.[0-9]+$' "$out/version.txt"

# The library and the preloaded ones it sets up are the prefix's.
"$cli" -- env >"$out/env.txt"
check "CUDA_INJECTION64_PATH is the prefix's library" has "$out/env.txt" "CUDA_INJECTION64_PATH=$prefix/lib/libcuptitrace.so"
check "NVTX_INJECTION64_PATH is the prefix's library" has "$out/env.txt" "NVTX_INJECTION64_PATH=$prefix/lib/libcuptitrace.so"
# The watch library takes itself out of LD_PRELOAD once loaded: seen in the maps.
"$cli" --quiet -- cat /proc/self/maps >"$out/maps.txt"
check "the prefix's watch library is preloaded" contains "$out/maps.txt" "$prefix/lib/libcuptitrace-watch.so"
"$cli" --activities default,osrt -- env >"$out/env-osrt.txt"
check "osrt preloads the prefix's libcuptitrace-osrt.so" contains "$out/env-osrt.txt" "$prefix/lib/libcuptitrace-osrt.so"

# A program traced by the installed library: where there is no driver it
# loads (NVTX starts it), resolves what it links, and says tracing is off.
if has_driver; then
  echo "note: a CUDA driver is here: tracing a sample from a prefix is the GPU test gpu.installed_prefix"
else
  (cd "$out" && "$cli" -o "$out/trace" -- "$work/nvtx_only" >"$out/nvtx.out" 2>"$out/nvtx.err")
  rc=$?
  cat "$out/nvtx.err"
  check "the traced program keeps its exit code 7" test "$rc" -eq 7
  check "the program ran to its end" contains "$out/nvtx.out" "nvtx_only: ran"
  check "the installed library loaded and says there is no driver" contains "$out/nvtx.err" "no CUDA driver"
fi

# --pytorch: the prefix's Python hook runs after `import torch` (a stand-in torch).
cat >"$out/program.py" <<'PY'
import sitecustomize, threading
import torch
main = threading.get_ident()
print(sitecustomize.__file__)
print(repr([e[:2] + (("main" if e[2] == main else "other"),) if len(e) == 3 else e for e in torch.events]))
PY
(cd "$out" && PYTHONPATH="$work/fake_torch" "$cli" --pytorch ops --quiet -- python3 "$out/program.py" >"$out/pytorch.out" 2>"$out/pytorch.err")
cat "$out/pytorch.out" "$out/pytorch.err"
check "--pytorch runs the prefix's hook" \
  has "$out/pytorch.out" "$prefix/share/cuptitrace/python/cuptitrace_pyhook/sitecustomize.py"
check "the hook enabled PyTorch's operator ranges after import" \
  has "$out/pytorch.out" "[('import done',), ('enable', 'NVTX/ops', 'main')]"

# `cuptitrace recipe` from the prefix's recipes: the same CSV as stats.
if ! python3 -c 'import dask.distributed' 2>/dev/null && ! /usr/bin/python3 -c 'import dask.distributed' 2>/dev/null; then
  echo "note: no Python with dask.distributed here: recipe not checked"
else
  reports=ranks,collectives,collective_spread,rank_findings
  "$cli" stats "$work/job/t.*.native" --report "$reports" --format csv >"$out/stats.csv"
  timeout 120 "$cli" recipe rank_summary "$work/job/t.*.native" --workers 2 --format csv >"$out/recipe.csv" 2>"$out/recipe.err"
  check "recipe rank_summary from the prefix equals stats over 8 ranks" cmp -s "$out/stats.csv" "$out/recipe.csv"
  check "the recipe's CSV is not empty" test "$(wc -l <"$out/recipe.csv")" -gt 8
fi

# Reports of a saved trace: the same as the build tree's command printed.
"$cli" stats "$work/train.native" >"$out/train.stats"
check "stats of docs/examples/train.native as the build tree's command prints them" cmp -s "$work/train.stats" "$out/train.stats"
check "... and they list kernels" grep -q "kernel" "$out/train.stats"

# bash completion from share/bash-completion.
bash -c 'source "$1" && complete -p cuptitrace' _ "$prefix/share/bash-completion/completions/cuptitrace" >"$out/complete.txt" 2>&1
check "the completion registers for cuptitrace" grep -q ' cuptitrace$' "$out/complete.txt"

finish installed "the command found its library, hook and recipes in $prefix alone"
