#include "exporters/pftrace/pftrace_source.h"

#include <algorithm>

#include "core/side_task.h"

namespace cuptitrace::pftrace {

SourceWriter::SourceWriter(const TimelineInput& input, Output& out, uint64_t firstUuid,
                           uint32_t firstSequence, size_t windowSlices, unsigned threads)
    : in_(input),
      trace_(*input.trace),
      o_(out),
      rec_(trace_.store),
      offset_(static_cast<uint64_t>(trace_.meta.wallClockOffsetNs())),
      firstSequence_(firstSequence),
      windowSlices_(windowSlices),
      threads_(threads),
      tracks_(trace_, rec_.nvtx, firstUuid),
      schedule_(trace_.store, tracks_, threads),
      interner_(trace_.strings),
      events_(out, interner_),
      flows_(trace_, rec_) {}

SourceWriter::~SourceWriter() = default;

void SourceWriter::plan() {
  // The arrows' planning reads the calls and the GPU work, and nothing the
  // rest of planning changes: with a core to spare it runs beside it.
  // So does the scan for the clock's reference.
  const bool beside = threads_ > 1;
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
  main_.id = firstSequence_;
  main_.lastTs = base_;
  trackStarted_.assign(tracks_.size(), 0);
  lanesDescribed_.assign(tracks_.size(), 0);
}

void SourceWriter::place(uint64_t firstFlowId, uint64_t firstLaneUuid, uint32_t& nextSequence) {
  flows_.place(firstFlowId);
  laneBase_ = firstLaneUuid;
  nextSequence_ = &nextSequence;
}

PerfettoMemoryOptions SourceWriter::memoryOptions(uint32_t sequenceId) const {
  return {sequenceId, base_, tracks_.hostProcessUuid(),
          [this](uint32_t device) { return tracks_.gpuProcessUuid(device); }};
}

void SourceWriter::writeHeader() {
  TraceHeader& header = header_.emplace(in_, o_, base_);
  header.startSequence(main_, tracks_.hostProcessUuid());
  header.writeTrackDescriptors(main_, tracks_);
  for (size_t i = 0; i < tracks_.size(); ++i) {
    Sequence s;
    s.id = firstSequence_ + 1 + static_cast<uint32_t>(i);
    header.startSequence(s, tracks_[i].uuid);
  }
  interner_.setSequence(&main_);
  writeDescription(events_, interner_, in_, base_, counts_);
}

void SourceWriter::writeWindow() {
  if (schedule_.windows() == 0) return;
  schedule_.cut(cut_, lanesUsed_);
  // The lanes the window opens, described before their slices; their uuids
  // are the track's, by lane.
  for (size_t t = 0; t < tracks_.size(); ++t) {
    for (uint32_t lane = lanesDescribed_[t] + 1u; lane <= lanesUsed_[t]; ++lane) {
      const uint64_t uuid = laneBase_ + t * (kMaxLanes - 1) + (lane - 1);
      tracks_.setLaneUuid(t, lane, uuid);
      header_->describeLane(main_, tracks_[t], lane, uuid, main_.lastTs);
    }
    lanesDescribed_[t] = std::max(lanesDescribed_[t], lanesUsed_[t]);
  }
  // The first piece of a track goes on the track's own sequence, started in
  // the header; the others on sequences of their own.
  for (Piece& p : cut_) {
    if (!trackStarted_[p.track]) {
      trackStarted_[p.track] = 1;
      p.sequence = firstSequence_ + 1 + p.track;
      p.started = true;
    } else {
      p.sequence = (*nextSequence_)++;
    }
  }
  flows_.decide(schedule_.layout(), threads_);
  if (!pieces_)
    pieces_ = std::make_unique<PieceWriters>(trace_, rec_, tracks_, flows_, base_, offset_, threads_);
  pieces_->write(schedule_.layout(), cut_, o_);
}

uint64_t SourceWriter::lastWall() const {
  return std::max(pieces_ ? pieces_->lastTs() : base_, main_.lastTs) + offset_;
}

LayoutCounts SourceWriter::layoutCounts() const {
  const LaneStats lanes = schedule_.laneStats();
  return {lanes.clamped, lanes.maxLanes, tracks_.laneTracks(), flows_.written()};
}

void SourceWriter::writeSummary(uint64_t lastWall) {
  interner_.setSequence(&main_);
  writeLayoutSummary(events_, interner_, layoutCounts(), std::max(lastWall - offset_, main_.lastTs));
}

}  // namespace cuptitrace::pftrace
