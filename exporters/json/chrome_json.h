// Chrome Trace Event JSON for Perfetto (see DESIGN.md "What a user sees").
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "core/trace.h"
#include "timeline/slice_windows.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

struct JsonExportStats {
  uint64_t events = 0;   // trace events written (metadata events included)
  uint64_t clamped = 0;  // slices cut to fit: only past kMaxLanes lanes (track_layout.h)
  uint32_t maxLanes = 1;    // the most lanes of one track, the track itself included
  uint64_t laneTracks = 0;  // lanes drawn past each track's first
  uint64_t flows = 0;    // launch -> GPU work arrows written
};

// Writes `trace` as one JSON object {"traceEvents": [...], "metadata": {...}}.
// Slices are laid out and written a window of start times at a time, holding
// at most about `windowSlices` at once (slice_windows.h); the file holds the
// same events whatever the windows, in another order. The slices of each
// window are encoded by `threads` threads (0: writerThreads(),
// core/writer_threads.h) into buffers of their own, written in order: the
// bytes are the same whatever the number.
JsonExportStats writeChromeJson(const Trace& trace, std::ostream& out,
                                size_t windowSlices = kDefaultWindowSlices, unsigned threads = 0);
// Writes several traces as one timeline, each placed as its input says
// (cuptitrace merge), on wall-clock time; "metadata" holds "base_realtime_ns"
// and "inputs", one metadata object per trace, with its labels and placement.
JsonExportStats writeChromeJson(const std::vector<TimelineInput>& inputs, std::ostream& out,
                                size_t windowSlices = kDefaultWindowSlices, unsigned threads = 0);

}  // namespace cuptitrace
