// GPU metrics' second half: the values of decoded samples. The sampling
// thread (pm_sampling.h) only decodes what the hardware buffer must give up
// now, into counter data images, and reads their samples' spans; each
// image, with its records waiting for their values, is queued here, and a
// thread of its own ("gpu metrics eval") evaluates them (CUPTI's host API:
// about as much CPU again as the decode) and holds the finished records for
// the drain thread (collect).
//
// Bounded: at most kMaxQueued images wait. Past that (an evaluation that
// cannot keep up with the rate), the sampling thread evaluates the image
// itself, which slows its decoding rather than holding more memory; that is
// counted (gpu_metrics.evaluated_inline).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "collectors/pm_backend.h"
#include "core/trace.h"

namespace cuptitrace {

// One decode's records, waiting for their values.
struct PmBatch {
  std::vector<GpuMetricRecord> records;  // spans, device and set filled; values not yet
  std::vector<size_t> index;             // each record's sample in the image
  std::vector<double> scale;             // each metric's factor to its unit
  std::unique_ptr<PmImage> image;        // null: nothing to evaluate (values NaN)
  uint64_t seq = 0;                      // its place in the order of decodes (push sets it)
};

class PmEvaluator {
 public:
  PmEvaluator() = default;
  ~PmEvaluator();
  PmEvaluator(const PmEvaluator&) = delete;
  PmEvaluator& operator=(const PmEvaluator&) = delete;

  // Starts the evaluating thread (without it, batches wait for stop()).
  void start();
  // Queues a batch; when kMaxQueued already wait, evaluates it on the caller.
  void push(PmBatch&& batch);
  // Evaluates what is queued and ends the thread, waiting at most `waitNs`
  // for it; false when it did not end (it is let go, and what it had not
  // evaluated is counted as dropped). Batches queued later are evaluated
  // on the caller.
  bool stop(uint64_t waitNs);
  // The drain thread: moves the finished records into the store.
  void collect(TraceStore& store);
  // Records and images held, in bytes (they count against the memory cap).
  uint64_t bytesInMemory() const {
    return pendingBytes_.load(std::memory_order_relaxed) + queuedBytes_.load(std::memory_order_relaxed);
  }
  // CPU time spent evaluating, on every thread, in ns.
  uint64_t cpuNs() const { return cpuNs_.load(std::memory_order_relaxed); }
  uint64_t evaluatedInline() const { return inline_.load(std::memory_order_relaxed); }
  // Records dropped: the pending cap (a drain that no longer runs) or a thread let go.
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  // Samples whose values CUPTI could not evaluate (kept, with NaN values).
  uint64_t failed() const { return failed_.load(std::memory_order_relaxed); }
  // The most batches that waited at once.
  uint64_t maxQueued() const { return maxQueued_.load(std::memory_order_relaxed); }

  static constexpr size_t kMaxQueued = 8;
  // Records held for collect() at most; past it they are dropped and counted.
  static constexpr size_t kMaxPending = size_t{1} << 20;

 private:
  void run() noexcept;
  void evaluate(PmBatch& batch);
  // Hands a batch's records on in the order of decodes (a batch evaluated
  // before an older one waits for it): a device's samples stay in time order.
  void commit(PmBatch& batch);
  void commitLocked(std::vector<GpuMetricRecord>& records);
  static uint64_t batchBytes(const PmBatch& b);

  std::mutex mutex_;  // queue_, stopping_, finished_
  std::condition_variable cv_;
  std::deque<PmBatch> queue_;
  bool stopping_ = false;
  bool finished_ = false;
  bool abandoned_ = false;
  std::thread thread_;
  std::atomic<uint64_t> queuedBytes_{0};
  uint64_t nextSeq_ = 0;  // under mutex_

  std::mutex pendingMutex_;  // pending_, early_, nextCommit_
  std::vector<GpuMetricRecord> pending_;
  std::map<uint64_t, std::vector<GpuMetricRecord>> early_;  // evaluated before an older batch
  uint64_t nextCommit_ = 0;
  bool unordered_ = false;  // the evaluating thread was let go: no batch waits for its
  std::atomic<uint64_t> pendingBytes_{0};

  std::atomic<uint64_t> cpuNs_{0}, inline_{0}, dropped_{0}, failed_{0}, maxQueued_{0};
};

// CPU time of the calling thread, ns.
uint64_t threadCpuNs();

}  // namespace cuptitrace
