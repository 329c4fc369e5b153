// One trace of a .pftrace file: its parts (tracks, windows, interned
// strings, event encoder, arrows, slice writers) put together, planned, and
// its events handed out one at a time to the merge of perfetto_proto.cpp.
//
// The trace's description comes first (at the clock's reference) but says
// how many slices were clamped, how many lanes were drawn and how many
// arrows were written: planning lays out every window once beforehand to
// count them, and to find the lanes, as writing will.
#pragma once

#include <cstddef>
#include <cstdint>
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
  // Its uuids start at `firstUuid` (its host process), its sequence ids at `firstSequence`.
  SourceWriter(const TimelineInput& input, Output& out, FlowIds& flowIds, uint64_t firstUuid,
               uint32_t firstSequence, size_t windowSlices);

  // Finds the tracks, plans the windows and counts what the description
  // says; then the ids used are known and the first window is laid out.
  void plan();
  uint64_t endUuid() const { return tracks_.endUuid(); }
  uint32_t endSequence() const { return firstSequence_ + static_cast<uint32_t>(sequences_.size()); }
  uint64_t clamped() const { return counts_.clamped; }
  uint32_t maxLanes() const { return counts_.maxLanes; }
  uint64_t laneTracks() const { return tracks_.laneTracks(); }
  uint64_t incomplete() const { return counts_.incomplete; }
  uint64_t flowsWritten() const { return flows_.written(); }
  uint64_t windows() const { return schedule_.windows(); }
  // What the memory tracks (memory_tracks.h) hang on: the clock's reference and the process tracks.
  PerfettoMemoryOptions memoryOptions(uint32_t sequenceId) const;

  // Everything before the events: the main sequence with the descriptors,
  // then the start of every track's sequence.
  void writeHeader();

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
        events_.setLane(tracks_.laneUuid(t, s.lane));
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
  void countClampedAndFlows();
  void describe();

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
  std::vector<Sequence> sequences_;  // the main sequence, then one per track

  uint64_t base_ = 0;   // the clock's reference: every sequence's clock starts there
  TraceCounts counts_;  // planned, for the description
  bool described_ = false;
};

}  // namespace cuptitrace::pftrace
