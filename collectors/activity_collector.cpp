#include "collectors/activity_collector.h"

#include "collectors/cupti_check.h"
#include "core/log.h"

namespace cuptitrace {
namespace {

// CUPTI's buffer callbacks carry no user pointer: the one collector of the
// process is reached through this. Set before the callbacks are registered.
std::atomic<ActivityCollector*> gCollector{nullptr};

const char* resultText(CUptiResult status) {
  const char* text = nullptr;
  if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || text == nullptr) return "unknown error";
  return text;
}

}  // namespace

ActivityCollector::ActivityCollector(Trace& trace, const Config& config, std::function<void()> onDrain)
    : trace_(trace),
      config_(config),
      onDrain_(std::move(onDrain)),
      pool_(config.bufferSize, config.bufferPool, config.maxBuffers),
      decoder_(trace) {
  queue_.reserve(pool_.maxBuffers() + 1);
}

ActivityCollector::~ActivityCollector() { stop(); }

std::vector<CUpti_ActivityKind> ActivityCollector::kinds() const {
  std::vector<CUpti_ActivityKind> k;
  const uint32_t a = config_.activities;
  // Device and context records are few and name the GPU tracks: always on.
  k.push_back(CUPTI_ACTIVITY_KIND_DEVICE);
  k.push_back(CUPTI_ACTIVITY_KIND_CONTEXT);
  if (a & kActivityKernel) k.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (a & kActivityMemcpy) {
    k.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
    k.push_back(CUPTI_ACTIVITY_KIND_MEMCPY2);
  }
  if (a & kActivityMemset) k.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
  if (a & kActivityRuntime) k.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
  if (a & kActivityDriver) k.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
  if (a & kActivitySync) k.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  if (a & kActivityOverhead) k.push_back(CUPTI_ACTIVITY_KIND_OVERHEAD);
  return k;
}

bool ActivityCollector::start(std::string& error) {
  ActivityCollector* expected = nullptr;
  if (!gCollector.compare_exchange_strong(expected, this)) {
    error = "activity collection is already running in this process";
    return false;
  }
  CUptiResult status = CUPTI_CHECK(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted));
  if (status != CUPTI_SUCCESS) {
    error = std::string("cuptiActivityRegisterCallbacks: ") + resultText(status);
    gCollector = nullptr;
    return false;
  }
  for (auto kind : kinds()) {
    status = CUPTI_CHECK(cuptiActivityEnable(kind));
    if (status == CUPTI_SUCCESS) {
      enabled_.push_back(kind);
      continue;
    }
    if (kind == CUPTI_ACTIVITY_KIND_DEVICE || kind == CUPTI_ACTIVITY_KIND_CONTEXT ||
        kind == CUPTI_ACTIVITY_KIND_MEMCPY2) {
      continue;  // nice to have; tracks get default names
    }
    error = std::string("cuptiActivityEnable(kind ") + std::to_string(kind) + "): " + resultText(status);
    for (auto k : enabled_) cuptiActivityDisable(k);
    enabled_.clear();
    gCollector = nullptr;
    return false;
  }
  started_ = true;
  drainThread_ = std::thread([this] { drainLoop(); });
  return true;
}

void CUPTIAPI ActivityCollector::bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
  *maxNumRecords = 0;
  ActivityCollector* self = gCollector.load(std::memory_order_acquire);
  uint8_t* b = self != nullptr ? self->pool_.acquire() : nullptr;
  *buffer = b;
  // A zero size tells CUPTI we have no buffer; it drops records and counts them.
  *size = b != nullptr ? self->pool_.bufferSize() : 0;
}

void CUPTIAPI ActivityCollector::bufferCompleted(CUcontext context, uint32_t streamId,
                                                 uint8_t* buffer, size_t /*size*/, size_t validSize) {
  ActivityCollector* self = gCollector.load(std::memory_order_acquire);
  if (self != nullptr) self->onCompleted(context, streamId, buffer, validSize);
}

void ActivityCollector::onCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer,
                                    size_t validSize) {
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS && dropped > 0)
    cuptiDropped_.fetch_add(dropped, std::memory_order_relaxed);
  buffersCompleted_.fetch_add(1, std::memory_order_relaxed);
  if (buffer == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    queue_.push_back({buffer, validSize});
  }
  queueCv_.notify_one();
}

void ActivityCollector::drainPending() {
  std::lock_guard<std::mutex> decodeLock(decodeMutex_);
  std::vector<Completed> batch;
  batch.reserve(pool_.maxBuffers() + 1);
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    batch.swap(queue_);
    queue_.reserve(pool_.maxBuffers() + 1);
  }
  for (const auto& c : batch) {
    if (c.validSize > 0) decoder_.decodeBuffer(c.buffer, c.validSize);
    pool_.release(c.buffer);
  }
  if (onDrain_) onDrain_();
}

void ActivityCollector::drainLoop() {
  std::unique_lock<std::mutex> lock(queueMutex_);
  while (!stopping_) {
    // Wake for completed buffers, and now and then for NVTX records.
    queueCv_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) break;
    lock.unlock();
    drainPending();
    lock.lock();
  }
}

void ActivityCollector::flush() {
  if (started_) CUPTI_CHECK(cuptiActivityFlushAll(0));
}

void ActivityCollector::stop() {
  if (!started_) return;
  started_ = false;
  // Never call CUPTI while holding one of our locks: CUPTI may call back into
  // bufferCompleted, which takes queueMutex_.
  CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    stopping_ = true;
  }
  queueCv_.notify_all();
  if (drainThread_.joinable()) drainThread_.join();
  drainPending();
  for (auto kind : enabled_) cuptiActivityDisable(kind);
  // Records that completed while disabling.
  CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  drainPending();
}

void ActivityCollector::publishCounters() {
  decoder_.publishCounters();
  trace_.counters["dropped.cupti"] = cuptiDropped_.load();
  trace_.counters["cupti_buffers_refused"] = pool_.refused();
  trace_.counters["cupti_buffers_completed"] = buffersCompleted_.load();
  trace_.counters["cupti_buffers_allocated"] = pool_.allocated();
}

}  // namespace cuptitrace
