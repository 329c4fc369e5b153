// The activity API side: enables the selected CUPTI activity kinds, hands
// CUPTI buffers from the pool, queues completed buffers, and decodes them on
// one drain thread into the trace. CUPTI's callbacks only move buffers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "collectors/buffer_pool.h"
#include "collectors/decoder.h"
#include "collectors/drain_schedule.h"
#include "core/config.h"
#include "core/fault_boundary.h"
#include "core/trace.h"

namespace cuptitrace {

class ActivityCollector {
 public:
  // `onDrain` runs on the drain thread after each batch (NVTX records are
  // moved into the store there, so the store has one writer).
  ActivityCollector(Trace& trace, const Config& config, std::function<void()> onDrain);
  ~ActivityCollector();
  ActivityCollector(const ActivityCollector&) = delete;
  ActivityCollector& operator=(const ActivityCollector&) = delete;

  // Registers the buffer callbacks and enables the kinds in config.activities.
  // False (and a message in `error`) when CUPTI refuses.
  bool start(std::string& error);
  // Forces CUPTI to hand back every buffer, decodes what is left and stops
  // the drain thread. Records in the store are complete afterwards.
  void stop();
  // Asks CUPTI for completed buffers without waiting for them to fill.
  void flush();
  // Has the drain thread run now rather than at its next tick (records
  // waiting elsewhere, NVTX's). Any thread; takes no lock that CUPTI holds.
  void wake();
  // Turns the selected kinds on or off (capture windows). Device and context
  // records stay on: they name the tracks. False when CUPTI refused one.
  bool setRecording(bool on);
  // Before CUPTI is detached: every kind off, every record CUPTI holds
  // handed over and decoded. From the detach on, stop() calls CUPTI no more.
  void prepareDetach();

  // A context was created (on the program's thread, in a CUPTI callback):
  // enables what CUPTI could not enable before the driver was ready.
  void onContextCreated();

  // An OpenACC runtime registered with CUPTI (openacc_collector.cpp):
  // enables CUPTI's OpenACC kinds, and the external correlation records that
  // tie OpenACC events to the CUDA calls they made. Once; later calls do
  // nothing. False when CUPTI refused one.
  bool enableOpenAcc();

  // Counters for the trace metadata.
  void publishCounters();

 private:
  struct Completed {
    uint8_t* buffer;
    size_t validSize;
  };

  // CUPTI's entries and the drain thread's body: nothing thrown below them
  // passes (fault_boundary.h).
  static void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) noexcept;
  static void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer,
                                       size_t size, size_t validSize) noexcept;
  void onCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t validSize);
  void drainLoop() noexcept;
  void drainPending() noexcept;
  void drainBatch();
  // Writes the journal's tails (TraceStore::journalTails), under the decoding lock.
  void journalTails() noexcept;
  std::vector<CUpti_ActivityKind> kinds() const;
  // The lean API set (the `api` activity) per callback id, for each API whose
  // whole kind is not asked for; counts the callback ids CUPTI took.
  void setLeanApi(bool on);
  bool leanRuntime() const;
  bool leanDriver() const;
  // Chooses the unified memory counters; false when CUPTI supports none here.
  bool configureUvmCounters();

  Trace& trace_;
  const Config config_;
  std::function<void()> onDrain_;
  BufferPool pool_;
  Decoder decoder_;

  std::mutex queueMutex_;
  std::condition_variable queueCv_;
  std::vector<Completed> queue_;  // capacity reserved for every buffer: never grows in a callback
  bool stopping_ = false;
  bool wakeRequested_ = false;  // under queueMutex_
  std::thread drainThread_;
  std::mutex decodeMutex_;  // the drain thread and stop() both decode

  std::atomic<uint64_t> cuptiDropped_{0};
  std::atomic<uint64_t> buffersCompleted_{0};
  std::vector<CUpti_ActivityKind> enabled_;
  std::vector<const char*> refused_;
  uint32_t leanRuntimeIds_ = 0;  // lean set callback ids CUPTI took, per API
  uint32_t leanDriverIds_ = 0;
  uint32_t leanRefused_ = 0;     // lean set callback ids CUPTI refused
  // Unified memory counters, when CUPTI could not enable them at start.
  void setUvm(bool on);
  std::mutex uvmMutex_;
  std::atomic<bool> uvmDeferred_{false};
  bool uvmEnabled_ = false;  // under uvmMutex_
  bool uvmRefused_ = false;  // under uvmMutex_  // optional kinds CUPTI refused ("memory", "uvm", "graph")
  uint32_t uvmCounters_ = 0;          // unified memory counters configured
  bool started_ = false;
  // OpenACC kinds (openAccKinds()), once a runtime registered: switched with
  // the windows too.
  static const std::vector<CUpti_ActivityKind>& openAccKinds();
  std::atomic<bool> openAccOn_{false};
  std::atomic<bool> windowOpen_{true};  // the last setRecording
  // CUPTI may be called from the drain thread (periodic flush): false once
  // stopping or detaching.
  std::atomic<bool> recording_{false};
  std::mutex flushMutex_;
  void stopPeriodicFlush();
  static constexpr std::chrono::seconds kPeriodicFlush{1};

  FaultBoundary requestBoundary_{"buffer_request"};
  FaultBoundary completeBoundary_{"buffer_complete"};
  // Decoding and moving NVTX records into the store; past a failure the
  // buffers still go back to the pool, undecoded, and are counted.
  FaultBoundary drainBoundary_{"drain"};
};

}  // namespace cuptitrace
