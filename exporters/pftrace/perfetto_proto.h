// Perfetto's own protobuf trace format (.pftrace), with the same timeline as
// the Chrome JSON exporter (see DESIGN.md "What a user sees in Perfetto").
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "core/trace.h"
#include "timeline/slice_windows.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

struct PerfettoExportStats {
  uint64_t events = 0;   // TrackEvents written: slice begins and ends, instants
  uint64_t packets = 0;  // TracePackets written (events, track descriptors, first packets)
  uint64_t bytes = 0;    // bytes written to the stream
  uint64_t clamped = 0;  // slices cut to fit: only past kMaxLanes lanes (track_layout.h)
  uint32_t maxLanes = 1;    // the most lanes of one track, the track itself included
  uint64_t laneTracks = 0;  // lane tracks past each track's first
  uint64_t flows = 0;    // launch -> GPU work arrows written (each has both of its ends)
  uint64_t incomplete = 0;  // records not drawn: no start, or no end, or an end before the start
  uint64_t windows = 0;  // windows of start times the slices were laid out in, over all traces
};

// Writes `trace` as a Perfetto protobuf trace: a sequence of TracePackets.
// Slices are laid out and written a window of start times at a time,
// holding at most about `windowSlices` at once (slice_windows.h); the file
// holds the same events whatever the windows, on other sequences. Each
// window's slices are encoded in pieces by `threads` threads (0:
// writerThreads(), core/writer_threads.h): the bytes are the same whatever
// the number.
PerfettoExportStats writePerfettoProto(const Trace& trace, std::ostream& out,
                                       size_t windowSlices = kDefaultWindowSlices,
                                       unsigned threads = 0);
// Writes several traces as one timeline, each placed as its input says
// (cuptitrace merge); on wall-clock time, each by its own clock offset.
// The traces are written one after the other.
PerfettoExportStats writePerfettoProto(const std::vector<TimelineInput>& inputs,
                                       std::ostream& out,
                                       size_t windowSlices = kDefaultWindowSlices,
                                       unsigned threads = 0);

}  // namespace cuptitrace
