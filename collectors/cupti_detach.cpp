#include "collectors/cupti_detach.h"

#include <nvtx3/nvToolsExt.h>
#include <time.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "core/log.h"

namespace cuptitrace {
namespace {

// The object that barred CUPTI, if any (the tracer's; in tests, one of theirs).
std::atomic<const CuptiDetach*> gBarredBy{nullptr};

// The trace clock after the switch: CLOCK_MONOTONIC plus this.
std::atomic<bool> gClockSwitched{false};
std::atomic<int64_t> gClockOffsetNs{0};

uint64_t monotonicNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Once, while CUPTI may still be called: CUPTI's clock read between two
// monotonic readings gives the offset (modulo 2^64: either sign).
void switchTraceClock() {
  if (gClockSwitched.load(std::memory_order_acquire)) return;
  const uint64_t before = monotonicNs();
  uint64_t cupti = 0;
  cuptiGetTimestamp(&cupti);
  const uint64_t after = monotonicNs();
  gClockOffsetNs.store(static_cast<int64_t>(cupti - (before + (after - before) / 2)), std::memory_order_relaxed);
  gClockSwitched.store(true, std::memory_order_release);
}

const char* resultText(CUptiResult status) {
  const char* text = nullptr;
  if (cuptiBarred() || cuptiGetResultString(status, &text) != CUPTI_SUCCESS || text == nullptr)
    return "error";
  return text;
}

// NVTX modules whose calls CUPTI handles. Fixed size: a program has a handful.
constexpr int kMaxNvtxModules = 64;
const void* gNvtxModules[kMaxNvtxModules];
std::atomic<int> gNvtxModuleCount{0};
std::mutex gNvtxModulesMutex;  // writers only

const NvtxExportTableCallbacks* nvtxCallbacks(const void* getExportTable) {
  auto get = reinterpret_cast<NvtxGetExportTableFunc_t>(const_cast<void*>(getExportTable));
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr)
    return nullptr;
  return callbacks;
}

}  // namespace

bool cuptiBarred() { return gBarredBy.load(std::memory_order_relaxed) != nullptr; }

uint64_t traceClockNs() {
  if (gClockSwitched.load(std::memory_order_acquire))
    return monotonicNs() + static_cast<uint64_t>(gClockOffsetNs.load(std::memory_order_relaxed));
  uint64_t ts = 0;
  cuptiGetTimestamp(&ts);
  return ts;
}

bool rememberNvtxForDetach(const void* getExportTable) {
  if (getExportTable == nullptr || nvtxCallbacks(getExportTable) == nullptr) return false;
  std::lock_guard<std::mutex> lock(gNvtxModulesMutex);
  const int n = gNvtxModuleCount.load(std::memory_order_relaxed);
  for (int i = 0; i < n; ++i)
    if (gNvtxModules[i] == getExportTable) return true;
  if (n >= kMaxNvtxModules) return false;
  gNvtxModules[n] = getExportTable;
  gNvtxModuleCount.store(n + 1, std::memory_order_release);
  return true;
}

void silenceNvtx() {
  const int n = gNvtxModuleCount.load(std::memory_order_acquire);
  for (int m = 0; m < n; ++m) {
    const NvtxExportTableCallbacks* callbacks = nvtxCallbacks(gNvtxModules[m]);
    if (callbacks == nullptr) continue;
    for (int module = NVTX_CB_MODULE_CORE; module < NVTX_CB_MODULE_SIZE; ++module) {
      NvtxFunctionTable slots = nullptr;
      unsigned size = 0;
      if (!callbacks->GetModuleFunctionTable(static_cast<NvtxCallbackModule>(module), &slots, &size) ||
          slots == nullptr)
        continue;
      // Program threads read these slots at every NVTX call: one store each.
      for (unsigned i = 1; i < size; ++i)
        if (slots[i] != nullptr) __atomic_store_n(slots[i], static_cast<NvtxFunctionPointer>(nullptr), __ATOMIC_RELEASE);
    }
  }
}

CuptiDetach::CuptiDetach(Steps steps) : steps_(std::move(steps)) {}

CuptiDetach::~CuptiDetach() { unbar(); }

void CuptiDetach::bar() { gBarredBy.store(this, std::memory_order_release); }

void CuptiDetach::unbar() {
  const CuptiDetach* self = this;
  gBarredBy.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel);
}

