// One trace of a .pftrace file: its parts (tracks, windows, interned
// strings, arrows, pieces) put together, planned, and its events written a
// window at a time for writeTimeline (perfetto_proto.cpp).
//
// The trace's description comes first, on its main sequence, after the
// track descriptors; each window's new lane tracks are described on it
// before the window's pieces; how many slices were clamped, how many lanes
// were drawn and how many arrows were written come last
// (writeLayoutSummary), once every window is laid out and written: each is
// laid out once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/trace.h"
#include "exporters/memory_tracks.h"
#include "exporters/pftrace/pftrace_events.h"
#include "exporters/pftrace/pftrace_flows.h"
#include "exporters/pftrace/pftrace_interning.h"
#include "exporters/pftrace/pftrace_metadata.h"
#include "exporters/pftrace/pftrace_pieces.h"
#include "exporters/pftrace/pftrace_schedule.h"
#include "exporters/pftrace/pftrace_tracks.h"
#include "exporters/pftrace/pftrace_wire.h"
#include "timeline/timeline_slices.h"
#include "timeline/track_layout.h"

namespace cuptitrace::pftrace {

class SourceWriter {
 public:
  // Its uuids start at `firstUuid` (its host process), its sequence ids at
  // `firstSequence` (the main sequence, then one per track); it is written
  // by `threads` threads (>= 1).
  SourceWriter(const TimelineInput& input, Output& out, uint64_t firstUuid, uint32_t firstSequence,
               size_t windowSlices, unsigned threads);
  ~SourceWriter();

  // Finds the tracks, plans the windows and the arrows; then the ids used
  // are known and the first window is laid out.
  void plan();
  uint64_t endUuid() const { return tracks_.endUuid(); }
  uint32_t endSequence() const { return firstSequence_ + 1 + static_cast<uint32_t>(tracks_.size()); }
  // How many flow ids and lane uuids it may use; place() says where they start.
  uint64_t flowIds() const { return flows_.idCount(); }
  uint64_t laneUuids() const { return uint64_t{tracks_.size()} * (kMaxLanes - 1); }
  // `nextSequence`: the file's next free sequence id, taken from by the
  // pieces that do not go on their track's own sequence.
  void place(uint64_t firstFlowId, uint64_t firstLaneUuid, uint32_t& nextSequence);
  // What the layout did so far (all of it, once every window is written).
  LayoutCounts layoutCounts() const;
  uint64_t incomplete() const { return counts_.incomplete; }
  uint64_t flowsWritten() const { return flows_.written(); }
  uint64_t windows() const { return schedule_.windows(); }
  // What the memory tracks (memory_tracks.h) hang on: the clock's reference and the process tracks.
  PerfettoMemoryOptions memoryOptions(uint32_t sequenceId) const;

  // Everything before the events: the main sequence with the descriptors,
  // the start of every track's sequence, and the trace's description.
  void writeHeader();
  // Windows, in order: the one laid out ends at windowEndWall() (its events
  // are those starting before it), the last one nowhere.
  bool moreWindows() const { return schedule_.moreWindows(); }
  uint64_t windowEndWall() const { return schedule_.windowEnd() + offset_; }
  // Writes the window laid out.
  void writeWindow();
  void nextWindow() { schedule_.nextWindow(); }
  // The wall-clock time of its latest event written.
  uint64_t lastWall() const;
  // After every event: what the layout did, at `lastWall`, the wall-clock
  // time of the file's last event.
  void writeSummary(uint64_t lastWall);

 private:
  const TimelineInput& in_;
  const Trace& trace_;
  Output& o_;
  const TimelineRecords rec_;
  const uint64_t offset_;  // wall clock minus trace clock, modulo 2^64
  const uint32_t firstSequence_;
  const size_t windowSlices_;
  const unsigned threads_;

  TrackRegistry tracks_;
  EventSchedule schedule_;
  Interner interner_;  // the main sequence's
  EventEncoder events_;
  FlowWriter flows_;
  std::optional<TraceHeader> header_;  // from writeHeader on: it describes the lanes
  Sequence main_;                      // the main sequence
  std::unique_ptr<PieceWriters> pieces_;

  // Placing and writing: where lane uuids start, the file's next free
  // sequence, which tracks' own sequences have had a piece, the lanes
  // described by track, the window's pieces.
  uint64_t laneBase_ = 0;
  uint32_t* nextSequence_ = nullptr;
  std::vector<uint8_t> trackStarted_;
  std::vector<uint8_t> lanesDescribed_;
  std::vector<Piece> cut_;
  std::vector<uint8_t> lanesUsed_;

  uint64_t base_ = 0;   // the clock's reference: every sequence's clock starts there
  TraceCounts counts_;  // planned, for the description
};

}  // namespace cuptitrace::pftrace
