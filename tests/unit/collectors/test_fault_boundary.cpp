// The NVTX callback's fault boundary under memory running out: the Nth
// allocation of a call fails (bad_alloc from a replaced operator new, on this
// thread only), for every N the call makes; the exception never leaves the
// callback, the part stops, and what was lost is counted.
#include <generated_nvtx_meta.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <string>

#include "collectors/nvtx_callbacks.h"

#include "failing_new.h"

using failing_new::tAllocations;
using failing_new::tAllocationsLeft;

using namespace cuptitrace;

namespace {

bool noStream(CUstream, uint32_t*) { return false; }
bool noContext(CUcontext, uint32_t*) { return false; }

struct Fixture {
  Trace trace;
  NvtxRecorder recorder;
  NvtxCallbacks callbacks{recorder, trace.strings, CudaIdLookup{noStream, noContext}};

  void push(const std::string& message) {
    const nvtxRangePushA_params p{message.c_str()};
    CUpti_NvtxData data{};
    data.functionName = "nvtxRangePushA";
    data.functionParams = &p;
    callbacks.handle(CUPTI_CBID_NVTX_nvtxRangePushA, &data);
  }
  void pop() {
    CUpti_NvtxData data{};
    data.functionName = "nvtxRangePop";
    const nvtxRangePop_params p{};
    data.functionParams = &p;
    callbacks.handle(CUPTI_CBID_NVTX_nvtxRangePop, &data);
  }
};

}  // namespace

TEST_CASE(
    "fault boundary: the Nth allocation of an NVTX call fails, for every N, and nothing escapes") {
  // A thread's first NVTX call allocates the most: its interner cache, its
  // recorder state, the string in the table, the range stack.
  long failedRuns = 0;
  for (long n = 0;; ++n) {
    Fixture f;
    const std::string message = "step " + std::to_string(n);
    // Armed around the call only: Catch's own allocations must not fail.
    bool escaped = false;
    tAllocations = 0;
    tAllocationsLeft = n;
    try {
      f.push(message);
    } catch (...) {
      escaped = true;
    }
    const bool failed = tAllocationsLeft == -1 && tAllocations == n + 1;
    tAllocationsLeft = -1;
    REQUIRE_FALSE(escaped);
    if (!failed) {
      // The call needed fewer than n + 1 allocations: it ran through.
      CHECK(f.callbacks.boundary().failures() == 0);
      f.pop();
      f.recorder.collect(f.trace.store, true, 100);
      REQUIRE(f.trace.store.records<NvtxRecord>().size() == 1);
      CHECK(f.trace.strings.get(f.trace.store.records<NvtxRecord>()[0].message) == message);
      CHECK(f.trace.counters.count("failed.nvtx_callback") == 0);
      break;
    }
    ++failedRuns;
    CHECK(f.callbacks.boundary().failures() == 1);
    CHECK(f.callbacks.boundary().stopped());
    // The part has stopped: later calls are skipped and counted, not recorded.
    f.pop();
    f.push("later");
    f.pop();
    CHECK(f.callbacks.boundary().skipped() == 3);
    f.recorder.collect(f.trace.store, true, 100);
    f.callbacks.publish(f.trace);
    CHECK(f.trace.counters["failed.nvtx_callback"] == 1);
    CHECK(f.trace.counters["dropped.after_failure.nvtx_callback"] == 3);
    CHECK(f.trace.totalDropped() >= 3);
    CHECK(failureSummary(f.trace.counters) == "; failed: nvtx_callback 1");
  }
  // The first call allocates, so at least the first allocation failed.
  CHECK(failedRuns >= 1);
}

TEST_CASE("fault boundary: a failure on another part leaves this one recording") {
  FaultBoundary a("a"), b("b");
  CHECK_FALSE(a.run([] { throw std::bad_alloc(); }));
  int ran = 0;
  CHECK(b.run([&] { ++ran; }));
  CHECK_FALSE(a.run([&] { ++ran; }));
  CHECK(ran == 1);
  CHECK(a.call(7, [] { return 1; }) == 7);
  CHECK(b.call(7, [] { return 1; }) == 1);
  std::map<std::string, uint64_t> counters;
  a.publish(counters);
  b.publish(counters);  // nothing failed there: no counters
  CHECK(counters ==
        std::map<std::string, uint64_t>{{"failed.a", 1}, {"dropped.after_failure.a", 2}});
  CHECK(failureSummary(counters) == "; failed: a 1");
  CHECK(failureSummary({{"failed.x", 0}, {"dropped.y", 3}}).empty());
}
