// What a trace's .pftrace events stand on: the first packet of each
// sequence (its clock and defaults), the track descriptors, and the
// trace's description.
//
// Sequences. Every track has a packet sequence (trusted_packet_sequence_id)
// of its own, whose TracePacketDefaults name the track (track_event_defaults.
// track_uuid) and the clock, so no event carries either. Each trace also has
// a main sequence, defaulting to its host process track, for the track
// descriptors and the trace's description. The first packet of a sequence
// clears its incremental state (flags 1|2) and holds the ClockSnapshot that
// defines its clock; later packets carry no flags: SEQ_NEEDS_INCREMENTAL_STATE
// only tells a reader to skip the packet when the sequence's state was lost
// (a wrapped ring buffer), which a file written whole never has.
//
// Clock. CUPTI gives CPU and GPU records in one clock, nanoseconds, roughly
// CLOCK_REALTIME on Linux. Timestamps are written in a sequence-scoped clock
// of our own (id 64, one per sequence) that each ClockSnapshot
// (clockSnapshot, pftrace_wire.h) ties to REALTIME and BOOTTIME, REALTIME
// also made the trace's clock (primary_trace_clock), by the trace's
// wall-clock offset (TraceMetadata::wallClockOffsetNs). Clock 64 is incremental
// (Clock.is_incremental, as Perfetto's own SDK does): a packet's timestamp is
// the nanoseconds since the previous packet of its sequence, 1-3 bytes where
// an absolute one takes 9; deltas are integers, so every nanosecond is kept.
// Traces merged into one file each keep their own clock and offset, so they
// line up on wall-clock time with nothing rewritten.
#pragma once

#include <cstdint>
#include <string>

#include "exporters/pftrace/pftrace_events.h"
#include "exporters/pftrace/pftrace_interning.h"
#include "exporters/pftrace/pftrace_tracks.h"
#include "exporters/pftrace/pftrace_wire.h"
#include "exporters/pftrace/proto_writer.h"
#include "timeline/track_layout.h"

namespace cuptitrace::pftrace {

// The first packet of `seq`, into `out`: it clears the sequence's state and
// holds the ClockSnapshot defining its clock at `base` (wall clock: base +
// `offset`), and the defaults: that clock and `trackUuid`.
void startSequence(Output& out, ProtoWriter& scratch, const Sequence& seq, uint64_t trackUuid,
                   uint64_t base, uint64_t offset);

// The packets of a trace before its events.
class TraceHeader {
 public:
  // `base`: the clock's reference, on the trace's clock.
  TraceHeader(const TimelineInput& in, Output& out, uint64_t base);

  // The first packet of `seq`: it clears the sequence's state and holds the
  // ClockSnapshot defining its clock, and the defaults: that clock and `trackUuid`.
  void startSequence(const Sequence& seq, uint64_t trackUuid);
  // The descriptors of the processes and tracks, on the main sequence `main`.
  void writeTrackDescriptors(const Sequence& main, const TrackRegistry& tracks);
  // The descriptor of lane `lane` (> 0) of track `t`, with uuid `uuid`, at
  // `ts` on the main sequence: before the window that opens the lane.
  void describeLane(Sequence& main, const Track& t, uint32_t lane, uint64_t uuid, uint64_t ts);

 private:
  template <typename F>
  void descriptorPacket(F&& fill, uint64_t delta = 0);
  void describe(ProtoWriter& p, const Track& t);
  std::string trackName(const Track& t) const;

  const TimelineInput& in_;
  const Trace& trace_;
  Output& o_;
  const uint64_t base_;
  const uint64_t offset_;   // wall clock minus trace clock, modulo 2^64
  const uint32_t hostPid_;  // as shown
  const TrackRegistry* tracks_ = nullptr;
  uint32_t sequenceId_ = 0;  // of the descriptors' packets
  ProtoWriter scratch_;      // the packet being written
};

// What the trace's description counts, known from planning.
struct TraceCounts {
  uint64_t incomplete = 0;
};

// What describes the trace, as the JSON exporter's metadata does: an
// instant on the host process (the main sequence's track) at the clock's
// reference `base`. The interner's sequence is the main one.
void writeDescription(EventEncoder& ev, Interner& interner, const TimelineInput& in, uint64_t base,
                      const TraceCounts& counts);

// What drawing the timeline made of the trace, known once every window is
// laid out and written: slices clamped, lanes, arrows.
struct LayoutCounts {
  uint64_t clamped = 0;
  uint32_t maxLanes = 1;
  uint64_t laneTracks = 0;
  uint64_t flows = 0;
};

// Those counts, as the JSON exporter's metadata has them: an instant on the
// host process ("cuptitrace timeline") at `ts`, the trace's last event's
// time, after every other packet of the trace. The interner's sequence is
// the main one.
void writeLayoutSummary(EventEncoder& ev, Interner& interner, const LayoutCounts& counts, uint64_t ts);

}  // namespace cuptitrace::pftrace
