// Detaching CUPTI from the process once no capture window can open again.
//
// With every activity kind disabled, CUPTI still takes part of its per-launch
// cost while it is attached to a context; only cuptiFinalize removes it.
// CUPTI wants that called at the exit of a CUDA runtime or driver API call
// ("Dynamic Attach and Detach" in its documentation): a request first hands
// over and decodes every record and switches every kind off, then switches on
// API callbacks, and the first call of the program to return finalizes CUPTI,
// on the program's thread. No thread waits for that call: the capture thread
// looks now and then, and the exit path withdraws a request still pending.
//
// From the request on, no code of ours calls CUPTI (cuptiBarred()): any CUPTI
// call attaches it again. The trace clock (traceClockNs()) then runs on
// CLOCK_MONOTONIC, set to CUPTI's clock at the request.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <functional>

#include "core/trace.h"

namespace cuptitrace {

class CuptiDetach {
 public:
  enum class State : uint8_t {
    Attached,    // nothing asked
    Arming,      // records handed over, callbacks being switched on
    Armed,       // waiting for the program's next API call to return
    Finalizing,  // cuptiFinalize runs on a program thread
    Detached,
    Failed,      // CUPTI stays attached with every kind off
    Withdrawn,   // the process exits first: CUPTI stays attached
  };

  struct Steps {
    // Hands over and decodes every record CUPTI holds and switches every kind
    // off. CUPTI may still be called here.
    std::function<void()> prepare;
    // Runtime and driver API callbacks of our subscriber on or off.
    std::function<CUptiResult(bool on)> armCallbacks;
    // In the callback, right before finalizing: NVTX calls stop reaching CUPTI.
    std::function<void()> beforeFinalize;
    // cuptiFinalize when empty (tests replace it).
    std::function<CUptiResult()> finalize;
  };

  explicit CuptiDetach(Steps steps);
  // Only test objects are destroyed; one that barred CUPTI lifts the bar.
  ~CuptiDetach();
  CuptiDetach(const CuptiDetach&) = delete;
  CuptiDetach& operator=(const CuptiDetach&) = delete;

  // Moves a detach on, on the capture thread with no lock of ours held. The
  // first call prepares and arms; later calls look whether a program thread
  // has finalized. True once there is an outcome (detached, failed, withdrawn).
  bool advance();
  // From the subscriber's runtime and driver API callbacks, at a call's exit.
  void onApiExit();
  // At exit, before collection stops: no detach starts after this, an armed
  // one is withdrawn, a finalize under way is waited for up to `waitMs`.
  // True when CUPTI must not be called again (detached, or a finalize that
  // has not returned).
  bool settle(int waitMs);

  State state() const { return state_.load(std::memory_order_acquire); }
  // Trace clock when cuptiFinalize returned; 0 unless detached.
  uint64_t detachedAtNs() const { return detachedAtNs_.load(std::memory_order_acquire); }
  // What cuptiFinalize (or arming the callbacks) answered when it failed.
  CUptiResult failure() const { return failure_.load(std::memory_order_acquire); }
  // The outcome into the trace's metadata and counters.
  void publish(Trace& trace) const;

 private:
  void bar();
  void unbar();
  void report();

  const Steps steps_;
  std::atomic<State> state_{State::Attached};
  std::atomic<uint64_t> armedAtNs_{0};       // trace clock: callbacks on
  std::atomic<uint64_t> finalizeStartNs_{0};  // trace clock: a program thread began finalizing
  std::atomic<uint64_t> detachedAtNs_{0};
  std::atomic<CUptiResult> failure_{CUPTI_SUCCESS};
  std::atomic<bool> reported_{false};
  std::atomic<bool> disarmed_{false};
};

// True while code of ours must not call CUPTI: a detach was asked for and
// has not failed or been withdrawn. One relaxed load.
bool cuptiBarred();

// Nanoseconds on the trace clock: cuptiGetTimestamp until a detach is asked
// for, CLOCK_MONOTONIC moved onto CUPTI's clock from then on.
uint64_t traceClockNs();

// Remembers the NVTX function tables of one module (what NVTX passed to
// InitializeInjectionNvtx2), so a detach can turn its NVTX calls into no-ops:
// CUPTI's handlers stay in them otherwise, and they belong to a CUPTI that
// is gone. False when the tables cannot be read.
bool rememberNvtxForDetach(const void* getExportTable);
// Empties every remembered NVTX slot: later NVTX calls return at once.
void silenceNvtx();

}  // namespace cuptitrace
