// The .pftrace writer's arrows (launch call -> GPU work): which are drawn,
// and their ids.
//
// The launching call (FlowSources: the runtime call over the driver call it
// made) starts one flow per GPU record it launched and each GPU record
// terminates its own: a graph launch gets one arrow per kernel, the bodies
// of its conditional nodes included (graph_bodies.h). Only pairs with both
// ends drawn, the GPU work not starting before its call, are written: a GPU
// slice that starts before its call (clock skew) gets none, and its call
// starts one flow fewer.
//
// Which pairs those are is decided a window at a time, before its events
// are encoded (decide()): first the window's calls, then its GPU slices,
// each taking the next flow of its call if the call began no later than it,
// so the window's pieces (pftrace_pieces.h) can be encoded in any order, on
// any thread. The writer keeps the calls whose GPU slices are not all
// written (the arrows in flight) and the GPU slices written before their
// call: no index over the records.
//
// Ids. The flow of a call with correlation id c to its k-th GPU slice (k
// from 0, in the order they are written) has id base + k * span + (c - lo)
// + 1, where [lo, hi] holds every launching call's correlation id and span
// is hi - lo + 1; the arrows of OpenACC events come after, one id per
// correlation id. Each trace of a file has ids of its own (place()). They go
// in the varint fields flow_ids_old (36) and terminating_flow_ids_old (42),
// which trace processor reads like the fixed64 fields 47 and 48 that would
// take 8 bytes each: a launch-bound trace's ids take 3 or 4 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/trace.h"
#include "timeline/flow_sources.h"
#include "timeline/graph_bodies.h"
#include "timeline/openacc_flows.h"
#include "exporters/pftrace/pftrace_events.h"
#include "timeline/timeline_slices.h"
#include "timeline/window_layout.h"

namespace cuptitrace::pftrace {

// The launching calls of one window, by correlation id: a table over the
// ids' range when they are dense enough (the usual case: a window's calls
// took most ids of its range), else a hash map.
class WindowCalls {
 public:
  // Calls `k` = 0, 1, ... with the ids in `ids`.
  void index(const std::vector<uint32_t>& ids);
  // The call with id `correlation`, or -1.
  int64_t find(uint32_t correlation) const {
    if (!dense_) {
      const auto it = sparse_.find(correlation);
      return it == sparse_.end() ? -1 : int64_t{it->second};
    }
    if (correlation < lo_ || correlation - lo_ >= byId_.size()) return -1;
    return int64_t{byId_[correlation - lo_]} - 1;
  }

 private:
  bool dense_ = true;
  uint32_t lo_ = 0;
  std::vector<uint32_t> byId_;  // 1 + the call, 0 for none
  std::unordered_map<uint32_t, uint32_t> sparse_;
};

// The arrows of one trace: planned over the records, decided a window at a
// time, and written into the events by any number of threads at once.
class FlowWriter {
 public:
  FlowWriter(const Trace& trace, const TimelineRecords& rec);

  // ---- Planning ------------------------------------------------------------------
  // Reads the calls and the GPU work: which calls start arrows, the OpenACC
  // events' arrows, the conditional nodes' launches, and how many GPU slices
  // each correlation id with a launch call has (a bit for one, IdSet; a count
  // of the others for more: graph launches). Nothing else reads or changes
  // what it makes until it returns: it may run beside the rest of planning.
  void plan();
  // How many ids its arrows take (from plan() on); place() gives the first.
  uint64_t idCount() const;
  void place(uint64_t firstId) { base_ = firstId; }
  uint64_t written() const { return written_; }  // arrows written, both ends
  // The correlation id of the arrow GPU work (`r`, at `index` of its kind)
  // ends: its own, or for a conditional node's body its launch's.
  template <typename R>
  uint32_t correlation(const R& r, size_t index) const {
    return parts_->bodies.correlation(r, index);
  }

  // ---- A window ------------------------------------------------------------------
  // Decides the arrows of the window `layout` has laid out, after those of
  // the windows before it; its records are read by `threads` threads.
  void decide(const WindowLayout& layout, unsigned threads);

