#include "collectors/activity_collector.h"

#include "collectors/api_selection.h"
#include "collectors/cupti_check.h"
#include "collectors/cupti_detach.h"
#include "collectors/osrt_state.h"
#include "core/api_set.h"
#include "core/log.h"
#include "core/own_threads.h"

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

// Kinds whose refusal leaves the rest of the trace useful; nullptr for the others.
const char* optionalKindName(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_MEMORY2: return "memory";
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL: return "memory_pool";
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER: return "uvm";
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: return "graph";
    default: return nullptr;
  }
}

}  // namespace

bool ActivityCollector::configureUvmCounters() {
  // CUPTI wants the counters chosen before the kind is enabled, and refuses
  // the whole set when one is not supported on some device: from the widest
  // set to the transfers alone.
  static constexpr CUpti_ActivityUnifiedMemoryCounterKind kSets[][8] = {
      {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP},
      {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT},
      {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
       CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH},
  };
  CUptiResult status = CUPTI_SUCCESS;
  for (const auto& set : kSets) {
    CUpti_ActivityUnifiedMemoryCounterConfig config[8] = {};
    uint32_t n = 0;
    for (const auto kind : set) {
      if (kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_UNKNOWN) break;
      config[n].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
      config[n].kind = kind;
      config[n].deviceId = 0;
      config[n].enable = 1;
      ++n;
    }
    status = cuptiActivityConfigureUnifiedMemoryCounter(config, n);
    if (status == CUPTI_SUCCESS) {
      uvmCounters_ = n;
      return true;
    }
  }
  logger().warn("CUPTI cannot record unified memory counters here ({}); tracing goes on without them",
                resultText(status));
  return false;
}

ActivityCollector::ActivityCollector(Trace& trace, const Config& config, std::function<void()> onDrain)
    : trace_(trace),
      config_(config),
      onDrain_(std::move(onDrain)),
      pool_(config.bufferSize, config.bufferPool, config.bufferMemory),
      decoder_(trace) {
  queue_.reserve(pool_.maxBuffers() + 1);
  KernelFilter filter;
  std::string why;
  if (filter.set(config.kernelInclude, config.kernelExclude, &why)) decoder_.setKernelFilter(std::move(filter));
  else logger().warn("kernels are not filtered: {}", why);
}

ActivityCollector::~ActivityCollector() { stop(); }

