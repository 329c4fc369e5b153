#include "collectors/osrt_recorder.h"

#include <algorithm>
#include <new>

namespace cuptitrace {
namespace {

// Records per chunk: a thread that records little holds one small chunk.
constexpr uint32_t kChunkRecords = 128;
// Chunks waiting for the drain thread, all threads together (64 MiB): past
// it a call is dropped and counted rather than memory growing without end.
constexpr uint64_t kMaxChunks = (64ull << 20) / (kChunkRecords * sizeof(ApiRecord));

// Keyed by serial number, not address: a new recorder may reuse a destroyed one's.
std::atomic<uint64_t> gNextSerial{1};

constexpr const char* kCallNames[kOsrtCallCount] = {
    "open",   "openat",    "creat",     "read",           "pread",           "readv",
    "write",  "pwrite",    "writev",    "fopen",          "fclose",          "fread",
    "fwrite", "fgets",     "fflush",    "fsync",          "fdatasync",       "nanosleep",
    "clock_nanosleep",     "usleep",    "sleep",          "pthread_mutex_lock",
    "pthread_cond_wait",   "pthread_cond_timedwait",      "pthread_cond_clockwait",
    "ioctl",  "poll",      "ppoll",     "select",         "pselect",         "epoll_wait",
    "epoll_pwait"};

}  // namespace

const char* osrtCallName(OsrtCall call) {
  const auto i = static_cast<size_t>(call);
  return i < kOsrtCallCount ? kCallNames[i] : "unknown";
}

// A singly linked list of chunks: the thread fills the last one and links a
// new one when it is full; the drain thread reads up to each chunk's count
// and frees a chunk once it is full, read and followed by another.
struct OsrtThreadQueue {
  struct Chunk {
    std::atomic<uint32_t> count{0};
    std::atomic<Chunk*> next{nullptr};
    ApiRecord records[kChunkRecords];
  };

  explicit OsrtThreadQueue(uint32_t thread, Chunk* first) : tid(thread), tail(first), head(first) {}
  ~OsrtThreadQueue() {
    for (Chunk* c = head; c != nullptr;) {
      Chunk* next = c->next.load(std::memory_order_relaxed);
      delete c;
      c = next;
    }
  }