  // ---- Writing (const: the window's pieces at once) ------------------------------
  // The flows the launch call at `slot` of the window starts.
  void startFlows(EventEncoder& ev, size_t slot, const ApiRecord& r) const {
    const uint32_t n = info_[slot];
    for (uint32_t k = 0; k < n; ++k) ev.flowId(kTagFlowId, launchId(r.correlationId, k));
  }
  // The flows an OpenACC event starts: one to each GPU slice its CUDA calls
  // launched (openacc_flows.h), which those end.
  void startOpenAccFlows(EventEncoder& ev, uint32_t externalId) const {
    const std::vector<uint32_t>* calls = parts_->accFlows.callsOf(externalId);
    if (calls == nullptr) return;
    for (const uint32_t correlation : *calls)
      if (gpuDrawn_.contains(correlation)) ev.flowId(kTagFlowId, accId(correlation));
  }
  // The flows the GPU slice at `slot` of the window ends.
  void endFlows(EventEncoder& ev, size_t slot, uint32_t correlation) const {
    const uint32_t info = info_[slot];
    if (info & kAccEnd) ev.flowId(kTagTerminatingFlowId, accId(correlation));
    if (const uint32_t k = info & ~kAccEnd) ev.flowId(kTagTerminatingFlowId, launchId(correlation, k - 1));
  }

 private:
  // By slot of the window: for a launch call the flows it starts; for GPU
  // work 1 + the ordinal of the flow it ends (0: none), and kAccEnd when it
  // ends an OpenACC event's.
  static constexpr uint32_t kAccEnd = 1u << 31;
  uint64_t launchId(uint32_t correlation, uint32_t k) const {
    return base_ + uint64_t{k} * span_ + (correlation - lo_) + 1;
  }
  uint64_t accId(uint32_t correlation) const {
    return base_ + uint64_t{maxFlows_} * span_ + (correlation - lo_) + 1;
  }
  // Each slot's correlation id into info_, read from its record: a
  // launching call's (source of drawn GPU work) or GPU work's, else 0.
  void readIds(const Slice* slices, size_t n, unsigned threads);
  void decideGpu(uint32_t c, size_t slot, uint64_t start, const Slice* slices);

  // What plan() reads from the records.
  struct Parts {
    Parts(const Trace& trace, const TimelineRecords& rec) : sources(rec.api), accFlows(trace), bodies(rec) {}
    const FlowSources sources;
    const OpenAccFlows accFlows;  // OpenACC event -> the GPU work its CUDA calls launched
    const GraphBodies bodies;     // the launch of each conditional node's body
  };

  const Trace& trace_;
  const TimelineRecords rec_;
  std::unique_ptr<const Parts> parts_;  // from plan() on
  // Which ids have GPU slices (gpuDrawn_, and how many more than one in
  // moreGpu_), the most flows of one call, the id range.
  IdSet gpuDrawn_;
  std::unordered_map<uint32_t, uint32_t> moreGpu_;
  uint32_t maxFlows_ = 1;
  uint32_t lo_ = 1;
  uint64_t span_ = 1;
  uint64_t base_ = 0;
  // Deciding: the window's answers by slot; its launching calls (their
  // ids, slots and flows taken); the calls of earlier windows with flows to
  // give; the GPU slices written before their call (by id); the OpenACC
  // events' flows not yet ended (by id: their start, how many).
  std::vector<uint32_t> info_;
  std::vector<uint32_t> callIds_, callSlots_, callTaken_;
  WindowCalls windowCalls_;
  struct Pending {
    uint32_t next = 0;       // the ordinal of its next flow
    uint32_t remaining = 0;  // its flows not yet taken
  };
  std::unordered_map<uint32_t, Pending> pending_;  // calls of earlier windows, by id: few
  std::unordered_map<uint32_t, uint32_t> early_;
  std::unordered_map<uint32_t, std::pair<uint64_t, uint32_t>> accPending_;  // (start, count)
  uint64_t written_ = 0;
};

}  // namespace cuptitrace::pftrace
