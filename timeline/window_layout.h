// One window of a timeline laid out, for both timeline formats (Chrome
// JSON, Perfetto protobuf): the window bounds, the window's slices grouped
// by track, and each track's lanes (TrackLayout) carried from one window to
// the next. A format walks each track's laid-out slices of the window in
// track order, lanes set; it never groups, sorts or places slices itself,
// so both formats draw the same lanes.
//
// Use: planWindows (every slice read once or twice through the format's
// `Tracks` object, timeline_slices.h, so every track is found), then
// setTracks (each track's overlap policy, once the tracks are known), then
// layOut(w) for each window in order, once each, as the format writes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/ordered_work.h"
#include "core/side_task.h"
#include "core/trace_store.h"
#include "timeline/timeline_slices.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

// What the layout did over all tracks so far.
struct LaneStats {
  uint64_t clamped = 0;     // slices cut to fit, past kMaxLanes (track_layout.h)
  uint32_t maxLanes = 1;    // the most lanes of one track, the track itself included
  uint64_t laneTracks = 0;  // lanes past each track's first, over all tracks
};

class WindowLayout {
 public:
  explicit WindowLayout(const TraceStore& store) : slices_(store) {}

  // Reads every slice once or twice, naming each one's track through
  // `tracks`, and cuts the timeline into windows of start time holding at
  // most `windowSlices` slices each (slice_windows.h).
  template <typename Tracks>
  void planWindows(Tracks& tracks, size_t windowSlices) {
    bounds_ = slices_.planWindows(tracks, windowSlices);
  }

  // Once every track is known: tracks [0, count), track t's slices laid out
  // as policyOf(t) says (an OverlapPolicy).
  template <typename PolicyOf>
  void setTracks(size_t count, PolicyOf&& policyOf) {
    layouts_.clear();
    layouts_.reserve(count);
    for (size_t t = 0; t < count; ++t) layouts_.emplace_back(policyOf(t));
    cur_.runs.assign(count, Run{});
  }

  // Threads that read each window laid out ahead (layOutAhead): 1 by default.
  void setThreads(unsigned threads) { threads_ = threads < 1 ? 1 : threads; }

  size_t windows() const { return bounds_.size() - 1; }
  // Window w holds the slices starting in [windowStart(w), windowEnd(w)), on
  // the trace's clock; the last one ends at UINT64_MAX and holds that too.
  uint64_t windowStart(size_t w) const { return bounds_[w]; }
  uint64_t windowEnd(size_t w) const { return bounds_[w + 1]; }

  // Lays out window `w`, after the windows before it: the slices starting in
  // it are grouped by track in two passes (count, then place: no second copy
  // of them), and each track's run of its layout orders them and sets their
  // lanes, in place.
  template <typename Tracks>
  void layOut(Tracks& tracks, size_t w) {
    layOut(tracks, w, [](size_t) {});
  }
  // The same, calling laidOut(t) for each track with slices in the window as
  // soon as they are laid out, in track order: a writer that walks them then
  // reads them while they are still in cache (a window is tens of MiB).
  template <typename Tracks, typename LaidOut>
  void layOut(Tracks& tracks, size_t w, LaidOut&& laidOut) {
    group(tracks, w, cur_);
    for (size_t t = 0; t < cur_.runs.size(); ++t) {
      if (cur_.runs[t].count == 0) continue;
      runLayout(cur_, t);
      laidOut(t);
    }
  }
  // The same for writers that go window by window in order from the first:
  // once window w is laid out, window w + 1 is laid out on a thread of its
  // own (when one is to be had) while the caller writes w, and the call for
  // w + 1 takes it up. `ahead` names the slices' tracks on that thread, as
  // `tracks` does: it must change nothing that the caller reads meanwhile (a
  // lookup of the tracks found in planning, with caches of its own). The
  // slices laid out, their lanes and the layout's counts are the same.
  template <typename Tracks, typename Ahead>
  void layOutAhead(Tracks& tracks, Ahead& ahead, size_t w) {
    if (!takeAhead(w)) {  // the first window: its records read by threads_ threads too
      if (threads_ > 1) {
        groupInParts(ahead, w, cur_);
      } else {
        group(tracks, w, cur_);
      }
      runLayouts(cur_);
    }
    if (w + 1 < windows()) startAhead(ahead, w + 1);
  }

  // Track t's slices of the window laid out, in track order with their lanes
  // set: slice(first(t)) up to, not including, slice(end(t)).
  size_t first(size_t t) const { return cur_.runs[t].first; }
  size_t end(size_t t) const { return cur_.runs[t].first + cur_.runs[t].count; }
  const Slice& slice(size_t i) const { return cur_.window[i]; }
  const Slice* slices() const { return cur_.window.data(); }
  size_t tracks() const { return cur_.runs.size(); }

  // Lanes opened on track t so far, the track itself included (with
  // layOutAhead: in the windows up to the one being laid out ahead).
  uint32_t lanes(size_t t) const { return layouts_[t].lanes(); }
  LaneStats laneStats() const;

