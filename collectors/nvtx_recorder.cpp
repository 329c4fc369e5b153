#include "collectors/nvtx_recorder.h"

#include <algorithm>
#include <atomic>

namespace cuptitrace {
namespace {

// Most programs touch the recorder from a handful of threads; remembering the
// last thread's state avoids the registry lock on every push and pop.
// Keyed by the recorder's serial number, not its address: a new recorder may
// reuse a destroyed one's address.
std::atomic<uint64_t> gNextSerial{1};

struct ThreadCache {
  uint64_t owner = 0;
  uint32_t tid = 0;
  void* state = nullptr;
};
thread_local ThreadCache tCache;

}  // namespace

NvtxRecorder::NvtxRecorder() : serial_(gNextSerial.fetch_add(1)) {}

NvtxRecorder::ThreadState& NvtxRecorder::state(uint32_t tid) {
  if (tCache.owner == serial_ && tCache.tid == tid) return *static_cast<ThreadState*>(tCache.state);
  std::lock_guard<std::mutex> lock(registryMutex_);
  auto it = threads_.find(tid);
  if (it == threads_.end()) {
    // Made before it is inserted: when memory runs out on the way (an
    // exception the NVTX callback's boundary catches) no empty entry stays.
    auto made = std::make_unique<ThreadState>();
    it = threads_.emplace(tid, std::move(made)).first;
  }
  tCache = {serial_, tid, it->second.get()};
  return *it->second;
}

NvtxRecord NvtxRecorder::makeRecord(NvtxType type, uint32_t tid, uint64_t start, uint64_t end,
                                    const NvtxAttributes& a) {
  NvtxRecord r{};
  r.type = static_cast<uint8_t>(type);
  r.threadId = tid;
  r.endThreadId = tid;
  r.start = start;
  r.end = end;
  r.message = a.message;
  r.domain = a.domain;
  r.category = a.category;
  r.color = a.color;
  r.payloadType = a.payloadType;
  r.payload = a.payload;
  if (a.hasColor) r.flags |= kNvtxHasColor;
  return r;
}

void NvtxRecorder::push(uint32_t tid, uint64_t ts, const NvtxAttributes& attributes) {
  auto& s = state(tid);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.stack.push_back({ts, attributes});
}

void NvtxRecorder::pop(uint32_t tid, uint64_t ts, StringId domain) {
  auto& s = state(tid);
  std::unique_lock<std::mutex> lock(s.mutex);
  // The innermost open range of this domain; ranges of other domains stay open.
  auto it = std::find_if(s.stack.rbegin(), s.stack.rend(),
                         [&](const OpenRange& r) { return r.attributes.domain == domain; });
  if (it == s.stack.rend()) {
    ++s.unmatchedPops;
    return;
  }
  const size_t index = static_cast<size_t>(std::distance(it, s.stack.rend())) - 1;
  NvtxRecord r = makeRecord(NvtxType::PushPop, tid, it->start, ts, it->attributes);
  r.depth = static_cast<uint16_t>(std::min<size_t>(index, UINT16_MAX));
  s.done.push_back(r);
  s.stack.erase(s.stack.begin() + static_cast<std::ptrdiff_t>(index));
  const size_t waiting = s.done.size();
  lock.unlock();
  finished(waiting);
}

void NvtxRecorder::start(uint32_t tid, uint64_t ts, uint64_t id, const NvtxAttributes& attributes) {
  auto& s = shard(id);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.open[id] = {tid, ts, attributes};
}

void NvtxRecorder::end(uint32_t tid, uint64_t ts, uint64_t id) {
  auto& s = shard(id);
  std::unique_lock<std::mutex> lock(s.mutex);
  auto it = s.open.find(id);
  if (it == s.open.end()) {
    ++s.unmatchedEnds;
    return;
  }
  NvtxRecord r = makeRecord(NvtxType::StartEnd, it->second.tid, it->second.start, ts,
                            it->second.attributes);
  r.endThreadId = tid;
  r.id = id;
  s.done.push_back(r);
  s.open.erase(it);
  const size_t waiting = s.done.size();
  lock.unlock();
  finished(waiting);
}

void NvtxRecorder::mark(uint32_t tid, uint64_t ts, const NvtxAttributes& attributes) {
  auto& s = state(tid);
  std::unique_lock<std::mutex> lock(s.mutex);
  s.done.push_back(makeRecord(NvtxType::Mark, tid, ts, ts, attributes));
  const size_t waiting = s.done.size();
  lock.unlock();
  finished(waiting);
}

uint64_t NvtxRecorder::bytesInMemory() const {
  uint64_t bytes = moving_.load(std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(registryMutex_);
    for (const auto& [tid, s] : threads_) {
      std::lock_guard<std::mutex> stateLock(s->mutex);
      bytes += sizeof(ThreadState) + s->done.capacity() * sizeof(NvtxRecord) +
               s->stack.capacity() * sizeof(OpenRange);
    }
  }
  // A hash map node: the entry, its key and the link, and a bucket.
  constexpr uint64_t kOpenEntryBytes = sizeof(OpenStartEnd) + 3 * sizeof(void*);
  for (const auto& s : startEnd_) {
    std::lock_guard<std::mutex> lock(s.mutex);
    bytes += s.done.capacity() * sizeof(NvtxRecord) + s.open.size() * kOpenEntryBytes;
  }
  return bytes;
}

void NvtxRecorder::nameThread(uint32_t tid, std::string name) {
  std::lock_guard<std::mutex> lock(namesMutex_);
  threadNames_[tid] = std::move(name);
}
void NvtxRecorder::nameStream(uint32_t streamId, std::string name) {
  std::lock_guard<std::mutex> lock(namesMutex_);
  streamNames_[streamId] = std::move(name);
}
void NvtxRecorder::nameDevice(uint32_t deviceId, std::string name) {
  std::lock_guard<std::mutex> lock(namesMutex_);
  deviceNames_[deviceId] = std::move(name);
}
void NvtxRecorder::nameContext(uint32_t contextId, std::string name) {
  std::lock_guard<std::mutex> lock(namesMutex_);
  contextNames_[contextId] = std::move(name);
}

void NvtxRecorder::collect(TraceStore& store, bool final, uint64_t endTs) {
  std::vector<std::pair<uint32_t, ThreadState*>> threads;
  {
    std::lock_guard<std::mutex> lock(registryMutex_);
    for (auto& [tid, s] : threads_) threads.emplace_back(tid, s.get());
  }
  NvtxRecords batch;
  for (auto& [tid, s] : threads) {
    {
      std::lock_guard<std::mutex> lock(s->mutex);
      batch.swap(s->done);
      if (final) {
        for (size_t i = 0; i < s->stack.size(); ++i) {
          const auto& open = s->stack[i];
          NvtxRecord r = makeRecord(NvtxType::PushPop, tid, open.start,
                                    std::max(open.start, endTs), open.attributes);
          r.depth = static_cast<uint16_t>(std::min<size_t>(i, UINT16_MAX));
          r.flags |= kNvtxOpen;
          batch.push_back(r);
        }
        s->stack.clear();
      }
    }
    moving_.store(batch.capacity() * sizeof(NvtxRecord), std::memory_order_relaxed);
    for (const auto& r : batch) store.add(r);
    // Freed, not handed to the next thread: a thread's buffer is as large as
    // its own backlog, never another's (bytesInMemory counts capacity).
    batch = NvtxRecords();
    moving_.store(0, std::memory_order_relaxed);
  }
  for (auto& s : startEnd_) {
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      batch.swap(s.done);
      if (final) {
        for (const auto& [id, open] : s.open) {
          NvtxRecord r = makeRecord(NvtxType::StartEnd, open.tid, open.start,
                                    std::max(open.start, endTs), open.attributes);
          r.id = id;
          r.flags |= kNvtxOpen;
          batch.push_back(r);
        }
        s.open.clear();
      }
    }
    moving_.store(batch.capacity() * sizeof(NvtxRecord), std::memory_order_relaxed);
    for (const auto& r : batch) store.add(r);
    // Freed, not handed to the next thread: a thread's buffer is as large as
    // its own backlog, never another's (bytesInMemory counts capacity).
    batch = NvtxRecords();
    moving_.store(0, std::memory_order_relaxed);
  }
}

void NvtxRecorder::publish(Trace& trace) const {
  {
    std::lock_guard<std::mutex> lock(namesMutex_);
    for (const auto& [k, v] : threadNames_) trace.threadNames[k] = v;
    for (const auto& [k, v] : streamNames_) trace.streamNames[k] = v;
    for (const auto& [k, v] : deviceNames_) trace.deviceNames[k] = v;
    for (const auto& [k, v] : contextNames_) trace.contextNames[k] = v;
  }
  uint64_t unmatchedPops = 0;
  {
    std::lock_guard<std::mutex> lock(registryMutex_);
    for (const auto& [tid, s] : threads_) {
      std::lock_guard<std::mutex> stateLock(s->mutex);
      unmatchedPops += s->unmatchedPops;
    }
  }
  trace.counters["nvtx.unmatched_pops"] = unmatchedPops;
  uint64_t unmatchedEnds = 0;
  for (const auto& s : startEnd_) {
    std::lock_guard<std::mutex> lock(s.mutex);
    unmatchedEnds += s.unmatchedEnds;
  }
  trace.counters["nvtx.unmatched_ends"] = unmatchedEnds;
}

}  // namespace cuptitrace
