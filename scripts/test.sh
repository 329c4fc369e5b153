#!/usr/bin/env bash
# Builds cuptitrace and runs its tests: the unit tests everywhere, the GPU
# tests where a GPU is present (elsewhere they report "skipped").
#   scripts/test.sh            installs dependencies first
#   SKIP_DEPS=1 scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${SKIP_DEPS:-0}" = 1 ] || bash scripts/install-deps.sh
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH:-90} >/dev/null
cmake --build "$BUILD" -j "${JOBS:-2}"
ctest --test-dir "$BUILD" --output-on-failure -j "${JOBS:-2}"
