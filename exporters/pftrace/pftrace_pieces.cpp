#include "exporters/pftrace/pftrace_pieces.h"

#include <algorithm>
#include <cstddef>

#include "core/ordered_work.h"
#include "exporters/pftrace/pftrace_events.h"
#include "exporters/pftrace/pftrace_interning.h"
#include "exporters/pftrace/pftrace_metadata.h"
#include "exporters/pftrace/pftrace_slices.h"

namespace cuptitrace::pftrace {
namespace {

// What a piece came to: its packets and counts.
struct PieceBytes {
  ProtoWriter bytes;
  uint64_t events = 0;
  uint64_t packets = 0;
  uint64_t lastTs = 0;
};

// The slices a piece has begun and not yet ended, the next to end last: by
// end descending, and at equal ends the innermost (begun later) last. With
// one lane they nest, so a new one goes at the back.
struct OpenSlices {
  struct Open {
    uint64_t end;
    uint32_t lane;
  };
  std::vector<Open> open;
  void begin(uint64_t end, uint32_t lane) {
    if (open.empty() || open.back().end >= end) {  // nested in the last: most slices
      Open& o = open.emplace_back();               // in place: see TrackLayout::push
      o.end = end;
      o.lane = lane;
      return;
    }
    size_t at = open.size();
    while (at > 0 && open[at - 1].end < end) --at;
    open.insert(open.begin() + static_cast<std::ptrdiff_t>(at), Open{end, lane});
  }
};

}  // namespace

// One thread's encoders, all its own: the trace, the tracks, the window's
// slices and the arrows decided for it are shared, read only.
struct PieceWriters::Worker {
  Worker(const Trace& trace, const TimelineRecords& rec, const TrackRegistry& tracks,
         const FlowWriter& flows, const ExternalIdIndex& externalIds, uint64_t base, uint64_t offset)
      : tracks(tracks),
        base(base),
        offset(offset),
        interner(trace.strings),
        events(out, interner),
        slices(trace, rec, interner, events, flows, externalIds) {}

  // Writes piece `p`: its first packet if its sequence has none yet, then
  // its events in time order, then the ends of the slices still open.
  void encode(const WindowLayout& layout, const Piece& p, PieceBytes& result) {
    Sequence seq;
    seq.id = p.sequence;
    seq.lastTs = base;
    interner.reset(&seq);
    result.bytes.clear();
    out.b.swap(result.bytes);
    out.stats = PerfettoExportStats{};
    const uint64_t trackUuid = tracks[p.track].uuid;
    if (!p.started) startSequence(out, scratch, seq, trackUuid, base, offset);
    const std::vector<Instant>& instants = tracks.instants();
    open.open.clear();
    size_t i = p.first, j = p.instant;
    for (;;) {
      // The next event: at equal times ends, then instants, then begins.
      uint64_t at = UINT64_MAX;
      int kind = -1;  // 0 end, 1 instant, 2 begin
      if (!open.open.empty()) {
        at = open.open.back().end;
        kind = 0;
      }
      if (j < p.instantEnd && (kind < 0 || instants[j].ts < at)) {
        at = instants[j].ts;
        kind = 1;
      }
      if (i < p.end && (kind < 0 || layout.slice(i).start < at)) kind = 2;
      if (kind == 0) {
        const OpenSlices::Open o = open.open.back();
        open.open.pop_back();
        events.writeEnd(o.end, o.lane == 0 ? 0 : tracks.laneUuid(p.track, o.lane));
      } else if (kind == 1) {
        slices.writeInstant(instants[j++]);
      } else if (kind == 2) {
        const Slice& s = layout.slice(i);
        events.setLane(s.lane == 0 ? 0 : tracks.laneUuid(p.track, s.lane));
        slices.writeBegin(s, i);
        events.setLane(0);
        open.begin(s.end, s.lane);
        ++i;
      } else {
        break;
      }
    }
    out.b.swap(result.bytes);
    result.events = out.stats.events;
    result.packets = out.stats.packets;
    result.lastTs = seq.lastTs;
  }

  const TrackRegistry& tracks;
  const uint64_t base, offset;
  Output out;  // no stream: its bytes go to the piece's result
  ProtoWriter scratch;
  Interner interner;
  EventEncoder events;
  SliceWriter slices;
  OpenSlices open;
};

PieceWriters::PieceWriters(const Trace& trace, const TimelineRecords& rec, const TrackRegistry& tracks,
                           const FlowWriter& flows, uint64_t base, uint64_t offset, unsigned threads)
    : externalIds_(trace), lastTs_(base) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i)
    workers_.push_back(std::make_unique<Worker>(trace, rec, tracks, flows, externalIds_, base, offset));
}

PieceWriters::~PieceWriters() = default;

void PieceWriters::write(const WindowLayout& layout, const std::vector<Piece>& pieces, Output& out) {
  const auto threads = static_cast<unsigned>(workers_.size());
  runInOrder<PieceBytes>(
      pieces.size(), threads, 4 * size_t{threads},
      [&](unsigned worker, size_t i, PieceBytes& result) { workers_[worker]->encode(layout, pieces[i], result); },
      [&](size_t, PieceBytes& result) {
        out.write(result.bytes.view());
        out.stats.events += result.events;
        out.stats.packets += result.packets;
        lastTs_ = std::max(lastTs_, result.lastTs);
      });
}

}  // namespace cuptitrace::pftrace