  // Frees the window's slices once every window is written.
  void release();

  WindowLayout(const WindowLayout&) = delete;
  WindowLayout& operator=(const WindowLayout&) = delete;
  ~WindowLayout();

 private:
  // A track's slices of the window: window[first, first + count).
  struct Run {
    size_t first = 0;
    size_t count = 0;
  };
  // A window's slices, each track's at its run.
  struct Laid {
    SliceBuffer window;
    std::vector<Run> runs;  // by track
  };

  // The slices starting in window `w`, grouped by track in `laid`.
  template <typename Tracks>
  void group(Tracks& tracks, size_t w, Laid& laid) {
    const uint64_t from = bounds_[w];
    const uint64_t to = bounds_[w + 1];
    std::vector<Run>& runs = laid.runs;
    runs.assign(layouts_.size(), Run{});
    // Every slice's track was found in planning: kNoTrack is not met.
    slices_.forEach(tracks, from, to, [&](uint32_t t, const Slice&) {
      if (t < runs.size()) ++runs[t].count;
    });
    laid.window.resize(placeRuns(runs));
    slices_.forEach(tracks, from, to, [&](uint32_t t, const Slice& s) {
      if (t >= runs.size()) return;
      Run& r = runs[t];
      laid.window[r.first + r.count++] = s;
    });
  }
  // Each run's place after the ones before it, from the counts in them
  // (counts reset, to count the slices as they are put); the slices in all.
  static size_t placeRuns(std::vector<Run>& runs) {
    size_t total = 0;
    for (Run& r : runs) {
      r.first = total;
      total += r.count;
      r.count = 0;
    }
    return total;
  }
  // Track t's run of its layout over its slices in `laid`; every track's.
  void runLayout(Laid& laid, size_t t);
  void runLayouts(Laid& laid);

  // Window w laid out ahead, made the current one; false when it was not
  // (no thread to be had).
  bool takeAhead(size_t w);
  template <typename Ahead>
  void startAhead(Ahead& ahead, size_t w) {
    aheadWindow_ = w;
    // No thread to be had: laid out here and now, as it would have been.
    ahead_.emplace(true, [this, &ahead, w] {
      if (threads_ > 1) {
        groupInParts(ahead, w, next_);
      } else {
        group(ahead, w, next_);
      }
      runLayouts(next_);
    });
  }
  // group() with the window's parts (TimelineSlices::partsIn) read on
  // threads_ threads, each with a copy of `tracks`, and placed in their
  // order: the slices of each track in group()'s order.
  template <typename Tracks>
  void groupInParts(const Tracks& tracks, size_t w, Laid& laid) {
    const uint64_t from = bounds_[w];
    const uint64_t to = bounds_[w + 1];
    slices_.partsIn(from, to, parts_);
    found_.resize(parts_.size());
    std::vector<Tracks> each(threads_, tracks);
    runInOrder<PartSlices>(
        parts_.size(), threads_, 2 * size_t{threads_},
        [&](unsigned worker, size_t i, PartSlices& found) {
          found.tracks.clear();
          found.slices.clear();
          slices_.forEachInPart(each[worker], from, to, parts_[i], [&](uint32_t t, const Slice& s) {
            found.tracks.push_back(t);
            found.slices.push_back(s);
          });
        },
        [&](size_t i, PartSlices& found) {
          found_[i].tracks.swap(found.tracks);
          found_[i].slices.swap(found.slices);
        });
    std::vector<Run>& runs = laid.runs;
    runs.assign(layouts_.size(), Run{});
    for (const PartSlices& part : found_)
      for (const uint32_t t : part.tracks)
        if (t < runs.size()) ++runs[t].count;
    laid.window.resize(placeRuns(runs));
    for (PartSlices& part : found_) {
      for (size_t k = 0; k < part.tracks.size(); ++k) {
        const uint32_t t = part.tracks[k];
        if (t >= runs.size()) continue;
        Run& r = runs[t];
        laid.window[r.first + r.count++] = part.slices[k];
      }
      part = PartSlices{};  // a window's worth, not kept from one window to the next
    }
  }

  // What each part of a window read ahead found (groupInParts).
  struct PartSlices {
    std::vector<uint32_t> tracks;
    std::vector<Slice> slices;
  };

  TimelineSlices slices_;
  unsigned threads_ = 1;                       // reading a window ahead
  std::vector<TimelineSlices::Part> parts_;   // of the window read ahead
  std::vector<PartSlices> found_;             // by part
  std::vector<uint64_t> bounds_;      // the windows' bounds (slice_windows.h)
  Laid cur_;                          // the window laid out
  Laid next_;                         // the next, while it is laid out ahead
  std::vector<TrackLayout> layouts_;  // by track, carried from one window to the next
  std::optional<SideTask> ahead_;     // laying out window aheadWindow_ into next_
  size_t aheadWindow_ = SIZE_MAX;
};

}  // namespace cuptitrace