bool CuptiDetach::advance() {
  State expected = State::Attached;
  if (state_.compare_exchange_strong(expected, State::Arming, std::memory_order_acq_rel)) {
    if (steps_.prepare) steps_.prepare();
    // From here no code of ours calls CUPTI, so that nothing races the
    // finalize; the clock is switched first, while CUPTI can still be read.
    switchTraceClock();
    bar();
    // The callbacks may fire at once, on any thread: they act only once
    // armed, after both domains are on (no CUPTI call of ours runs then).
    const CUptiResult armed = steps_.armCallbacks ? steps_.armCallbacks(true) : CUPTI_ERROR_NOT_INITIALIZED;
    if (armed != CUPTI_SUCCESS) {
      unbar();
      if (steps_.armCallbacks) steps_.armCallbacks(false);
      failure_.store(armed, std::memory_order_release);
      state_.store(State::Failed, std::memory_order_release);
      report();
      return true;
    }
    armedAtNs_.store(traceClockNs(), std::memory_order_relaxed);
    state_.store(State::Armed, std::memory_order_release);
    return false;
  }
  switch (state()) {
    case State::Arming:
    case State::Armed:
    case State::Finalizing: return false;
    case State::Failed:
      // CUPTI stays attached: its API callbacks are ours to switch off again.
      if (!disarmed_.exchange(true) && steps_.armCallbacks) steps_.armCallbacks(false);
      report();
      return true;
    default: report(); return true;
  }
}

void CuptiDetach::onApiExit() {
  if (state_.load(std::memory_order_relaxed) != State::Armed) return;
  State expected = State::Armed;
  if (!state_.compare_exchange_strong(expected, State::Finalizing, std::memory_order_acq_rel)) return;
  finalizeStartNs_.store(traceClockNs(), std::memory_order_relaxed);
  if (steps_.beforeFinalize) steps_.beforeFinalize();
  const CUptiResult result = steps_.finalize ? steps_.finalize() : cuptiFinalize();
  if (result == CUPTI_SUCCESS) {
    detachedAtNs_.store(traceClockNs(), std::memory_order_release);
    state_.store(State::Detached, std::memory_order_release);
    return;
  }
  // Told by the capture thread or at exit: no logging on the program's thread.
  failure_.store(result, std::memory_order_release);
  unbar();
  state_.store(State::Failed, std::memory_order_release);
}

bool CuptiDetach::settle(int waitMs) {
  State expected = State::Attached;
  if (state_.compare_exchange_strong(expected, State::Withdrawn, std::memory_order_acq_rel)) return false;
  expected = State::Armed;
  if (state_.compare_exchange_strong(expected, State::Withdrawn, std::memory_order_acq_rel)) {
    // No program call returned since the request: CUPTI stays, with every
    // kind off, and the exit path uses it as it always does.
    unbar();
    if (steps_.armCallbacks) steps_.armCallbacks(false);
    report();
    return false;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(waitMs);
  while ((state() == State::Arming || state() == State::Finalizing) && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  report();
  const State s = state();
  return s == State::Detached || s == State::Arming || s == State::Finalizing;
}

void CuptiDetach::report() {
  const State s = state();
  if (s != State::Detached && s != State::Failed && s != State::Withdrawn) return;
  if (reported_.exchange(true)) return;
  if (s == State::Detached) {
    logger().info("CUPTI detached: no capture window can open any more");
  } else if (s == State::Failed) {
    logger().warn("CUPTI could not be detached ({}): it stays attached with collection off",
                  resultText(failure()));
  } else {
    logger().info("CUPTI not detached: the program made no CUDA call after its last capture window");
  }
}

void CuptiDetach::publish(Trace& trace) const {
  switch (state()) {
    case State::Detached: {
      trace.meta.cuptiDetachedNs = detachedAtNs();
      trace.counters["cupti_detached_at_ns"] = detachedAtNs();
      // Where the time went between the request and the detach: waiting for
      // a program call to return, or inside cuptiFinalize.
      const uint64_t armed = armedAtNs_.load(std::memory_order_relaxed);
      const uint64_t began = finalizeStartNs_.load(std::memory_order_relaxed);
      if (armed != 0 && began >= armed) trace.counters["cupti_detach_wait_ns"] = began - armed;
      if (began != 0 && detachedAtNs() >= began) trace.counters["cupti_detach_finalize_ns"] = detachedAtNs() - began;
      break;
    }
    case State::Arming:
    case State::Finalizing:
      // The finalize had not returned at exit; its records were in already.
      trace.counters["cupti_detach_unfinished"] = 1;
      break;
    case State::Failed:
      trace.counters["cupti_detach_failed"] = static_cast<uint64_t>(failure());
      break;
    default: break;
  }
}

}  // namespace cuptitrace
