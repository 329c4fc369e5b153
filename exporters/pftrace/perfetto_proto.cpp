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
//   pftrace_schedule        the windows, each laid out and cut into pieces (EventSchedule)
//   pftrace_pieces          the pieces of a window encoded by several threads (PieceWriters)
//   pftrace_interning       interned names and values, per sequence (Interner)
//   pftrace_events.h        a TrackEvent's fields and packet (EventEncoder)
//   pftrace_slices          each record kind's event and arguments (SliceWriter)
//   pftrace_flows           the arrows: which are drawn, their ids (FlowWriter)
//   pftrace_metadata        sequences' first packets, clocks, track descriptors, the description
//                           and the layout's summary
// This file puts the traces into one file.
//
// Order. Each trace's header (its main sequence: descriptors and the
// description) comes first, then the traces one after another, each a
// window at a time: the window's new lane tracks, its memory counters and
// GPU metrics (their own sequences, memory_tracks.h, gpu_metric_events.h),
// then its pieces (pftrace_schedule.h), each a sequence of its own whose
// events are in time order. Across sequences the events are not: the trace
// processor sorts them by time, and at equal times keeps the file's order,
// which puts host tracks (their pieces first in a window) before GPU
// tracks, so a GPU slice's begin comes after its call's exactly when the
// call starts no later than it. Each trace's summary of the layout
// (clamped slices, lanes, arrows) comes after every event, at the time of
// the file's last event.
#include "exporters/pftrace/perfetto_proto.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/writer_threads.h"
#include "exporters/gpu_metric_events.h"
#include "exporters/memory_tracks.h"
#include "exporters/pftrace/pftrace_source.h"
#include "exporters/pftrace/pftrace_wire.h"

namespace cuptitrace {
namespace {

using pftrace::Output;
using pftrace::SourceWriter;

// Writes every trace's header, then each trace's events window by window.
PerfettoExportStats writeTimeline(const std::vector<TimelineInput>& inputs, std::ostream& out,
                                  size_t windowSlices, unsigned threads) {
  Output o(out);
  std::vector<std::unique_ptr<SourceWriter>> sources;
  uint64_t uuid = 1;
  uint32_t sequence = 1;
  for (const TimelineInput& in : inputs) {
    sources.push_back(std::make_unique<SourceWriter>(in, o, uuid, sequence, windowSlices, threads));
    SourceWriter& s = *sources.back();
    s.plan();
    uuid = s.endUuid();
    sequence = s.endSequence();
  }
  // Memory counters and unified memory, then GPU metrics: a sequence per
  // trace that has them.
  std::vector<std::unique_ptr<PerfettoMemorySequence>> memory(sources.size());
  std::vector<std::unique_ptr<PerfettoGpuMetricSequence>> metrics(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    auto m = std::make_unique<PerfettoMemorySequence>(inputs[i], sources[i]->memoryOptions(sequence));
    if (!m->empty()) {
      ++sequence;
      memory[i] = std::move(m);
    }
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    auto m = std::make_unique<PerfettoGpuMetricSequence>(inputs[i], sources[i]->memoryOptions(sequence));
    if (!m->empty()) {
      ++sequence;
      metrics[i] = std::move(m);
    }
  }
  // Flow ids, lane uuids (after every track's uuid) and the pieces'
  // sequences (after the others), trace by trace.
  uint64_t flowId = 0;
  uint64_t laneUuid = uuid;
  for (auto& s : sources) {
    s->place(flowId, laneUuid, sequence);
    flowId += s->flowIds();
    laneUuid += s->laneUuids();
  }
  for (auto& s : sources) s->writeHeader();
  auto take = [&o](auto& m) {
    o.b.bytes(m->header());
    o.stats.packets += m->packets();
    o.stats.events += m->events();
  };
  for (auto& m : memory)
    if (m) take(m);
  for (auto& m : metrics)
    if (m) take(m);
  uint64_t lastWall = 0;  // of the latest event written
  for (size_t i = 0; i < sources.size(); ++i) {
    SourceWriter& s = *sources[i];
    for (;;) {
      const bool more = s.moreWindows();
      // Memory and metric samples up to the window's end, on their own sequences.
      if (memory[i]) o.write(more ? memory[i]->takeUntil(s.windowEndWall()) : memory[i]->rest());
      if (metrics[i]) o.write(more ? metrics[i]->takeUntil(s.windowEndWall()) : metrics[i]->rest());
      s.writeWindow();
      if (!more) break;
      s.nextWindow();
    }
    lastWall = std::max(lastWall, s.lastWall());
  }
  for (auto& s : sources) s->writeSummary(lastWall);
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

PerfettoExportStats writePerfettoProto(const Trace& trace, std::ostream& out, size_t windowSlices,
                                       unsigned threads) {
  return writeTimeline({timelineInput(trace)}, out, windowSlices,
                       threads == 0 ? writerThreads() : threads);
}

PerfettoExportStats writePerfettoProto(const std::vector<TimelineInput>& inputs, std::ostream& out,
                                       size_t windowSlices, unsigned threads) {
  return writeTimeline(inputs, out, windowSlices, threads == 0 ? writerThreads() : threads);
}

}  // namespace cuptitrace
