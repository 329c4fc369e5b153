#include "exporters/pftrace/pftrace_source.h"

#include <algorithm>

#include "core/side_task.h"
#include "core/writer_threads.h"

namespace cuptitrace::pftrace {

SourceWriter::SourceWriter(const TimelineInput& input, Output& out, FlowIds& flowIds,
                           uint64_t& laneUuid, uint64_t firstUuid, uint32_t firstSequence,
                           size_t windowSlices)
    : in_(input),
      trace_(*input.trace),
      o_(out),
      rec_(trace_.store),
      offset_(static_cast<uint64_t>(trace_.meta.wallClockOffsetNs())),
      firstSequence_(firstSequence),
      windowSlices_(windowSlices),
      tracks_(trace_, rec_.nvtx, firstUuid),
      schedule_(trace_.store, tracks_, writerThreads() > 1),
      interner_(trace_.strings),
      events_(out, interner_),
      flows_(trace_, rec_, flowIds, offset_),
      slices_(trace_, rec_, interner_, events_, flows_),
      laneUuid_(laneUuid) {}

void SourceWriter::plan() {
  // The arrows' planning reads the calls and the GPU work, and nothing the
  // rest of planning changes: with a core to spare it runs beside it.
  // So does the scan for the clock's reference.
  const bool beside = writerThreads() > 1;
  SideTask flows(beside, [this] { flows_.plan(); });
  TimelineBase scan;
  SideTask scanning(beside, [&] { scan = scanTimeline(trace_); });
  // Every track, with a first pass over the slices that also plans the windows.
  tracks_.assignNvtxLanes();
  schedule_.planWindows(windowSlices_);
  tracks_.finish();
  schedule_.attach();
  scanning.wait();
  base_ = scan.base;
  counts_.incomplete = scan.incomplete;
  flows.wait();
  sequences_.resize(1 + tracks_.size());
  for (size_t i = 0; i < sequences_.size(); ++i) {
    sequences_[i].id = firstSequence_ + static_cast<uint32_t>(i);
    sequences_[i].lastTs = base_;
  }
}

PerfettoMemoryOptions SourceWriter::memoryOptions(uint32_t sequenceId) const {
  return {sequenceId, base_, tracks_.hostProcessUuid(),
          [this](uint32_t device) { return tracks_.gpuProcessUuid(device); }};
}

void SourceWriter::writeHeader() {
  TraceHeader& header = header_.emplace(in_, o_, base_);
  header.startSequence(sequences_[0], tracks_.hostProcessUuid());
  header.writeTrackDescriptors(sequences_[0], tracks_);
  for (size_t i = 0; i < tracks_.size(); ++i)
    header.startSequence(sequences_[1 + i], tracks_[i].uuid);
}

uint64_t SourceWriter::openLane(size_t t, uint32_t lane, uint64_t ts) {
  const uint64_t uuid = laneUuid_++;
  tracks_.setLaneUuid(t, lane, uuid);
  header_->describeLane(sequences_[0], tracks_[t], lane, uuid, ts);
  return uuid;
}

LayoutCounts SourceWriter::layoutCounts() const {
  const LaneStats lanes = schedule_.laneStats();
  return {lanes.clamped, lanes.maxLanes, tracks_.laneTracks(), flows_.written()};
}

void SourceWriter::writeSummary(uint64_t lastWall) {
  Sequence& main = sequences_[0];
  interner_.setSequence(&main);
  writeLayoutSummary(events_, interner_, layoutCounts(), std::max(lastWall - offset_, main.lastTs));
}

void SourceWriter::describe() {
  writeDescription(events_, interner_, in_, base_, counts_);
  described_ = true;
}

}  // namespace cuptitrace::pftrace
