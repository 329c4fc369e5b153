// C library calls that blocked a program thread (the osrt activity): what the
// wrappers in preload/osrt_interpose.cpp measured, kept as ApiRecords of
// domain Osrt. Each thread appends to a queue of its own (one writer, the
// thread; one reader, the drain thread), so recording takes no lock; the
// drain thread moves the records into the store. No CUPTI here.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/trace.h"
#include "preload/osrt_calls.h"

namespace cuptitrace {

const char* osrtCallName(OsrtCall call);  // "read", "pthread_mutex_lock", ...

struct OsrtThreadQueue;  // one thread's records, defined in the .cpp

class OsrtRecorder {
 public:
  OsrtRecorder();
  ~OsrtRecorder();
  OsrtRecorder(const OsrtRecorder&) = delete;
  OsrtRecorder& operator=(const OsrtRecorder&) = delete;

  // Interns every call's name, once, before recording starts: the hot path
  // only copies ids.
  void internNames(StringTable& strings);
  // Calls that took less than this are not kept.
  void setThreshold(uint64_t ns) { threshold_.store(ns, std::memory_order_relaxed); }
  uint64_t threshold() const { return threshold_.load(std::memory_order_relaxed); }

  // On the thread that made the call: it ran from `start` to `end` (ns) and
  // failed with `error` (0: it did not). Kept when it lasted the threshold.
  void record(OsrtCall call, uint32_t tid, uint64_t start, uint64_t end, uint32_t error);
  // What the calling thread recorded and has not been collected, and all it
  // records from now on, is left out (a thread found to be CUPTI's).
  void dropCallingThread(uint32_t tid);

  // Drain thread: moves the recorded calls into `store`.
  void collect(TraceStore& store);
  // Counters for the trace metadata.
  void publish(Trace& trace) const;

 private:
  OsrtThreadQueue* queue(uint32_t tid);
  OsrtThreadQueue* registerThread(uint32_t tid);

  const uint64_t serial_;
  StringId names_[kOsrtCallCount] = {};
  std::atomic<uint64_t> threshold_{0};
  mutable std::mutex registryMutex_;  // registration (once per thread) and collection
  // Shared with the thread's exit hook: a queue outlives whichever goes first.
  std::vector<std::shared_ptr<OsrtThreadQueue>> queues_;
  std::atomic<uint64_t> chunks_{0};  // chunks allocated and not yet freed, all threads
  // Counted by the drain thread (the per-thread counts are summed as they are collected).
  uint64_t recorded_ = 0;
  uint64_t dropped_ = 0;             // no memory for a chunk, or past the cap
  uint64_t shortCalls_ = 0;          // below the threshold
  uint64_t tracerThreadCalls_ = 0;   // made on a thread found to be CUPTI's
  std::atomic<uint64_t> unknownCalls_{0};  // call numbers past the ones this build knows
};

}  // namespace cuptitrace
