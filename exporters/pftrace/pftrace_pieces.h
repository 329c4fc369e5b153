// One window's pieces (pftrace_schedule.h) encoded by several threads: each
// thread encodes a piece at a time with encoders of its own (interned
// strings, events, arguments) into a buffer of its own, and the buffers go
// to the file in piece order (core/ordered_work.h). A piece depends on
// nothing written before it, so the bytes are the same whatever the number
// of threads.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/trace.h"
#include "exporters/pftrace/pftrace_flows.h"
#include "exporters/pftrace/pftrace_schedule.h"
#include "exporters/pftrace/pftrace_tracks.h"
#include "exporters/pftrace/pftrace_wire.h"
#include "timeline/external_ids.h"
#include "timeline/timeline_slices.h"
#include "timeline/window_layout.h"

namespace cuptitrace::pftrace {

class PieceWriters {
 public:
  // The pieces' sequences start at `base` (the clock's reference, on the
  // trace's clock; wall clock: base + `offset`); `threads` >= 1.
  PieceWriters(const Trace& trace, const TimelineRecords& rec, const TrackRegistry& tracks,
               const FlowWriter& flows, uint64_t base, uint64_t offset, unsigned threads);
  ~PieceWriters();

  // Encodes `pieces` of the window `layout` has laid out into `out`, in order.
  void write(const WindowLayout& layout, const std::vector<Piece>& pieces, Output& out);
  // The time of the latest event written, on the trace's clock (base before any).
  uint64_t lastTs() const { return lastTs_; }

 private:
  struct Worker;

  const ExternalIdIndex externalIds_;  // shared by the workers
  std::vector<std::unique_ptr<Worker>> workers_;
  uint64_t lastTs_;
};

}  // namespace cuptitrace::pftrace
