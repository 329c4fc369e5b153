// Detaching CUPTI, with its steps replaced: the request prepares and arms
// once, the first API exit finalizes once, a failure leaves CUPTI attached,
// the exit path withdraws a request no program call answered, and NVTX slots
// are emptied.
#include <catch2/catch.hpp>

#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <thread>
#include <vector>

#include "collectors/cupti_detach.h"

using namespace cuptitrace;
using State = CuptiDetach::State;

namespace {

struct Calls {
  std::atomic<int> prepared{0};
  std::atomic<int> armedOn{0};
  std::atomic<int> armedOff{0};
  std::atomic<int> silenced{0};
  std::atomic<int> finalized{0};
  std::atomic<bool> barredWhenPreparing{true};
  std::atomic<bool> barredWhenFinalizing{false};
  CUptiResult armResult = CUPTI_SUCCESS;
  CUptiResult finalizeResult = CUPTI_SUCCESS;
  std::atomic<bool>* holdFinalize = nullptr;  // finalize waits while it is true
};

CuptiDetach::Steps steps(Calls& c) {
  return {[&c] {
            c.barredWhenPreparing = cuptiBarred();
            ++c.prepared;
          },
          [&c](bool on) {
            ++(on ? c.armedOn : c.armedOff);
            return on ? c.armResult : CUPTI_SUCCESS;
          },
          [&c] { ++c.silenced; },
          [&c] {
            c.barredWhenFinalizing = cuptiBarred();
            while (c.holdFinalize != nullptr && c.holdFinalize->load()) std::this_thread::yield();
            ++c.finalized;
            return c.finalizeResult;
          }};
}

}  // namespace

TEST_CASE("cupti detach: prepare and arm once, finalize at the first API exit") {
  Calls c;
  CuptiDetach d(steps(c));
  CHECK_FALSE(cuptiBarred());
  d.onApiExit();  // not asked yet: an API exit does nothing
  CHECK(c.finalized == 0);

  CHECK_FALSE(d.advance());  // armed: waits for a program call
  CHECK(d.state() == State::Armed);
  CHECK(c.prepared == 1);
  CHECK_FALSE(c.barredWhenPreparing);  // CUPTI may still be called while preparing
  CHECK(c.armedOn == 1);
  CHECK(cuptiBarred());
  CHECK_FALSE(d.advance());  // nothing new until a call returns
  CHECK(c.prepared == 1);

  d.onApiExit();
  CHECK(d.state() == State::Detached);
  CHECK(c.silenced == 1);
  CHECK(c.finalized == 1);
  CHECK(c.barredWhenFinalizing);
  d.onApiExit();
  CHECK(c.finalized == 1);
  CHECK(d.advance());
  CHECK(cuptiBarred());  // for good: a CUPTI call would attach it again
  CHECK(c.armedOff == 0);
  CHECK(d.settle(10));   // the exit path must not call CUPTI

  Trace trace;
  d.publish(trace);
  CHECK(trace.meta.cuptiDetachedNs == d.detachedAtNs());
  CHECK(trace.counters.count("cupti_detached_at_ns") == 1);
  CHECK(trace.counters.count("cupti_detach_wait_ns") == 1);
  CHECK(trace.counters.count("cupti_detach_finalize_ns") == 1);
  CHECK(trace.counters.count("cupti_detach_failed") == 0);
}

TEST_CASE("cupti detach: many threads return from API calls at once, one finalizes") {
  Calls c;
  CuptiDetach d(steps(c));
  REQUIRE_FALSE(d.advance());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&d] {
      for (int i = 0; i < 1000; ++i) d.onApiExit();
    });
  for (auto& t : threads) t.join();
  CHECK(c.finalized == 1);
  CHECK(c.silenced == 1);
  CHECK(d.state() == State::Detached);
}

TEST_CASE("cupti detach: a failed finalize leaves CUPTI attached and its callbacks off") {
  Calls c;
  c.finalizeResult = CUPTI_ERROR_NOT_SUPPORTED;
  CuptiDetach d(steps(c));
  REQUIRE_FALSE(d.advance());
  d.onApiExit();
  CHECK(d.state() == State::Failed);
  CHECK(d.failure() == CUPTI_ERROR_NOT_SUPPORTED);
  CHECK_FALSE(cuptiBarred());  // the exit path flushes and stops as usual
  CHECK(d.advance());
  CHECK(c.armedOff == 1);
  CHECK(d.advance());
  CHECK(c.armedOff == 1);
  CHECK_FALSE(d.settle(10));
  d.onApiExit();
  CHECK(c.finalized == 1);

  Trace trace;
  d.publish(trace);
  CHECK(trace.meta.cuptiDetachedNs == 0);
  CHECK(trace.counters.at("cupti_detach_failed") == static_cast<uint64_t>(CUPTI_ERROR_NOT_SUPPORTED));
}

