// Perfetto protobuf (.pftrace): the timeline of the Chrome JSON exporter
// (chrome_json.cpp), with the same tracks, names, arrows and overlap
// handling (track_layout.h), in the format Perfetto itself writes, and as
// small as that format allows: a launch-bound trace (a kernel, the call that
// launched it, the arrow between them) costs about 27 bytes per TrackEvent
// (53 per slice; bench/export_bench).
//
// The parts, each in a file of its own:
//   pftrace_wire.h          field numbers and tags, the output buffer
//   pftrace_source.{h,cpp}  one trace: its parts put together, planned, its events in order
//   pftrace_tracks          the tracks, their order, uuids and lanes (TrackRegistry)
//   pftrace_schedule        each track's next event in the window laid out (EventSchedule)
//   pftrace_interning       interned names and values, per sequence (Interner)
//   pftrace_events.h        a TrackEvent's fields and packet (EventEncoder)
//   pftrace_slices          each record kind's event and arguments (SliceWriter)
//   pftrace_flows           the arrows: flow ids, flows in flight (FlowWriter)
//   pftrace_metadata        sequences' first packets, clocks, track descriptors, the description
//                           and the layout's summary
// This file merges the traces' events into one file.
//
// Order. Events are written in wall-clock order across all tracks (and all
// traces of a merged file): ends before instants before begins at equal
// times, host tracks before GPU tracks, so a GPU slice's begin comes after
// its call's exactly when the call starts no later than it. Each trace's
// summary of the layout (clamped slices, lanes, arrows) comes after its last
// event, at the time of the file's last event. Memory counters
// and unified memory (memory_tracks.h), and GPU metrics (gpu_metric_events.h),
// come on sequences of their own per trace, their packets put between the
// others in that order.
#include "exporters/pftrace/perfetto_proto.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include "exporters/gpu_metric_events.h"
#include "exporters/memory_tracks.h"
#include "exporters/pftrace/pftrace_flows.h"
#include "exporters/pftrace/pftrace_schedule.h"
#include "exporters/pftrace/pftrace_source.h"
#include "exporters/pftrace/pftrace_wire.h"

