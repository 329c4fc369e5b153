// The arrows of a Chrome JSON timeline. From each launching call to the GPU
// work it launched (for the body of a graph's conditional node, the graph
// launch that ran it: graph_bodies.h), in the "v2" encoding: "bind_id" with
// "flow_out" on the call's X event and "flow_in" on the GPU slice's
// (chrome_json.cpp says why not v1). From each OpenACC event to the GPU slices its CUDA calls launched
// (openacc_flows.h): v1 "s"/"f" events (cat "openacc"), bound to the slice
// they are written right after: same track, same time.
//
// Ids. Perfetto's JSON importer (src/trace_processor/importers/json/
// json_trace_parser_impl.cc, importers/common/flow_tracker.cc) takes a v2
// bind_id as the flow's id as it is, but gives each distinct v1 (id, cat,
// name) a new id from a counter that starts at 0, in the same id space; an
// id that starts a second arrow is an error (flow_duplicate_id) and that
// arrow is lost. So bind_ids are placed above the v1 arrows: the v1 ids are
// the correlation ids (plus the trace's flow base), the bind_ids the same
// plus the number of CUDA calls tied to OpenACC events in the whole file,
// which no count of v1 arrows can pass (JsonPlacement::v1Flows).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/trace.h"
#include "exporters/json/json_events.h"
#include "exporters/json/json_tracks.h"
#include "timeline/flow_sources.h"
#include "timeline/graph_bodies.h"
#include "timeline/openacc_flows.h"
#include "timeline/timeline_slices.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

// Written into every GPU slice and call: inlined there.
#define JSON_FLOW_FN inline __attribute__((always_inline)) void

class JsonFlows {
 public:
  JsonFlows(const Trace& trace, const TimelineRecords& rec, JsonEvents& events)
      : e_(events), b_(events.b), trace_(&trace), rec_(rec) {}

  // A copy of a planned and placed `flows` writing into `events` instead:
  // one per thread encoding pieces of a window (chrome_json.cpp), its
  // count of arrows its own; what planning found is shared, not copied.
  JsonFlows(const JsonFlows& flows, JsonEvents& events)
      : e_(events),
        b_(events.b),
        trace_(flows.trace_),
        rec_(flows.rec_),
        planned_(flows.planned_),
        flowBase_(flows.flowBase_),
        bindBase_(flows.bindBase_),
        base_(flows.base_) {}
  // Adds the arrows such a copy wrote.
  void addWritten(uint64_t flows) { flows_ += flows; }

  // Reads the calls and the GPU work: which calls start arrows, the OpenACC
  // events' arrows, the conditional nodes' launches, and the ids of drawn GPU
  // work (only calls that launched some get a flow_out, so every arrow
  // written has both ends). Nothing else reads or changes what it makes
  // until it returns: it may run beside the rest of planning.
  void plan() {
    auto planned = std::make_shared<Planned>(*trace_, rec_);
    const FlowSources& sources = planned->sources;
    planned->gpuDrawn = IdSet(sources.lo(), sources.hi(), sources.calls());
    planned->bodies.forEachGpuWork([&](uint32_t correlation, const auto& r) {
      if (drawable(r.start, r.end)) planned->gpuDrawn.insert(correlation);
    });
    planned->bodies.records().api.scan([&](const ApiRecord& r) {
      planned->maxCorrelation = std::max<uint64_t>(planned->maxCorrelation, r.correlationId);
    });
    planned_ = std::move(planned);
  }
  // The largest flow id it writes, before its placement's bases.
  uint64_t maxFlowId() const { return planned_->maxCorrelation; }
  // At least as many as the v1 arrows it writes (one per CUDA call tied to an OpenACC event).
  uint64_t v1Flows() const { return planned_->accFlows.calls(); }
  // `flowBase` is added to every id and `v1Flows` (the file's) to every
  // bind_id; `base` is the time events are written relative to.
  void place(uint64_t flowBase, uint64_t v1Flows, uint64_t base) {
    flowBase_ = flowBase;
    bindBase_ = flowBase + v1Flows;
    base_ = base;
  }
  // Arrows ended on GPU work launched by a drawn call: metadata "flows".
  uint64_t written() const { return flows_; }

