// NVTX ranges and marks as the program makes them: push/pop ranges matched
// per thread, start/end ranges matched by id across threads, marks.
// Called on the program's threads, so each thread writes into its own state
// (a lock per thread that only the drain thread ever contends); start/end
// ranges, which may end on another thread, go to one of several shards by
// id. Completed records are moved into the store by the drain thread.
// No CUPTI here: nvtx_callbacks.cpp turns CUPTI's NVTX callbacks into calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/mapped_allocator.h"

#include "core/trace.h"

namespace cuptitrace {

// Records a thread collected between drains; large buffers are mappings of
// their own (core/mapped_allocator.h).
using NvtxRecords = std::vector<NvtxRecord, MappedAllocator<NvtxRecord>>;

struct NvtxAttributes {
  StringId message = kNoString;
  StringId domain = kNoString;
  uint32_t category = 0;
  uint32_t color = 0;
  bool hasColor = false;
  uint8_t payloadType = 0;  // NvtxPayload
  uint64_t payload = 0;
};

class NvtxRecorder {
 public:
  NvtxRecorder();
  NvtxRecorder(const NvtxRecorder&) = delete;
  NvtxRecorder& operator=(const NvtxRecorder&) = delete;

  void push(uint32_t tid, uint64_t ts, const NvtxAttributes& attributes);
  // Closes the innermost open range of `domain` on thread `tid`.
  void pop(uint32_t tid, uint64_t ts, StringId domain);
  void start(uint32_t tid, uint64_t ts, uint64_t id, const NvtxAttributes& attributes);
  void end(uint32_t tid, uint64_t ts, uint64_t id);
  void mark(uint32_t tid, uint64_t ts, const NvtxAttributes& attributes);

  void nameThread(uint32_t tid, std::string name);
  void nameStream(uint32_t streamId, std::string name);
  void nameDevice(uint32_t deviceId, std::string name);
  void nameContext(uint32_t contextId, std::string name);

  // Called on a program thread, with no lock of ours held, each time one
  // thread's finished ranges waiting for the drain reach another
  // kBacklogRecords: the drain should come now, not at its next tick, so
  // that they never hold much memory outside the store's cap. Set once,
  // before NVTX calls arrive.
  void onBacklog(std::function<void()> hook) { backlogHook_ = std::move(hook); }
  static constexpr size_t kBacklogRecords = 16384;
  // Memory held here: finished records waiting, open ranges. For the store's
  // budget (TraceStore::addMemoryUser); takes every thread's lock briefly.
  uint64_t bytesInMemory() const;

  // Moves completed records into `store`. With `final`, ranges still open are
  // written too, flagged kNvtxOpen and ending at `endTs`.
  void collect(TraceStore& store, bool final, uint64_t endTs);
  // Copies the names given by the program and the counters into `trace`.
  void publish(Trace& trace) const;

 private:
  struct OpenRange {
    uint64_t start;
    NvtxAttributes attributes;
  };
  struct ThreadState {
    std::mutex mutex;
    std::vector<OpenRange> stack;
    NvtxRecords done;
    uint64_t unmatchedPops = 0;
  };
  struct OpenStartEnd {
    uint32_t tid;
    uint64_t start;
    NvtxAttributes attributes;
  };

  ThreadState& state(uint32_t tid);
  // After a record joined `done`, with its lock released.
  void finished(size_t waiting) {
    if (waiting % kBacklogRecords == 0 && backlogHook_) backlogHook_();
  }
  static NvtxRecord makeRecord(NvtxType type, uint32_t tid, uint64_t start, uint64_t end,
                               const NvtxAttributes& a);

  const uint64_t serial_;
  mutable std::mutex registryMutex_;
  std::unordered_map<uint32_t, std::unique_ptr<ThreadState>> threads_;

  // Start/end ranges may cross threads; sharded by id so that threads
  // opening ranges at once seldom meet on one lock.
  struct StartEndShard {
    mutable std::mutex mutex;
    std::unordered_map<uint64_t, OpenStartEnd> open;
    NvtxRecords done;
    uint64_t unmatchedEnds = 0;
  };
  static constexpr size_t kStartEndShards = 16;
  StartEndShard& shard(uint64_t id) { return startEnd_[id % kStartEndShards]; }
  StartEndShard startEnd_[kStartEndShards];

  std::function<void()> backlogHook_;
  // The batch the drain is moving into the store: out of every thread's
  // state, not yet in the store, still memory of ours.
  std::atomic<uint64_t> moving_{0};

  mutable std::mutex namesMutex_;
  std::map<uint32_t, std::string> threadNames_, streamNames_, deviceNames_, contextNames_;
};

}  // namespace cuptitrace
