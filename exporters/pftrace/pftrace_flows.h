// The .pftrace writer's arrows (launch call -> GPU work): their ids and the
// flows in flight.
//
// The launching call (FlowSources: the runtime call over the driver call it
// made) starts one flow per GPU record it launched and each GPU record
// terminates its own: a graph launch gets one arrow per kernel, the bodies
// of its conditional nodes included (graph_bodies.h). Flow ids are
// small numbers taken from a pool shared by every trace of the file and given
// back when their flow terminates (terminating flows free their id for reuse,
// as TrackEvent documents), so they stay 1-2 byte varints: they go in the
// varint fields flow_ids_old (36) and terminating_flow_ids_old (42), which
// trace processor reads like the fixed64 fields 47 and 48 that would take 8
// bytes each. An id is reused only for a flow starting strictly after the one
// before ended. Only pairs with both ends drawn, the GPU work not starting
// before its call, are written. Which pairs those are is decided as the events
// are written, in time order: a GPU slice whose call has begun takes one of
// the flows the call started; one written before its call (clock skew) gets
// none, and its call starts one flow fewer. So the writer knows how many GPU
// slices each correlation id has (a bit per id, a count for ids with more
// than one), the flows started and not yet terminated, and the GPU slices
// written before their call: no index over the records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/trace.h"
#include "timeline/flow_sources.h"
#include "timeline/graph_bodies.h"
#include "timeline/openacc_flows.h"
#include "exporters/pftrace/pftrace_events.h"
#include "timeline/timeline_slices.h"