  // The flow start on the call at `index` that launched drawn GPU work.
  JSON_FLOW_FN out(size_t index, const ApiRecord& r) {
    if (planned_->sources.isSource(index, r) && planned_->gpuDrawn.contains(r.correlationId)) {
      b_.lit(",\"bind_id\":");
      b_.uint(bindBase_ + r.correlationId);
      b_.lit(",\"flow_out\":true");
    }
  }
  // The flow end on GPU work (`r`, at `index` of its kind) launched by a
  // call that is drawn; a conditional node's body ends its launch's.
  template <typename R>
  JSON_FLOW_FN in(const R& r, size_t index) {
    const uint32_t correlationId = planned_->bodies.correlation(r, index);
    if (!planned_->sources.hasSource(correlationId)) return;
    b_.lit(",\"bind_id\":");
    b_.uint(bindBase_ + correlationId);
    b_.lit(",\"flow_in\":true");
    ++flows_;
    ++e_.stats.flows;
  }

  // After an OpenACC event's slice: an arrow from it to each drawn GPU
  // slice its CUDA calls launched.
  void openAccOut(const OpenAccRecord& r, const JsonTrack& t, const Slice& s) {
    if (const std::vector<uint32_t>* calls = planned_->accFlows.callsOf(r.externalId)) {
      for (const uint32_t correlation : *calls)
        if (planned_->gpuDrawn.contains(correlation)) openAccEvent("s", correlation, t, s);
    }
  }
  // After a GPU slice: the end of an OpenACC event's arrow, where its calls launched it.
  void openAccIn(uint32_t correlationId, const JsonTrack& t, const Slice& s) {
    if (planned_->accFlows.empty() || planned_->accFlows.eventOf(correlationId) == 0) return;
    openAccEvent("f", correlationId, t, s);
  }

 private:
  void openAccEvent(const char* phase, uint32_t correlationId, const JsonTrack& t, const Slice& s) {
    e_.begin();
    b_.lit("\"ph\":\"");
    b_.put(phase);
    b_.lit("\",\"cat\":\"openacc\",\"name\":\"openacc\",\"id\":");
    b_.uint(flowBase_ + correlationId);
    if (phase[0] == 'f') b_.lit(",\"bp\":\"e\"");
    b_.put(',');
    b_.put(t.prefixOfLane(s.lane));
    b_.lit(",\"ts\":");
    b_.micros(static_cast<int64_t>(s.start - base_));
    e_.end();
    if (phase[0] == 'f') ++e_.stats.flows;
  }

  // What plan() reads from the records.
  struct Planned {
    Planned(const Trace& trace, const TimelineRecords& rec) : sources(rec.api), accFlows(trace), bodies(rec) {}
    const FlowSources sources;
    const OpenAccFlows accFlows;  // OpenACC event -> the GPU work its CUDA calls launched
    const GraphBodies bodies;     // the launch of each conditional node's body
    IdSet gpuDrawn;               // correlation ids of drawn GPU work
    uint64_t maxCorrelation = 0;
  };

  JsonEvents& e_;
  JsonText& b_;  // e_.b
  const Trace* trace_;
  TimelineRecords rec_;
  std::shared_ptr<const Planned> planned_;  // from plan() on, shared by the copies
  uint64_t flowBase_ = 0;  // of v1 ids
  uint64_t bindBase_ = 0;  // of bind_ids: above every v1 arrow of the file
  uint64_t base_ = 0;
  uint64_t flows_ = 0;
};

#undef JSON_FLOW_FN

}  // namespace cuptitrace