  const uint32_t tid;
  Chunk* tail;              // the thread's
  Chunk* head;              // the drain thread's
  uint32_t consumed = 0;    // records of `head` already collected
  std::atomic<bool> exited{false};
  std::atomic<bool> dropping{false};
  // Written by the thread alone (load and store, no read-modify-write), read
  // by the drain thread.
  std::atomic<uint64_t> shortCalls{0};
  std::atomic<uint64_t> lost{0};
};

namespace {

void bump(std::atomic<uint64_t>& counter) {
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

struct QueueCache {
  uint64_t owner = 0;
  OsrtThreadQueue* queue = nullptr;
};
thread_local QueueCache tQueue;
thread_local bool tEnding = false;

// Marks the thread's queues when it ends, so the drain thread can free them
// once read. Made on the thread's first record only. Calls made after it (in
// later thread-exit destructors) are not recorded.
struct ThreadExit {
  std::vector<std::shared_ptr<OsrtThreadQueue>> queues;
  ~ThreadExit() {
    tEnding = true;
    tQueue = {};
    for (auto& q : queues) q->exited.store(true, std::memory_order_release);
  }
};

}  // namespace

OsrtRecorder::OsrtRecorder() : serial_(gNextSerial.fetch_add(1)) {}
OsrtRecorder::~OsrtRecorder() = default;

void OsrtRecorder::internNames(StringTable& strings) {
  for (size_t i = 0; i < kOsrtCallCount; ++i) names_[i] = strings.intern(kCallNames[i]);
}

OsrtThreadQueue* OsrtRecorder::queue(uint32_t tid) {
  if (tQueue.owner == serial_) return tQueue.queue;
  return registerThread(tid);
}

OsrtThreadQueue* OsrtRecorder::registerThread(uint32_t tid) {
  if (tEnding) return nullptr;
  std::shared_ptr<OsrtThreadQueue> q;
  {
    std::lock_guard<std::mutex> lock(registryMutex_);
    for (const auto& existing : queues_) {
      if (existing->tid == tid && !existing->exited.load(std::memory_order_relaxed)) {
        tQueue = {serial_, existing.get()};
        return existing.get();
      }
    }
    auto* first = new (std::nothrow) OsrtThreadQueue::Chunk;
    if (first == nullptr) return nullptr;
    q = std::make_shared<OsrtThreadQueue>(tid, first);
    chunks_.fetch_add(1, std::memory_order_relaxed);
    queues_.push_back(q);
  }
  thread_local ThreadExit exitHook;
  exitHook.queues.push_back(q);
  tQueue = {serial_, q.get()};
  return q.get();
}

void OsrtRecorder::record(OsrtCall call, uint32_t tid, uint64_t start, uint64_t end, uint32_t error) {
  if (static_cast<size_t>(call) >= kOsrtCallCount) {
    // From a preload library of a newer build that wraps more calls: no name for it here.
    unknownCalls_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  OsrtThreadQueue* q = queue(tid);
  if (q == nullptr) return;  // no memory even for the first chunk
  if (end < start || end - start < threshold()) {
    bump(q->shortCalls);
    return;
  }
  using Chunk = OsrtThreadQueue::Chunk;
  Chunk* c = q->tail;
  uint32_t n = c->count.load(std::memory_order_relaxed);
  if (n == kChunkRecords) {
    Chunk* fresh = nullptr;
    if (chunks_.load(std::memory_order_relaxed) < kMaxChunks) fresh = new (std::nothrow) Chunk;
    if (fresh == nullptr) {
      bump(q->lost);
      return;
    }
    chunks_.fetch_add(1, std::memory_order_relaxed);
    c->next.store(fresh, std::memory_order_release);
    q->tail = c = fresh;
    n = 0;
  }
  ApiRecord& r = c->records[n];
  r = ApiRecord{};
  r.start = start;
  r.end = end;
  r.name = names_[static_cast<size_t>(call)];
  r.threadId = tid;
  r.cbid = static_cast<uint32_t>(call);
  r.returnValue = error;
  r.domain = static_cast<uint8_t>(ApiDomain::Osrt);
  c->count.store(n + 1, std::memory_order_release);
}

void OsrtRecorder::dropCallingThread(uint32_t tid) {
  OsrtThreadQueue* q = tQueue.owner == serial_ ? tQueue.queue : nullptr;
  if (q == nullptr) {
    std::lock_guard<std::mutex> lock(registryMutex_);
    for (const auto& existing : queues_)
      if (existing->tid == tid && !existing->exited.load(std::memory_order_relaxed)) q = existing.get();
  }
  if (q != nullptr) q->dropping.store(true, std::memory_order_release);
}

void OsrtRecorder::collect(TraceStore& store) {
  std::lock_guard<std::mutex> lock(registryMutex_);
  using Chunk = OsrtThreadQueue::Chunk;
  auto drain = [&](OsrtThreadQueue& q) {
    const bool dropping = q.dropping.load(std::memory_order_acquire);
    while (true) {
      Chunk* c = q.head;
      const uint32_t n = c->count.load(std::memory_order_acquire);
      for (uint32_t i = q.consumed; i < n; ++i) {
        if (dropping) {
          ++tracerThreadCalls_;
        } else {
          store.add(c->records[i]);  // past the store's budget it counts the drop itself
          ++recorded_;
        }
      }
      q.consumed = n;
      if (n < kChunkRecords) return;
      Chunk* next = c->next.load(std::memory_order_acquire);
      if (next == nullptr) return;  // the thread has not started the next chunk yet
      delete c;
      chunks_.fetch_sub(1, std::memory_order_relaxed);
      q.head = next;
      q.consumed = 0;
    }
  };
  for (auto it = queues_.begin(); it != queues_.end();) {
    OsrtThreadQueue& q = **it;
    // Read before draining: all the thread wrote before it ended is then visible.
    const bool exited = q.exited.load(std::memory_order_acquire);
    drain(q);
    if (!exited) {
      ++it;
      continue;
    }
    shortCalls_ += q.shortCalls.load(std::memory_order_relaxed);
    dropped_ += q.lost.load(std::memory_order_relaxed);
    for (Chunk* c = q.head; c != nullptr; c = c->next.load(std::memory_order_relaxed))
      chunks_.fetch_sub(1, std::memory_order_relaxed);
    it = queues_.erase(it);
  }
}

void OsrtRecorder::publish(Trace& trace) const {
  std::lock_guard<std::mutex> lock(registryMutex_);
  uint64_t shortCalls = shortCalls_, dropped = dropped_;
  for (const auto& q : queues_) {
    shortCalls += q->shortCalls.load(std::memory_order_relaxed);
    dropped += q->lost.load(std::memory_order_relaxed);
  }
  trace.counters["osrt.recorded"] = recorded_;
  trace.counters["osrt.below_threshold"] = shortCalls;
  trace.counters["osrt.tracer_thread_calls"] = tracerThreadCalls_;
  trace.counters["dropped.osrt"] = dropped;
  if (const uint64_t unknown = unknownCalls_.load(std::memory_order_relaxed); unknown != 0)
    trace.counters["dropped.osrt_unknown_call"] = unknown;
}

}  // namespace cuptitrace
