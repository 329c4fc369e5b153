// The order of one trace's events in the .pftrace writer: where each track
// is in writing out its slices of the window laid out, and its next event.
//
// The slices are laid out one window of start times at a time by the
// timeline's WindowLayout (window_layout.h), each track's layout carried
// from one window to the next, and the tracks' events of a window merged in
// time order; a
// track whose next event lies past its window waits for the next one. So the
// writer holds about a window's slices (24 bytes each), a few bits per
// correlation id (flow_sources.h) and the arrows in flight, however long the
// trace. Records spilled to disk are read whole a few times in planning, and
// once per window that their chunk starts slices in: each window is laid out
// once, as it is written. NVTX marks and the
// lanes of NVTX start/end ranges are found for the whole trace at once (a
// few bytes per NVTX record: there are few). Traces merged into one file
// share the window size evenly, each with windows of its own on its own
// clock: the end of a trace's window is an entry of the merge, at its
// wall-clock time, that lays out the next one. The file is the same
// whatever the windows.
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

enum Phase : uint8_t {
  kPhaseReload = 0,  // not an event: the end of a trace's window (its "track" is the trace)
  kPhaseEnd,
  kPhaseInstant,
  kPhaseBegin,
  kPhaseNone
};

// The next event of a track, by wall-clock time: at equal times ends come
// first (so a slice ending where the next begins closes before it), then
// instants, then begins; across tracks the lower track index (host tracks
// first, so a launch call begins before the GPU work it launched at the same
// nanosecond). The order is that of the pair (time, phase and track), two
// words compared in turn: one 128-bit word, made of two halves stored
// apart, made every comparison wait for the store to reach the cache.
// The end of a trace's window comes before every event at its time.
struct NextEvent {
  uint64_t time;
  uint64_t rest;  // phase << 32 | track
  uint64_t wall() const { return time; }
  uint8_t phase() const { return static_cast<uint8_t>(rest >> 32); }
  uint32_t track() const { return static_cast<uint32_t>(rest); }
  bool before(const NextEvent& o) const { return time != o.time ? time < o.time : rest < o.rest; }
  static NextEvent of(uint64_t wall, uint8_t phase, uint32_t track) {
    return {wall, uint64_t{phase} << 32 | track};
  }
};
struct After {
  bool operator()(const NextEvent& a, const NextEvent& b) const { return b.before(a); }
};

// Where a track is in writing its events out: its slices of the window
// (laid out), its instants, its open slices.
struct Cursor {
  struct Open {
    uint64_t end;
    uint32_t lane;
  };
  size_t slice = 0, sliceEnd = 0;
  size_t instant = 0, instantEnd = 0;
  // The slices begun and not yet ended, the next to end last: by end
  // descending, and at equal ends the innermost (begun later) last. With one
  // lane they nest, so a new one goes at the back.
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

class EventSchedule {
 public:
  // With `ahead`, each next window is laid out on a thread of its own while
  // the events of one are written (WindowLayout::layOutAhead).
  EventSchedule(const TraceStore& store, TrackRegistry& tracks, bool ahead)
      : tracks_(tracks), ahead_(ahead), layout_(store) {}

  // ---- Planning ------------------------------------------------------------------
  // Reads every slice once or twice, naming its track, and plans the windows.
  void planWindows(size_t windowSlices);
  // Once the tracks are final (TrackRegistry::finish): a cursor and a layout
  // each, and the first window laid out.
  void attach();
  // What the layout did in the windows laid out so far.
  LaneStats laneStats() const { return layout_.laneStats(); }

  // ---- Windows -------------------------------------------------------------------
  // Lays out window `w`: each track's slices starting in it, and its cursor on them.
  void layOut(size_t w);
  size_t windows() const { return layout_.windows(); }
  // The window laid out ends at windowEnd(), on the trace's clock.
  uint64_t windowEnd() const { return layout_.windowEnd(window_); }
  bool lastWindow() const { return window_ + 1 == layout_.windows(); }
  bool moreWindows() const { return window_ + 1 < layout_.windows(); }
  void nextWindow() { layOut(window_ + 1); }

  // ---- Events --------------------------------------------------------------------
  // The time and phase of track `t`'s next event in the window laid out, or
  // false when it has none there (none left, or its next one is in a later window).
  bool next(size_t t, uint64_t* ts, uint8_t* phase) const {
    const Cursor& c = cursors_[t];
    uint64_t at = UINT64_MAX;
    uint8_t ph = kPhaseNone;
    if (!c.open.empty()) {
      at = c.open.back().end;
      ph = kPhaseEnd;
    }
    if (c.instant < c.instantEnd) {
      const uint64_t i = tracks_.instants()[c.instant].ts;
      if (ph == kPhaseNone || i < at) {
        at = i;
        ph = kPhaseInstant;
      }
    }
    if (c.slice < c.sliceEnd) {
      const uint64_t s = layout_.slice(c.slice).start;
      if (ph == kPhaseNone || s < at) {
        at = s;
        ph = kPhaseBegin;
      }
    }
    if (ph == kPhaseNone || (at >= windowEnd() && !lastWindow())) return false;
    *ts = at;
    *phase = ph;
    return true;
  }
  Cursor& cursor(size_t t) { return cursors_[t]; }
  const Cursor& cursor(size_t t) const { return cursors_[t]; }
  const Slice& slice(size_t i) const { return layout_.slice(i); }

 private:
  TrackRegistry& tracks_;
  const bool ahead_;
  std::optional<TrackFinder> finder_;  // the tracks, for the thread laying out ahead
  WindowLayout layout_;                // the windows, and the one laid out (after finder_:
                                       // its thread ends first)
  size_t window_ = 0;            // the one laid out
  std::vector<Cursor> cursors_;  // by track, on its slices of the window
};

}  // namespace cuptitrace::pftrace