std::vector<CUpti_ActivityKind> ActivityCollector::kinds() const {
  std::vector<CUpti_ActivityKind> k;
  const uint32_t a = config_.activities;
  // Device and context records are few and name the GPU tracks: always on.
  k.push_back(CUPTI_ACTIVITY_KIND_DEVICE);
  k.push_back(CUPTI_ACTIVITY_KIND_CONTEXT);
  // Graph-level records before the node-level kinds they stand in for.
  if (config_.graphs == GraphMode::Graph && (a & kActivityKernel)) k.push_back(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
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
  if (a & kActivityMemory) {
    k.push_back(CUPTI_ACTIVITY_KIND_MEMORY2);
    k.push_back(CUPTI_ACTIVITY_KIND_MEMORY_POOL);
  }
  if (a & kActivityUvm) k.push_back(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
  return k;
}

// A whole kind overrides the per-call selection, so the lean set is asked
// for only where its kind is not.
bool ActivityCollector::leanRuntime() const {
  return (config_.activities & kActivityApi) && !(config_.activities & kActivityRuntime);
}
bool ActivityCollector::leanDriver() const {
  return (config_.activities & kActivityApi) && !(config_.activities & kActivityDriver);
}

void ActivityCollector::setLeanApi(bool on) {
  const uint8_t enable = on ? 1 : 0;
  uint32_t runtime = 0, driver = 0, refused = 0;
  // Not CUPTI_CHECK: a CUPTI that lacks a newer call's id refuses just that
  // id, which costs that call only; the refusals are counted.
  if (leanRuntime()) {
    for (const CUpti_CallbackId cbid : leanRuntimeCallbacks()) {
      if (cuptiActivityEnableRuntimeApi(cbid, enable) == CUPTI_SUCCESS) ++runtime;
      else ++refused;
    }
  }
  if (leanDriver()) {
    for (const CUpti_CallbackId cbid : leanDriverCallbacks()) {
      if (cuptiActivityEnableDriverApi(cbid, enable) == CUPTI_SUCCESS) ++driver;
      else ++refused;
    }
  }
  if (!on) return;
  leanRuntimeIds_ = runtime;
  leanDriverIds_ = driver;
  leanRefused_ = refused;
  if (refused != 0) logger().info("CUPTI refused {} callback ids of the lean API set", refused);
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
    if (kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER && !configureUvmCounters()) {
      refused_.push_back("uvm");
      continue;
    }
    status = CUPTI_CHECK(cuptiActivityEnable(kind));
    if (status == CUPTI_SUCCESS) {
      enabled_.push_back(kind);
      continue;
    }
    if (kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER && status == CUPTI_ERROR_NOT_READY) {
      // While the driver is still initialising (the library is loaded from
      // cuInit), CUPTI cannot enable these yet: the first context does it.
      uvmDeferred_ = true;
      continue;
    }
    if (kind == CUPTI_ACTIVITY_KIND_DEVICE || kind == CUPTI_ACTIVITY_KIND_CONTEXT ||
        kind == CUPTI_ACTIVITY_KIND_MEMCPY2) {
      continue;  // nice to have; tracks get default names
    }
    if (const char* optional = optionalKindName(kind)) {
      // Not every GPU, driver or CUPTI has these: trace the rest, and say so.
      logger().warn("CUPTI cannot record {} here ({}); tracing goes on without it", optional,
                    resultText(status));
      refused_.push_back(optional);
      continue;
    }
    error = std::string("cuptiActivityEnable(kind ") + std::to_string(kind) + "): " + resultText(status);
    for (auto k : enabled_) cuptiActivityDisable(k);
    enabled_.clear();
    gCollector = nullptr;
    return false;
  }
  setLeanApi(true);
  if ((leanRuntime() || leanDriver()) && leanRuntimeIds_ + leanDriverIds_ == 0)
    logger().warn("CUPTI recorded no call of the lean API set here; GPU work has no launching call");
  started_ = true;
  recording_ = true;
  drainThread_ = std::thread([this] { drainLoop(); });
  return true;
}

void CUPTIAPI ActivityCollector::bufferRequested(uint8_t** buffer, size_t* size,
                                                 size_t* maxNumRecords) noexcept {
  const osrt::TracerScope ours;  // often on a program thread: the pool's lock is not the program's
  *maxNumRecords = 0;
  *buffer = nullptr;
  // A zero size tells CUPTI we have no buffer; it drops records and counts them.
  *size = 0;
  ActivityCollector* self = gCollector.load(std::memory_order_acquire);
  if (self == nullptr) return;
  self->requestBoundary_.run([&] {
    const auto [b, bytes] = self->pool_.acquire();
    *buffer = b;
    *size = b != nullptr ? bytes : 0;
  });
}

void CUPTIAPI ActivityCollector::bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer,
                                                 size_t /*size*/, size_t validSize) noexcept {
  osrt::cuptiCallbackThread();  // CUPTI's own thread: its waits are not the program's
  const osrt::TracerScope ours;
  ActivityCollector* self = gCollector.load(std::memory_order_acquire);
  if (self == nullptr) return;
  if (self->completeBoundary_.run([&] { self->onCompleted(context, streamId, buffer, validSize); })) return;
  // Not queued (failed now, or earlier): its records are lost, and counted;
  // the buffer goes back to the pool.
  try {
    self->pool_.release(buffer);
  } catch (...) {
    // The pool could not take it back: CUPTI gets fewer buffers, and drops (counted).
  }
}

void ActivityCollector::onCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer,
                                    size_t validSize) {
  size_t dropped = 0;
  // Barred: CUPTI hands back what it still held while it is finalized
  // (nothing recorded since the flush before); a call would reenter it.
  if (!cuptiBarred() && cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS &&
      dropped > 0)
    cuptiDropped_.fetch_add(dropped, std::memory_order_relaxed);
  buffersCompleted_.fetch_add(1, std::memory_order_relaxed);
  if (buffer == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    queue_.push_back({buffer, validSize});
  }
  queueCv_.notify_one();
}

void ActivityCollector::drainPending() noexcept {
  std::lock_guard<std::mutex> decodeLock(decodeMutex_);
  if (drainBoundary_.stopped()) {
    // Decoding has stopped: the buffers go back to the pool undecoded, so
    // that CUPTI is not left without any, and each is counted.
    std::lock_guard<std::mutex> lock(queueMutex_);
    try {
      for (const auto& c : queue_) {
        drainBoundary_.skip();
        pool_.release(c.buffer);
      }
    } catch (...) {
      // The pool could not take one back: CUPTI gets fewer buffers, and drops (counted).
    }
    queue_.clear();
    return;
  }
  drainBoundary_.run([&] { drainBatch(); });
}