namespace cuptitrace::pftrace {

// Flow ids: a free one when an arrow starts (the last given back, so ids
// stay as small as the most arrows ever open at once), given back when it
// ends, free again for an arrow starting strictly later. Events are written
// in time order, so the ids given back wait in that order.
class FlowIds {
 public:
  uint32_t start(uint64_t wall) {
    while (head_ < ended_.size() && ended_[head_].first < wall)
      free_.push_back(ended_[head_++].second);
    if (head_ > 4096 && head_ * 2 > ended_.size()) {  // drop what was taken, now and then
      ended_.erase(ended_.begin(), ended_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    if (free_.empty()) return ++used_;
    const uint32_t id = free_.back();
    free_.pop_back();
    return id;
  }
  void end(uint32_t id, uint64_t wall) { ended_.emplace_back(wall, id); }

 private:
  std::vector<std::pair<uint64_t, uint32_t>> ended_;  // (when, id), from head_ on: not free yet
  size_t head_ = 0;
  std::vector<uint32_t> free_;
  uint32_t used_ = 0;
};

// The flows of one trace started by their call and not yet terminated by
// their GPU slice, by correlation id: an open-addressing table (linear
// probing) with an entry per flow, so a graph launch's flows are several
// entries of one id. Id 0 never has a call to start from: it marks a free
// entry. It holds the arrows in flight, however long the trace.
class PendingFlows {
 public:
  void add(uint32_t correlation, uint32_t flow) {
    if (2 * (used_ + 1) > table_.size()) grow();
    size_t i = home(correlation);
    while (table_[i].correlation != 0) i = (i + 1) & mask_;
    table_[i] = {correlation, flow};
    ++used_;
  }
  // A flow of `correlation`, taken out; 0 when it has none.
  uint32_t take(uint32_t correlation) {
    if (used_ == 0) return 0;
    size_t i = home(correlation);
    for (; table_[i].correlation != correlation; i = (i + 1) & mask_)
      if (table_[i].correlation == 0) return 0;
    const uint32_t flow = table_[i].flow;
    // Closes the hole: each later entry of the run moves into it when the
    // hole lies between the entry's home and where it is.
    size_t hole = i;
    for (size_t j = (i + 1) & mask_; table_[j].correlation != 0; j = (j + 1) & mask_) {
      if (((j - home(table_[j].correlation)) & mask_) >= ((j - hole) & mask_)) {
        table_[hole] = table_[j];
        hole = j;
      }
    }
    table_[hole] = {0, 0};
    --used_;
    return flow;
  }

 private:
  struct Entry {
    uint32_t correlation;
    uint32_t flow;
  };
  size_t home(uint32_t correlation) const {
    return static_cast<size_t>((correlation * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow();

  std::vector<Entry> table_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t used_ = 0;
};

// The arrows of one trace: which correlation ids have GPU slices, the flows
// started and not yet terminated, and the ids of the flows an event starts
// or terminates, written into it.
class FlowWriter {
 public:
  FlowWriter(const Trace& trace, const TimelineRecords& rec, FlowIds& ids, uint64_t offset);

  // ---- Planning ------------------------------------------------------------------
  // Reads the calls and the GPU work: which calls start arrows, the OpenACC
  // events' arrows, the conditional nodes' launches, and how many GPU slices
  // each correlation id with a launch call has (a bit for one, IdSet; a count
  // of the others for more: graph launches). Nothing else reads or changes
  // what it makes until it returns: it may run beside the rest of planning.
  void plan();
  uint64_t written() const { return written_; }  // arrows written, both ends
  // The correlation id of the arrow GPU work (`r`, at `index` of its kind)
  // ends: its own, or for a conditional node's body its launch's.
  template <typename R>
  uint32_t correlation(const R& r, size_t index) const {
    return parts_->bodies.correlation(r, index);
  }

  // ---- Writing -------------------------------------------------------------------
  // The flows a launch call starts: one per GPU slice it launched that is
  // not written yet (those written before it have no arrow).
  void startFlows(EventEncoder& ev, size_t index, const ApiRecord& r, uint64_t ts) {
    const uint32_t correlation = r.correlationId;
    if (!parts_->sources.isSource(index, r) || !gpuDrawn_.contains(correlation)) return;
    uint32_t n = 1;
    if (!moreGpu_.empty()) {
      const auto it = moreGpu_.find(correlation);
      if (it != moreGpu_.end()) n += it->second;
    }
    if (!early_.empty()) {
      const auto it = early_.find(correlation);
      if (it != early_.end()) {
        n -= it->second;
        early_.erase(it);
      }
    }
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t id = ids_.start(ts + offset_);
      ev.flowId(kTagFlowId, id);
      pending_.add(correlation, id);
    }
  }
  // The flows an OpenACC event starts: one to each GPU slice its CUDA calls
  // launched (openacc_flows.h), which those end.
  void startOpenAccFlows(EventEncoder& ev, uint32_t externalId, uint64_t ts) {
    const std::vector<uint32_t>* calls = parts_->accFlows.callsOf(externalId);
    if (calls == nullptr) return;
    for (const uint32_t correlation : *calls) {
      if (!gpuDrawn_.contains(correlation)) continue;
      const uint32_t id = ids_.start(ts + offset_);
      ev.flowId(kTagFlowId, id);
      accPending_.add(correlation, id);
    }
  }
  // The flow a GPU slice ends: one its call started, if the call was written before it.
  void endFlow(EventEncoder& ev, uint32_t correlation, uint64_t ts) {
    // The arrow from the OpenACC event that made the call, if it was written before.
    if (!parts_->accFlows.empty()) {
      if (const uint32_t id = accPending_.take(correlation)) {
        ev.flowId(kTagTerminatingFlowId, id);
        ids_.end(id, ts + offset_);
        ++accWritten_;
      }
    }
    if (!parts_->sources.hasSource(correlation)) return;
    const uint32_t id = pending_.take(correlation);
    if (id == 0) {
      ++early_[correlation];
      return;
    }
    ev.flowId(kTagTerminatingFlowId, id);
    ids_.end(id, ts + offset_);
    ++written_;
  }

 private:
  // What plan() reads from the records.
  struct Parts {
    Parts(const Trace& trace, const TimelineRecords& rec) : sources(rec.api), accFlows(trace), bodies(rec) {}
    const FlowSources sources;
    const OpenAccFlows accFlows;  // OpenACC event -> the GPU work its CUDA calls launched
    const GraphBodies bodies;     // the launch of each conditional node's body
  };

  const Trace& trace_;
  const TimelineRecords rec_;
  FlowIds& ids_;
  const uint64_t offset_;  // wall clock minus trace clock, modulo 2^64
  std::unique_ptr<const Parts> parts_;  // from plan() on
  // Which ids have GPU slices (gpuDrawn_, and how many more than one in
  // moreGpu_), the GPU slices written before their call (by id), the flows
  // started and not terminated: from calls, from OpenACC events.
  IdSet gpuDrawn_;
  std::unordered_map<uint32_t, uint32_t> moreGpu_;
  std::unordered_map<uint32_t, uint32_t> early_;
  PendingFlows pending_;
  PendingFlows accPending_;
  uint64_t written_ = 0;
  uint64_t accWritten_ = 0;
};

}  // namespace cuptitrace::pftrace
