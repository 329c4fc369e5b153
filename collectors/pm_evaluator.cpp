#include "collectors/pm_evaluator.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/log.h"
#include "core/own_threads.h"

namespace cuptitrace {

uint64_t threadCpuNs() {
  timespec t{};
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
  return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(t.tv_nsec);
}

PmEvaluator::~PmEvaluator() { stop(10'000'000'000); }

uint64_t PmEvaluator::batchBytes(const PmBatch& b) {
  return (b.image ? b.image->bytes() : 0) + b.records.size() * sizeof(GpuMetricRecord);
}

void PmEvaluator::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void PmEvaluator::push(PmBatch&& batch) {
  bool full = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch.seq = nextSeq_++;
    // Without a thread that takes them (not started, or ended), batches wait
    // for stop() unless it already ran; with one, kMaxQueued at most.
    const bool taken = thread_.joinable() && !finished_;
    if (queue_.size() < kMaxQueued && (taken || !stopping_)) {
      queuedBytes_.fetch_add(batchBytes(batch), std::memory_order_relaxed);
      queue_.push_back(std::move(batch));
      if (queue_.size() > maxQueued_.load(std::memory_order_relaxed))
        maxQueued_.store(queue_.size(), std::memory_order_relaxed);
      cv_.notify_all();
      return;
    }
    full = taken;
  }
  if (full) inline_.fetch_add(1, std::memory_order_relaxed);
  evaluate(batch);
}

void PmEvaluator::run() noexcept {
  registerOwnThread("gpu metrics eval");
  try {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) {  // stopping, and nothing left: later batches are the pusher's
        finished_ = true;
        break;
      }
      PmBatch batch = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      const uint64_t bytes = batchBytes(batch);
      evaluate(batch);
      queuedBytes_.fetch_sub(bytes, std::memory_order_relaxed);
      batch = PmBatch{};  // the image goes back to its pool here, off the sampling thread
      lock.lock();
    }
  } catch (...) {
    logger().warn("gpu_metrics: evaluating stopped after an unexpected error");
  }
  unregisterOwnThread();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  cv_.notify_all();
}

void PmEvaluator::evaluate(PmBatch& b) {
  const uint64_t began = threadCpuNs();
  std::vector<double> values;
  for (size_t k = 0; k < b.records.size(); ++k) {
    GpuMetricRecord& r = b.records[k];
    for (float& v : r.values) v = std::nanf("");
    if (!b.image || !b.image->evaluate(b.index[k], values)) {
      failed_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    for (size_t i = 0; i < b.scale.size() && i < values.size() && i < kGpuMetricSlots; ++i)
      r.values[i] = static_cast<float>(values[i] * b.scale[i]);
  }
  cpuNs_.fetch_add(threadCpuNs() - began, std::memory_order_relaxed);
  commit(b);
}

void PmEvaluator::commit(PmBatch& b) {
  std::lock_guard<std::mutex> lock(pendingMutex_);
  if (b.seq != nextCommit_ && !unordered_) {
    early_[b.seq] = std::move(b.records);
    return;
  }
  commitLocked(b.records);
  ++nextCommit_;
  for (auto it = early_.begin(); it != early_.end() && it->first == nextCommit_; it = early_.erase(it)) {
    commitLocked(it->second);
    ++nextCommit_;
  }
}

void PmEvaluator::commitLocked(std::vector<GpuMetricRecord>& records) {
  const size_t room = kMaxPending > pending_.size() ? kMaxPending - pending_.size() : 0;
  const size_t take = std::min(room, records.size());
  pending_.insert(pending_.end(), records.begin(), records.begin() + static_cast<std::ptrdiff_t>(take));
  dropped_.fetch_add(records.size() - take, std::memory_order_relaxed);
  pendingBytes_.store(pending_.size() * sizeof(GpuMetricRecord), std::memory_order_relaxed);
}

bool PmEvaluator::stop(uint64_t waitNs) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (abandoned_) return false;
  stopping_ = true;
  cv_.notify_all();
  if (thread_.joinable()) {
    if (!cv_.wait_for(lock, std::chrono::nanoseconds(waitNs), [this] { return finished_; })) {
      // Stuck in a CUPTI call: let go. What it holds or has queued is lost.
      abandoned_ = true;
      uint64_t lost = 0;
      for (const PmBatch& b : queue_) lost += b.records.size();
      queue_.clear();
      dropped_.fetch_add(lost, std::memory_order_relaxed);
      lock.unlock();
      thread_.detach();
      // The batch it holds never comes: the ones after it go on without it.
      std::lock_guard<std::mutex> pending(pendingMutex_);
      for (auto& [seq, records] : early_) commitLocked(records);
      early_.clear();
      unordered_ = true;
      return false;
    }
    lock.unlock();
    thread_.join();
    lock.lock();
  }
  // Not started (tests), or batches queued since: evaluated here.
  std::deque<PmBatch> left;
  left.swap(queue_);
  lock.unlock();
  for (PmBatch& b : left) {
    const uint64_t bytes = batchBytes(b);
    evaluate(b);
    queuedBytes_.fetch_sub(bytes, std::memory_order_relaxed);
  }
  return true;
}

void PmEvaluator::collect(TraceStore& store) {
  std::vector<GpuMetricRecord> records;
  {
    std::lock_guard<std::mutex> lock(pendingMutex_);
    records.swap(pending_);
    pendingBytes_.store(0, std::memory_order_relaxed);
  }
  for (const GpuMetricRecord& r : records)
    store.add(r);  // past the budget: spilled, or dropped and counted
}

}  // namespace cuptitrace