void ActivityCollector::drainBatch() {
  std::vector<Completed> batch;
  batch.reserve(pool_.maxBuffers() + 1);
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    batch.swap(queue_);
  }
  size_t i = 0;
  try {
    {
      std::lock_guard<std::mutex> lock(queueMutex_);
      queue_.reserve(pool_.maxBuffers() + 1);
    }
    for (; i < batch.size(); ++i) {
      if (batch[i].validSize > 0) decoder_.decodeBuffer(batch[i].buffer, batch[i].validSize);
      pool_.release(batch[i].buffer);
    }
  } catch (...) {
    // The buffer being decoded and those after it go back unread.
    for (; i < batch.size(); ++i) pool_.release(batch[i].buffer);
    throw;
  }
  if (onDrain_) onDrain_();
  // Strings grow on the program's threads, between the store's own checks:
  // back under the memory cap now, on the store's writer thread.
  trace_.store.releaseMemory(0);
}

void ActivityCollector::drainLoop() noexcept {
  osrt::markTracerThread();
  registerOwnThread("drain");
  // With the journal written as records come (spill always), the chunks
  // still filling go there too now and then (CUPTITRACE_JOURNAL_PERIOD).
  const bool tails = config_.spill == SpillMode::Always && config_.journalPeriodNs > 0;
  DrainSchedule schedule(kPeriodicFlush, std::chrono::nanoseconds(tails ? config_.journalPeriodNs : 0),
                         std::chrono::steady_clock::now());
  std::unique_lock<std::mutex> lock(queueMutex_);
  while (!stopping_) {
    // Wake for completed buffers, and now and then for NVTX records.
    queueCv_.wait_for(lock, schedule.wait(std::chrono::steady_clock::now(), std::chrono::milliseconds(500)),
                      [this] { return stopping_ || wakeRequested_ || !queue_.empty(); });
    if (stopping_) break;
    wakeRequested_ = false;
    lock.unlock();
    drainPending();
    // Every thread holds a buffer of its own: a thread that went quiet (or
    // ended) keeps its records, and its buffer, until a flush. A periodic
    // default flush hands back every buffer whose records are complete.
    // Outside our locks: CUPTI calls bufferCompleted from inside it.
    const DrainSchedule::Due due = schedule.due(std::chrono::steady_clock::now());
    if (due.flush) {
      // flushMutex_ only keeps stop() and a detach from starting while this
      // flush runs; no one holding a CUPTI lock ever takes it.
      std::lock_guard<std::mutex> flushLock(flushMutex_);
      if (!cuptiBarred() && recording_.load(std::memory_order_acquire)) {
        const osrt::FlushScope flushing;
        cuptiActivityFlushAll(0);
      }
    }
    if (due.tails) {
      // What the flush handed over, and NVTX's records, go with them.
      drainPending();
      journalTails();
    }
    lock.lock();
  }
}

void ActivityCollector::journalTails() noexcept {
  std::lock_guard<std::mutex> decodeLock(decodeMutex_);
  if (drainBoundary_.stopped()) return;
  // A failed write stops the journal, and its file says why; the records
  // stay in memory either way.
  try {
    trace_.store.journalTails();
  } catch (...) {
  }
}

void ActivityCollector::onContextCreated() {
  if (!uvmDeferred_.load(std::memory_order_acquire) || !started_ || cuptiBarred()) return;
  std::lock_guard<std::mutex> lock(uvmMutex_);
  if (!uvmDeferred_) return;
  // The counters are chosen again now that the device is known, then enabled.
  configureUvmCounters();
  const CUptiResult status = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
  logger().debug("unified memory counters at context creation: {}", resultText(status));
  if (status == CUPTI_ERROR_NOT_READY) return;  // the next context tries again
  uvmDeferred_ = false;
  if (status == CUPTI_SUCCESS) {
    uvmEnabled_ = true;
  } else {
    uvmRefused_ = true;
    logger().warn("CUPTI cannot record uvm here ({}); tracing goes on without it", resultText(status));
  }
}

void ActivityCollector::setUvm(bool on) {
  std::lock_guard<std::mutex> lock(uvmMutex_);
  if (!uvmEnabled_) return;
  CUPTI_CHECK(on ? cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)
                 : cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
}

void ActivityCollector::wake() {
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    wakeRequested_ = true;
  }
  queueCv_.notify_one();
}

void ActivityCollector::flush() {
  const osrt::FlushScope flushing;
  if (started_ && !cuptiBarred()) CUPTI_CHECK(cuptiActivityFlushAll(0));
}

bool ActivityCollector::setRecording(bool on) {
  if (!started_ || cuptiBarred()) return false;
  bool ok = true;
  for (auto kind : enabled_) {
    if (kind == CUPTI_ACTIVITY_KIND_DEVICE || kind == CUPTI_ACTIVITY_KIND_CONTEXT) continue;
    // Graph-level records stay on: switched off and on while graphs replay, CUPTI 13.0
    // crashed in cuGraphLaunch. The tracer keeps the launches inside a window only.
    if (kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE) continue;
    ok = CUPTI_CHECK(on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind)) == CUPTI_SUCCESS && ok;
  }
  windowOpen_.store(on, std::memory_order_release);
  if (openAccOn_.load(std::memory_order_acquire)) {
    for (auto kind : openAccKinds())
      ok = CUPTI_CHECK(on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind)) == CUPTI_SUCCESS && ok;
  }
  // The lean API set is not switched with the windows: CUPTI records nothing
  // of it once it has been switched off and on again (seen on CUDA 13.0). It
  // stays on until the detach, and the tracer keeps the calls made inside a
  // window only (keepApiCallsInWindows).
  setUvm(on);
  return ok;
}

