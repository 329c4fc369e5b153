#!/usr/bin/env bash
# Installs the dependencies, builds cuptitrace and traces the vector_add
# sample: the outputs land in out/ (open out/vector_add.json in
# https://ui.perfetto.dev). Without a GPU the sample says so and nothing is traced.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${SKIP_DEPS:-0}" = 1 ] || bash scripts/install-deps.sh
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH:-90} >/dev/null
cmake --build "$BUILD" -j "${JOBS:-2}" --target cuptitrace_injection cuptitrace_cli vector_add
mkdir -p out
set +e
"$BUILD/cli/cuptitrace" --format json,csv,native -o out/vector_add -- "$BUILD/samples/vector_add"
rc=$?
set -e
if [ "$rc" -eq 77 ]; then
  echo "demo: no GPU on this machine: built, but nothing to trace"
  exit 0
fi
ls -l out/vector_add.*
exit "$rc"
