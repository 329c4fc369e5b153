#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time.
#   scripts/fuzz.sh [SECONDS]       default 30 seconds per target
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
BUILD=${BUILD:-build-fuzz}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
  -DCUPTITRACE_BUILD_FUZZERS=ON -DCUPTITRACE_BUILD_SAMPLES=OFF -DCUPTITRACE_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j "${JOBS:-2}" --target fuzz_config fuzz_escaping fuzz_native
for target in fuzz_config fuzz_escaping fuzz_native; do
  corpus=$BUILD/corpus-$target
  mkdir -p "$corpus"
  echo "fuzz: $target for ${seconds}s"
  rc=0
  "$BUILD/fuzz/$target" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 "$corpus" \
    >"$BUILD/$target.log" 2>&1 || rc=$?
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)" "$BUILD/$target.log" || true
  if [ "$rc" -ne 0 ]; then
    tail -n 40 "$BUILD/$target.log" >&2
    echo "fuzz: $target found a failure (input saved by libFuzzer as crash-*)" >&2
    exit 1
  fi
done
echo "fuzz: 3 targets ran ${seconds}s each without a failure"