void ActivityCollector::prepareDetach() {
  if (!started_ || cuptiBarred()) return;
  stopPeriodicFlush();
  const osrt::FlushScope flushing;
  for (auto kind : enabled_) cuptiActivityDisable(kind);
  if (openAccOn_.load(std::memory_order_acquire))
    for (auto kind : openAccKinds()) cuptiActivityDisable(kind);
  if (leanRuntime() || leanDriver()) setLeanApi(false);
  setUvm(false);
  CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  drainPending();
}

void ActivityCollector::stopPeriodicFlush() {
  std::lock_guard<std::mutex> flushLock(flushMutex_);
  recording_ = false;
}

void ActivityCollector::stop() {
  if (!started_) return;
  started_ = false;
  stopPeriodicFlush();
  // Once detached, CUPTI has handed every record over already, and a CUPTI
  // call now would attach it again.
  const bool attached = !cuptiBarred();
  const osrt::FlushScope flushing;
  // Never call CUPTI while holding one of our locks: CUPTI may call back into
  // bufferCompleted, which takes queueMutex_.
  if (attached) CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    stopping_ = true;
  }
  queueCv_.notify_all();
  if (drainThread_.joinable()) drainThread_.join();
  drainPending();
  if (attached) {
    for (auto kind : enabled_) cuptiActivityDisable(kind);
    if (leanRuntime() || leanDriver()) setLeanApi(false);
    setUvm(false);
    // Records that completed while disabling.
    CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    drainPending();
  }
  decoder_.removeFilteredLaunches();
  // The last records too: a process killed while writing the outputs leaves the journal whole.
  if (config_.spill == SpillMode::Always && config_.journalPeriodNs > 0) journalTails();
}

void ActivityCollector::publishCounters() {
  decoder_.publishCounters();
  for (const FaultBoundary* b : {&requestBoundary_, &completeBoundary_, &drainBoundary_}) b->publish(trace_.counters);
  // A kind asked for that CUPTI refused: its records are missing for that reason.
  for (const char* kind : refused_) trace_.counters[std::string("refused_kind.") + kind] = 1;
  if (uvmRefused_ || uvmDeferred_) trace_.counters["refused_kind.uvm"] = 1;
  if (uvmDeferred_) logger().warn("unified memory counters were never enabled: no CUDA context became ready for them");
  if (uvmCounters_ != 0) trace_.counters["uvm_counters_configured"] = uvmCounters_;
  // Which calls the API tables hold (core/api_set.h reads these back).
  if (leanRuntime()) trace_.counters[kLeanRuntimeCounter] = leanRuntimeIds_;
  if (leanDriver()) trace_.counters[kLeanDriverCounter] = leanDriverIds_;
  if (leanRefused_ != 0) trace_.counters["refused_callbacks.api"] = leanRefused_;
  trace_.counters["dropped.cupti"] = cuptiDropped_.load();
  trace_.counters["cupti_buffers_refused"] = pool_.refused();
  if (const uint64_t bad = pool_.badReleases(); bad != 0) {
    trace_.counters["cupti_buffers_released_twice"] = bad;
    logger().warn("{} CUPTI activity buffer(s) came back twice (or from elsewhere) and were not reused", bad);
  }
  trace_.counters["cupti_buffers_completed"] = buffersCompleted_.load();
  trace_.counters["cupti_buffers_allocated"] = pool_.allocated();
  trace_.counters["cupti_buffer_bytes_allocated"] = pool_.allocatedBytes();
  // After the forced flush CUPTI owes us no buffer. One still out went to
  // someone else: another tool in the process registered its own buffer
  // callbacks (cuptiActivityRegisterCallbacks), and records after that
  // reached it, not us. CUPTI has no way to ask who, nor since when exactly.
  if (const uint32_t missing = pool_.inUse(); missing != 0 && !cuptiBarred()) {
    trace_.counters["cupti_buffers_not_returned"] = missing;
    logger().warn(
        "{} CUPTI activity buffer(s) never came back: another tool in this process took CUPTI's activity "
        "records (cuptiActivityRegisterCallbacks); the trace misses what they held",
        missing);
  }
}

}  // namespace cuptitrace