TEST_CASE("cupti detach: callbacks that cannot be armed: no detach, CUPTI usable") {
  Calls c;
  c.armResult = CUPTI_ERROR_INVALID_PARAMETER;
  CuptiDetach d(steps(c));
  CHECK(d.advance());
  CHECK(d.state() == State::Failed);
  CHECK(c.armedOff == 1);
  CHECK_FALSE(cuptiBarred());
  d.onApiExit();
  CHECK(c.finalized == 0);
}

TEST_CASE("cupti detach: the exit path withdraws a request no program call answered") {
  Calls c;
  CuptiDetach d(steps(c));
  REQUIRE_FALSE(d.advance());
  REQUIRE(cuptiBarred());
  CHECK_FALSE(d.settle(10));  // CUPTI stays: the exit path may use it
  CHECK(d.state() == State::Withdrawn);
  CHECK_FALSE(cuptiBarred());
  CHECK(c.armedOff == 1);
  d.onApiExit();  // a call returning afterwards finalizes nothing
  CHECK(c.finalized == 0);
  CHECK(d.advance());

  Trace trace;
  d.publish(trace);
  CHECK(trace.counters.empty());
}

TEST_CASE("cupti detach: nothing asked before exit: nothing starts afterwards") {
  Calls c;
  CuptiDetach d(steps(c));
  CHECK_FALSE(d.settle(10));
  CHECK(d.advance());
  CHECK(c.prepared == 0);
  CHECK(c.armedOn == 0);
  CHECK_FALSE(cuptiBarred());
}

TEST_CASE("cupti detach: the exit path waits for a finalize under way, then keeps off CUPTI") {
  Calls c;
  std::atomic<bool> hold{true};
  c.holdFinalize = &hold;
  CuptiDetach d(steps(c));
  REQUIRE_FALSE(d.advance());
  std::thread program([&d] { d.onApiExit(); });
  while (d.state() != State::Finalizing) std::this_thread::yield();
  CHECK(d.settle(20));  // still finalizing after the wait: CUPTI must not be called
  CHECK(cuptiBarred());
  hold = false;
  program.join();
  CHECK(d.state() == State::Detached);
  Trace trace;
  d.publish(trace);
  CHECK(trace.counters.count("cupti_detached_at_ns") == 1);
  CHECK(trace.counters.at("cupti_detach_finalize_ns") >= 20000000ull);  // held past the 20 ms wait
}

TEST_CASE("cupti detach: an object that barred CUPTI lifts the bar when it goes") {
  {
    Calls c;
    CuptiDetach d(steps(c));
    REQUIRE_FALSE(d.advance());
    d.onApiExit();
    REQUIRE(cuptiBarred());
  }
  CHECK_FALSE(cuptiBarred());
}

TEST_CASE("cupti detach: the trace clock goes on across the switch") {
  const uint64_t before = traceClockNs();
  Calls c;
  CuptiDetach d(steps(c));
  REQUIRE_FALSE(d.advance());  // switches the clock
  const uint64_t after = traceClockNs();
  CHECK(after >= before);
  CHECK(after - before < 60ull * 1000000000ull);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const uint64_t later = traceClockNs();
  CHECK(later - after >= 5000000ull);
  CHECK(later - after < 5000000000ull);
}

namespace {

// One module's NVTX globals and the export table NVTX hands an injection.
void fakeHandler() {}
NvtxFunctionPointer gSlotA = &fakeHandler;
NvtxFunctionPointer gSlotB = &fakeHandler;
NvtxFunctionPointer gSlotUntouched = &fakeHandler;  // index 0: not a call
NvtxFunctionPointer* gCoreTable[] = {&gSlotUntouched, &gSlotA, &gSlotB, nullptr};

int NVTX_API getModuleFunctionTable(NvtxCallbackModule module, NvtxFunctionTable* out, unsigned* size) {
  if (module != NVTX_CB_MODULE_CORE) return 0;
  *out = gCoreTable;
  *size = 3;
  return 1;
}

const NvtxExportTableCallbacks gCallbacks = {sizeof(NvtxExportTableCallbacks), getModuleFunctionTable};

const void* NVTX_API getExportTable(uint32_t id) { return id == NVTX_ETID_CALLBACKS ? &gCallbacks : nullptr; }

const void* NVTX_API getNoExportTable(uint32_t) { return nullptr; }

}  // namespace

TEST_CASE("cupti detach: NVTX slots of remembered modules are emptied") {
  CHECK_FALSE(rememberNvtxForDetach(nullptr));
  CHECK_FALSE(rememberNvtxForDetach(reinterpret_cast<const void*>(&getNoExportTable)));
  REQUIRE(rememberNvtxForDetach(reinterpret_cast<const void*>(&getExportTable)));
  CHECK(rememberNvtxForDetach(reinterpret_cast<const void*>(&getExportTable)));  // once is enough
  CHECK(gSlotA != nullptr);
  silenceNvtx();
  CHECK(gSlotA == nullptr);
  CHECK(gSlotB == nullptr);
  CHECK(gSlotUntouched != nullptr);
}