namespace cuptitrace {
namespace {

using pftrace::After;
using pftrace::FlowIds;
using pftrace::kPhaseReload;
using pftrace::NextEvent;
using pftrace::Output;
using pftrace::SourceWriter;

// Writes every trace's header, then all their events in wall-clock order.
PerfettoExportStats writeTimeline(const std::vector<TimelineInput>& inputs, std::ostream& out,
                                  size_t windowSlices) {
  Output o(out);
  FlowIds flowIds;
  std::vector<std::unique_ptr<SourceWriter>> sources;
  uint64_t uuid = 1;
  uint64_t laneUuid = 0;  // lanes take the uuids after every trace's tracks
  uint32_t sequence = 1;
  std::vector<uint32_t> firstTrack;  // by source: its first global track index
  std::vector<uint32_t> sourceOf;    // by global track index
  // The traces are written side by side: together they hold about windowSlices.
  const size_t perTrace = std::max<size_t>(1, windowSlices / std::max<size_t>(1, inputs.size()));
  for (const TimelineInput& in : inputs) {
    sources.push_back(
        std::make_unique<SourceWriter>(in, o, flowIds, laneUuid, uuid, sequence, perTrace));
    SourceWriter& s = *sources.back();
    s.plan();
    uuid = s.endUuid();
    sequence = s.endSequence();
    firstTrack.push_back(static_cast<uint32_t>(sourceOf.size()));
    sourceOf.insert(sourceOf.end(), s.sourceCount(), static_cast<uint32_t>(sources.size() - 1));
  }
  laneUuid = uuid;
  for (auto& s : sources) s->writeHeader();
  // Memory counters and unified memory, a sequence per trace that has them,
  // their packets put between the others in time order.
  std::vector<std::unique_ptr<PerfettoMemorySequence>> memory;
  for (size_t i = 0; i < sources.size(); ++i) {
    auto m =
        std::make_unique<PerfettoMemorySequence>(inputs[i], sources[i]->memoryOptions(sequence));
    if (m->empty()) continue;
    ++sequence;
    o.b.bytes(m->header());
    o.stats.packets += m->packets();
    o.stats.events += m->events();
    memory.push_back(std::move(m));
  }
  // GPU metrics likewise (gpu_metric_events.h).
  std::vector<std::unique_ptr<PerfettoGpuMetricSequence>> metrics;
  for (size_t i = 0; i < sources.size(); ++i) {
    auto m = std::make_unique<PerfettoGpuMetricSequence>(inputs[i], sources[i]->memoryOptions(sequence));
    if (m->empty()) continue;
    ++sequence;
    o.b.bytes(m->header());
    o.stats.packets += m->packets();
    o.stats.events += m->events();
    metrics.push_back(std::move(m));
  }

  // Merges the tracks' events (each track's already in order) by time, the
  // traces' descriptions among them. The track just written goes on while
  // its next event comes before every other track's, which saves the heap
  // most of its work on busy tracks. A track is in the heap (queued) while
  // it has an event in its trace's window; the end of each trace's window is
  // in the heap too: there the trace's next window is laid out, and its
  // tracks that waited for it are queued again.
  std::priority_queue<NextEvent, std::vector<NextEvent>, After> heap;
  std::vector<uint8_t> queued(sourceOf.size(), 0);
  // By source: how many of its tracks are queued or being written; whether
  // its window ended while some were.
  std::vector<uint32_t> live(sources.size(), 0);
  std::vector<uint8_t> waiting(sources.size(), 0);
  auto queueTracks = [&](uint32_t src) {
    SourceWriter& s = *sources[src];
    for (uint32_t k = 0; k < s.sourceCount(); ++k) {
      const uint32_t g = firstTrack[src] + k;
      NextEvent e;
      if (queued[g] || !s.next(k, g, &e)) continue;
      heap.push(e);
      queued[g] = 1;
      ++live[src];
    }
    if (s.moreWindows()) heap.push(NextEvent::of(s.windowEndWall(), kPhaseReload, src));
  };
  // The next window of trace `src`, once none of its tracks has an event left
  // in this one. That is always so at the window's end, unless the trace's
  // wall-clock times wrap around 2^64 (an offset larger than its timestamps).
  auto loadNextWindow = [&](uint32_t src) {
    if (live[src] != 0) {
      waiting[src] = 1;
      return;
    }
    waiting[src] = 0;
    sources[src]->nextWindow();
    queueTracks(src);
  };
  for (uint32_t src = 0; src < sources.size(); ++src) queueTracks(src);
  uint64_t lastWall = 0;  // of the last event written
  while (!heap.empty()) {
    NextEvent e = heap.top();
    heap.pop();
    if (e.phase() == kPhaseReload) {
      loadNextWindow(e.track());
      continue;
    }
    const uint32_t g = e.track();
    const uint32_t src = sourceOf[g];
    SourceWriter& s = *sources[src];
    const uint32_t local = g - firstTrack[src];
    for (;;) {
      lastWall = e.wall();
      for (auto& m : memory) o.b.bytes(m->takeUntil(e.wall()));
      for (auto& m : metrics) o.b.bytes(m->takeUntil(e.wall()));
      s.emit(local, e.phase());
      if (!s.next(local, g, &e)) {
        queued[g] = 0;
        --live[src];
        if (waiting[src]) loadNextWindow(src);
        break;
      }
      if (!heap.empty() && heap.top().before(e)) {
        heap.push(e);
        break;
      }
    }
  }
  for (auto& s : sources) s->writeSummary(lastWall);
  for (auto& m : memory) o.b.bytes(m->rest());
  for (auto& m : metrics) o.b.bytes(m->rest());
  o.flush();
  PerfettoExportStats stats = o.stats;
  for (const auto& s : sources) {
    const pftrace::LayoutCounts layout = s->layoutCounts();
    stats.clamped += layout.clamped;
    stats.maxLanes = std::max(stats.maxLanes, layout.maxLanes);
    stats.laneTracks += layout.laneTracks;
    stats.incomplete += s->incomplete();
    stats.flows += s->flowsWritten();
    stats.windows += s->windows();
  }
  return stats;
}

}  // namespace

PerfettoExportStats writePerfettoProto(const Trace& trace, std::ostream& out, size_t windowSlices) {
  return writeTimeline({timelineInput(trace)}, out, windowSlices);
}

PerfettoExportStats writePerfettoProto(const std::vector<TimelineInput>& inputs, std::ostream& out,
                                       size_t windowSlices) {
  return writeTimeline(inputs, out, windowSlices);
}

}  // namespace cuptitrace
