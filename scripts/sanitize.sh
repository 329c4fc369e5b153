#!/usr/bin/env bash
# Builds the unit tests with AddressSanitizer + UndefinedBehaviorSanitizer, and
# with ThreadSanitizer, and runs them (no GPU needed; the tests of the built
# command, the browser and the install paths run in the ordinary build).
# ThreadSanitizer runs the tests of the code that has threads (the core's
# store, spill and writer threads, the collectors, the exporters' parallel
# writers, the command's parallel reads); the timeline and the reports run on
# one thread, and their tests under it would only cost the CI time.
#   scripts/sanitize.sh [address|thread]...     default: both
set -euo pipefail
cd "$(dirname "$0")/.."
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(address thread)
for kind in "${kinds[@]}"; do
  build=build-$kind
  echo "sanitize: $kind"
  # -O1 and line tables: the sanitizers' usual flags, and the build takes half the time of -O2 -g.
  cmake -S . -B "$build" -G Ninja -DCUPTITRACE_SANITIZE="$kind" -DCUPTITRACE_BUILD_SAMPLES=OFF \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" >/dev/null
  # cuptitrace_cli too: a cli test runs the command itself.
  targets=(core_tests timeline_tests exporter_tests report_tests collector_tests cli_tests cuptitrace_cli)
  skip='^(gpu|integration|docs|html|install)\.'
  if [ "$kind" = thread ]; then
    targets=(core_tests exporter_tests collector_tests cli_tests cuptitrace_cli)
    # The tests of those not built: their cases, and CTest's stand-ins for them.
    skip+='|^(timeline|reports): |^(timeline|report)_tests'
  fi
  cmake --build "$build" -j "${JOBS:-2}" --target "${targets[@]}"
  # halt_on_error: the first report fails the run; second_deadlock_stack helps read TSan reports.
  ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir "$build" -E "$skip" --output-on-failure -j "${JOBS:-2}"
done
