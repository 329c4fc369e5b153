// The order of one trace's events in the .pftrace writer: its windows of
// slices, laid out one at a time, each cut into pieces that are encoded
// apart (pftrace_pieces.h).
//
// The slices are laid out one window of start times at a time by the
// timeline's WindowLayout (window_layout.h), each track's layout carried
// from one window to the next. So the writer holds about a window's slices
// (24 bytes each), a few bits per correlation id (flow_sources.h) and the
// arrows in flight, however long the trace. Records spilled to disk are read
// whole a few times in planning, and once per window that their chunk
// starts slices in: each window is laid out once, as it is written. NVTX
// marks and the lanes of NVTX start/end ranges are found for the whole trace
// at once (a few bytes per NVTX record: there are few).
//
// Pieces. A window's slices of one track are cut into pieces of about
// kPieceSlices, each cut between two slices that start at different times;
// a piece also holds the track's instants from its first slice's start to
// the next piece's (the first piece from the window's start, the last to
// its end). A piece is a packet sequence of its own and ends every slice it
// begins, so it is encoded knowing nothing of the others: the file holds the
// pieces one after the other, window by window, and the trace processor
// sorts their events by time (at equal times in file order, which keeps an
// end before a later piece's begin at the same time, as one track's events
// are written).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/trace_store.h"
#include "exporters/pftrace/pftrace_tracks.h"
#include "timeline/track_layout.h"
#include "timeline/window_layout.h"

namespace cuptitrace::pftrace {

// Slices in a piece: a few hundred KiB of packets, enough to keep a thread
// busy between two hand-overs; a piece's own cost (its first packet, its
// interned strings) is a small part of that.
inline constexpr size_t kPieceSlices = 16384;

// Consecutive slices of one track in the window laid out, and its instants among them.
struct Piece {
  uint32_t track = 0;          // index in the trace's tracks
  uint32_t sequence = 0;       // its packet sequence
  bool started = false;        // whether that sequence's first packet is written already
  size_t first = 0, end = 0;   // slices [first, end) of the window
  size_t instant = 0, instantEnd = 0;  // TrackRegistry::instants()[instant, instantEnd)
};

class EventSchedule {
 public:
  // With more than one of `threads`, each next window is laid out on a
  // thread of its own while the events of one are written, its records read
  // by `threads` threads (WindowLayout::layOutAhead).
  EventSchedule(const TraceStore& store, TrackRegistry& tracks, unsigned threads)
      : tracks_(tracks), ahead_(threads > 1), layout_(store) {
    layout_.setThreads(threads);
  }

  // ---- Planning ------------------------------------------------------------------
  // Reads every slice once or twice, naming its track, and plans the windows.
  void planWindows(size_t windowSlices);
  // Once the tracks are final (TrackRegistry::finish): a layout each, and
  // the first window laid out.
  void attach();
  // What the layout did in the windows laid out so far.
  LaneStats laneStats() const { return layout_.laneStats(); }

  // ---- Windows -------------------------------------------------------------------
  size_t windows() const { return layout_.windows(); }
  // The window laid out ends at windowEnd(), on the trace's clock.
  uint64_t windowEnd() const { return layout_.windowEnd(window_); }
  bool moreWindows() const { return window_ + 1 < layout_.windows(); }
  void nextWindow() { layOut(window_ + 1); }
  const WindowLayout& layout() const { return layout_; }

  // The pieces of the window laid out, in track order (their sequences not
  // set), and the most lanes each track's slices there use (lanesUsed, by
  // track: the highest lane, 0 for none past the track itself).
  void cut(std::vector<Piece>& pieces, std::vector<uint8_t>& lanesUsed);

 private:
  void layOut(size_t w);

  TrackRegistry& tracks_;
  const bool ahead_;
  std::optional<TrackFinder> finder_;  // the tracks, for the thread laying out ahead
  WindowLayout layout_;                // the windows, and the one laid out (after finder_:
                                       // its thread ends first)
  size_t window_ = 0;                  // the one laid out
  std::vector<size_t> instant_;        // by track: its next instant
};

}  // namespace cuptitrace::pftrace
