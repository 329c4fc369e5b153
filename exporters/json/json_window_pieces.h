// One window's X events encoded by several threads. The window's slices,
// laid out (window_layout.h), are cut into pieces of consecutive slices in
// track order; each thread encodes a piece at a time with encoders of its
// own (strings, arguments, arrows) into a buffer of its own, and the buffers
// go to the file in piece order (ordered_work.h): the same bytes, in the same
// order, as JsonSlices writes walking the tracks on one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/trace.h"
#include "exporters/json/json_events.h"
#include "exporters/json/json_flows.h"
#include "exporters/json/json_tracks.h"
#include "timeline/timeline_slices.h"
#include "timeline/window_layout.h"

namespace cuptitrace {

// Slices in one piece: text of about a MiB, enough to keep a thread busy
// between two hand-overs, few enough that the pieces in flight stay small.
inline constexpr size_t kJsonPieceSlices = 4096;

class JsonWindowPieces {
 public:
  // `flows` planned and placed, times relative to `base`; `threads` > 1.
  JsonWindowPieces(const Trace& trace, const TimelineRecords& rec, JsonEvents& events, JsonFlows& flows,
                   uint64_t base, unsigned threads);
  ~JsonWindowPieces();

  // Writes the slices of the window `layout` has just laid out, track by
  // track, into `events`; `tracks` are the tracks it was laid out with.
  void write(const WindowLayout& layout, std::vector<JsonTrack>& tracks);

 private:
  struct Worker;
  struct Piece {
    uint32_t track;
    size_t first;  // slices [first, end) of the window
    size_t end;
  };

  JsonEvents& e_;
  JsonFlows& flows_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Piece> pieces_;
};

}  // namespace cuptitrace
