// One trace's events of a window encoded by several threads, a round of
// them at a time, the bytes one thread writes (pftrace_source.h, the merge
// of perfetto_proto.cpp).
//
// A packet's bytes depend on its own track's events before it (the
// sequence's clock and what is interned on it), on the iids the trace has
// given out (in the order the events are written, across tracks) and on the
// flow ids (in that order, across tracks and traces). So:
//   1. each track's events of the window are cut into chunks of at most
//      kChunkEvents, a track's cursor and clock kept at each cut (a walk
//      over the window's events, no encoding);
//   2. the threads encode the chunks, each as if its sequence had interned
//      what it had at the window's start, a string without an iid given a
//      provisional one, and note what each chunk's events interned and the
//      strings they met first;
//   3. the new strings get their iids in the order one thread meets them
//      (by the events' order in the merge), in every thread's interner;
//      each chunk that met one, or that interned something an earlier chunk
//      of its track already did, is encoded again, from its sequence's true
//      state (a second run: most windows after the first need none);
//   4. the merge takes each track's packets in order and writes them; an
//      event's arrows, left out by the threads, are put into its packet
//      there (DeferredFlow): flow ids go in the order of the merge.
// The threads' encoders read the trace, the tracks, the window laid out and
// the arrows' plan; they write nothing shared. One round's packets are held
// at once, about 45 bytes per event. The merge takes a round's end as it
// takes a window's: the events before it come first, every track's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "core/trace.h"
#include "exporters/pftrace/pftrace_events.h"
#include "exporters/pftrace/pftrace_flows.h"
#include "exporters/pftrace/pftrace_interning.h"
#include "exporters/pftrace/pftrace_schedule.h"
#include "exporters/pftrace/pftrace_tracks.h"
#include "exporters/pftrace/pftrace_wire.h"
#include "timeline/timeline_slices.h"

namespace cuptitrace::pftrace {

// Events in one chunk: enough to keep a thread busy between two hand-overs
// (about 100 KiB of packets).
inline constexpr uint32_t kChunkEvents = 4096;
// A window's events are encoded a round at a time: the events before a time
// chosen so that a round holds about this many chunks per thread (at least
// 16 chunks), which the merge writes before the next round is encoded. So
// the packets held stay a few MiB, in the same memory from round to round.
inline constexpr uint32_t kRoundChunksPerThread = 4;

class WindowChunks {
 public:
  // `sequences`: the trace's, the main one first; `interner`: the trace's,
  // which has interned the description's name and nothing else yet;
  // `offset`: wall clock minus the trace's clock.
  WindowChunks(const Trace& trace, const TimelineRecords& rec, Interner& interner, FlowWriter& flows,
               EventSchedule& schedule, const TrackRegistry& tracks, std::vector<Sequence>& sequences,
               uint64_t offset, unsigned threads);
  ~WindowChunks();

  // Plans the rounds of the window the schedule has laid out, and encodes
  // the first: its events, every track's cursor and sequence moved past them.
  void startWindow();
  // Rounds: the one encoded holds the events before roundEnd() (on the
  // trace's clock) when there are more, else the rest of the window.
  bool moreRounds() const { return round_ + 1 < ends_.size(); }
  uint64_t roundEnd() const { return ends_[round_]; }
  void nextRound() {
    ++round_;
    encode();
  }
  // Track t's next packet of the window: false when it has none left.
  bool next(size_t t, uint64_t* ts, uint8_t* phase) const {
    const Reader& r = readers_[t];
    if (r.chunk == r.chunkEnd) return false;
    const PacketRef& p = chunks_[r.chunk].packets[r.packet];
    *ts = p.ts;
    *phase = p.phase;
    return true;
  }
  // Writes that packet into `o`, its arrows' ids from `flows`.
  void write(size_t t, Output& o, FlowWriter& flows);

 private:
  struct Worker;
  struct PacketRef {
    uint64_t ts;     // on the trace's clock
    uint32_t end;    // where its bytes end in its chunk's
    uint8_t phase;
    bool flow;       // its arrows are left to the merge: the chunk's next DeferredFlow
  };
  struct Chunk {
    uint32_t track = 0;
    Cursor start;         // the track's cursor at its first event
    uint64_t lastTs = 0;  // the time of the track's event before
    uint32_t events = 0;
    bool again = false;   // to encode again, from `sequence`
    Sequence sequence;
    ProtoWriter bytes;
    std::vector<PacketRef> packets;
    std::vector<DeferredFlow> flows;
    std::vector<NewKey> newKeys;
    std::vector<Use> uses;
  };
  // Where the merge is in a track's chunks of the window.
  struct Reader {
    size_t chunk = 0, chunkEnd = 0;
    size_t packet = 0, flow = 0;
  };
  // The merge's ids of an event's arrows (FlowWriter's Ev).
  struct FlowIdBytes {
    ProtoWriter b;
    bool deferring() const { return false; }
    void deferFlow(FlowKind, uint32_t, uint64_t) {}
    void flowId(const uint8_t (&tag)[2], uint32_t id) {
      uint8_t* p = b.tail(2 + 5);
      *p++ = tag[0];
      *p++ = tag[1];
      b.setTail(putVarint(p, id));
    }
  };

  void encode();
  void cut();
  void encodeChunk(Worker& w, Chunk& c, bool speculative);
  // Runs encodeChunk over chunks `which` on the threads.
  void run(const std::vector<uint32_t>& which, bool speculative);
  // Step 3: the new strings' iids, and which chunks to encode again.
  void resolve();

  const uint64_t offset_;  // wall clock minus trace clock, modulo 2^64
  Interner& interner_;
  EventSchedule& schedule_;
  const TrackRegistry& tracks_;
  std::vector<Sequence>& sequences_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::deque<Chunk> chunks_;  // track by track, in order (ProtoWriter stays in place)
  size_t used_ = 0;            // chunks_[0, used_) are the window's
  std::vector<Reader> readers_;
  FlowIdBytes ids_;
  std::vector<uint64_t> ends_;  // of the window's rounds; the last is the window's end
  size_t round_ = 0;
  std::vector<uint64_t> starts_;  // slice starts sampled to plan the rounds
};

}  // namespace cuptitrace::pftrace
