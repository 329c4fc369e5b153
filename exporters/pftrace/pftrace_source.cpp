#include "exporters/pftrace/pftrace_source.h"

namespace cuptitrace::pftrace {

SourceWriter::SourceWriter(const TimelineInput& input, Output& out, FlowIds& flowIds,
                           uint64_t firstUuid, uint32_t firstSequence, size_t windowSlices)
    : in_(input),
      trace_(*input.trace),
      o_(out),
      rec_(trace_.store),
      offset_(static_cast<uint64_t>(trace_.meta.wallClockOffsetNs())),
      firstSequence_(firstSequence),
      windowSlices_(windowSlices),
      tracks_(trace_, rec_.nvtx, firstUuid),
      schedule_(trace_.store, tracks_),
      interner_(trace_.strings),
      events_(out, interner_),
      flows_(trace_, rec_, flowIds, offset_),
      slices_(trace_, rec_, interner_, events_, flows_) {}

void SourceWriter::plan() {
  const TimelineBase scan = scanTimeline(trace_);
  base_ = scan.base;
  counts_.incomplete = scan.incomplete;
  // Every track, with a first pass over the slices that also plans the windows.
  tracks_.assignNvtxLanes();
  schedule_.planWindows(windowSlices_);
  tracks_.finish();
  schedule_.attach();
  flows_.countGpuSlices();
  countClampedAndFlows();
  tracks_.addLaneTracks();
  counts_.laneTracks = tracks_.laneTracks();
  sequences_.resize(1 + tracks_.size());
  for (size_t i = 0; i < sequences_.size(); ++i) {
    sequences_[i].id = firstSequence_ + static_cast<uint32_t>(i);
    sequences_[i].lastTs = base_;
  }
}

// Lays out every window once, as writing will, for what the trace's
// description says before anything else is written: the slices clamped,
// the lanes and the arrows.
void SourceWriter::countClampedAndFlows() {
  FlowCounter counter(flows_, rec_);
  for (size_t w = 0; w < schedule_.windows(); ++w) {
    schedule_.layOut(w);
    counter.addWindow(tracks_, schedule_);
  }
  counts_.flows = counter.flows();
  const LaneStats lanes = schedule_.finishPlanning();
  counts_.clamped = lanes.clamped;
  counts_.maxLanes = lanes.maxLanes;
}

PerfettoMemoryOptions SourceWriter::memoryOptions(uint32_t sequenceId) const {
  return {sequenceId, base_, tracks_.hostProcessUuid(),
          [this](uint32_t device) { return tracks_.gpuProcessUuid(device); }};
}

void SourceWriter::writeHeader() {
  TraceHeader header(in_, o_, base_);
  header.startSequence(sequences_[0], tracks_.hostProcessUuid());
  header.writeTrackDescriptors(sequences_[0], tracks_);
  for (size_t i = 0; i < tracks_.size(); ++i)
    header.startSequence(sequences_[1 + i], tracks_[i].uuid);
}

void SourceWriter::describe() {
  writeDescription(events_, interner_, in_, base_, counts_);
  described_ = true;
}

}  // namespace cuptitrace::pftrace
