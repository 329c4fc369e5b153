// One trace of a .pftrace file: its parts (tracks, windows, interned
// strings, event encoder, arrows, slice writers) put together, planned, and
// its events handed out one at a time to the merge of perfetto_proto.cpp.
//
// The trace's description comes first (at the clock's reference); how many
// slices were clamped, how many lanes were drawn and how many arrows were
// written come last (writeLayoutSummary), once every window is laid out and
// written: each is laid out once. A lane track is described just before its
// first slice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/trace.h"
#include "exporters/memory_tracks.h"
#include "exporters/pftrace/pftrace_events.h"
#include "exporters/pftrace/pftrace_flows.h"
#include "exporters/pftrace/pftrace_interning.h"
#include "exporters/pftrace/pftrace_metadata.h"
#include "exporters/pftrace/pftrace_schedule.h"
#include "exporters/pftrace/pftrace_slices.h"
#include "exporters/pftrace/pftrace_tracks.h"
#include "exporters/pftrace/pftrace_wire.h"
#include "timeline/timeline_slices.h"
#include "timeline/track_layout.h"

namespace cuptitrace::pftrace {

class SourceWriter {
 public:
  // Its uuids start at `firstUuid` (its host process), its sequence ids at
  // `firstSequence`; its lanes' uuids are taken from `laneUuid` as they are
  // opened (the file's next free uuid, set once every trace is planned).
  SourceWriter(const TimelineInput& input, Output& out, FlowIds& flowIds, uint64_t& laneUuid,
               uint64_t firstUuid, uint32_t firstSequence, size_t windowSlices);

  // Finds the tracks and plans the windows; then the ids used are known and
  // the first window is laid out.
  void plan();
  uint64_t endUuid() const { return tracks_.endUuid(); }
  uint32_t endSequence() const { return firstSequence_ + static_cast<uint32_t>(sequences_.size()); }
  // What the layout did so far (all of it, once every window is written).
  LayoutCounts layoutCounts() const;
  uint64_t incomplete() const { return counts_.incomplete; }
  uint64_t flowsWritten() const { return flows_.written(); }
  uint64_t windows() const { return schedule_.windows(); }
  // What the memory tracks (memory_tracks.h) hang on: the clock's reference and the process tracks.
  PerfettoMemoryOptions memoryOptions(uint32_t sequenceId) const;

  // Everything before the events: the main sequence with the descriptors,
  // then the start of every track's sequence.
  void writeHeader();
  // After every event: what the layout did, at `lastWall`, the wall-clock
  // time of the file's last event.
  void writeSummary(uint64_t lastWall);

  // Event sources of this trace: 0 is the main sequence (the trace's
  // description, one instant at the clock's reference), 1 + t is track t.
  uint32_t sourceCount() const { return 1 + static_cast<uint32_t>(tracks_.size()); }

  // The next event of source `k` in the window laid out, or false when it
  // has none there (none left, or its next one is in a later window).
  bool next(uint32_t k, uint32_t globalTrack, NextEvent* e) const {
    if (k == 0) {
      *e = NextEvent::of(base_ + offset_, kPhaseInstant, globalTrack);
      return !described_;
    }
    uint64_t ts;
    uint8_t phase;
    if (!schedule_.next(k - 1, &ts, &phase)) return false;
    *e = NextEvent::of(ts + offset_, phase, globalTrack);
    return true;
  }

  // Writes that event.
  void emit(uint32_t k, uint8_t phase) {
    interner_.setSequence(&sequences_[k]);
    if (k == 0) return describe();
    const size_t t = k - 1;
    Cursor& c = schedule_.cursor(t);
    switch (phase) {
      case kPhaseEnd:
        events_.writeEnd(c.open.back().end, tracks_.laneUuid(t, c.open.back().lane));
        c.open.pop_back();
        break;
      case kPhaseInstant:
        slices_.writeInstant(tracks_.instants()[c.instant++]);
        break;
      case kPhaseBegin: {
        const Slice& s = schedule_.slice(c.slice++);
        events_.setLane(s.lane == 0 ? 0 : laneUuid(t, s.lane, s.start));
        slices_.writeBegin(s);
        events_.setLane(0);
        c.begin(s.end, s.lane);
        break;
      }
      default:
        break;
    }
  }

  // Windows: the one laid out ends at windowEndWall() (its events are those
  // before it); the next is laid out once every event before that end, of
  // every trace, has been written: the merge has an entry for it there.
  bool moreWindows() const { return schedule_.moreWindows(); }
  uint64_t windowEndWall() const { return schedule_.windowEnd() + offset_; }
  void nextWindow() { schedule_.nextWindow(); }

 private:
  void describe();
  // The uuid of lane `lane` of track `t`, the lane described first if it is
  // new (its first slice begins at `ts`).
  uint64_t laneUuid(size_t t, uint32_t lane, uint64_t ts) {
    const uint64_t uuid = tracks_.laneUuid(t, lane);
    return uuid != 0 ? uuid : openLane(t, lane, ts);
  }
  uint64_t openLane(size_t t, uint32_t lane, uint64_t ts);

  const TimelineInput& in_;
  const Trace& trace_;
  Output& o_;
  const TimelineRecords rec_;
  const uint64_t offset_;  // wall clock minus trace clock, modulo 2^64
  const uint32_t firstSequence_;
  const size_t windowSlices_;

  TrackRegistry tracks_;
  EventSchedule schedule_;
  Interner interner_;
  EventEncoder events_;
  FlowWriter flows_;
  SliceWriter slices_;
  uint64_t& laneUuid_;                 // the file's next free uuid, for lanes
  std::optional<TraceHeader> header_;  // from writeHeader on: it describes the lanes
  std::vector<Sequence> sequences_;  // the main sequence, then one per track

  uint64_t base_ = 0;   // the clock's reference: every sequence's clock starts there
  TraceCounts counts_;  // planned, for the description
  bool described_ = false;
};

}  // namespace cuptitrace::pftrace
