#include "formats/pftrace_schedule.h"

#include <algorithm>

namespace cuptitrace::pftrace {

void EventSchedule::planWindows(size_t windowSlices) {
  TrackMap map{tracks_};
  windows_ = timelineSlices_.planWindows(map, windowSlices);
}

void EventSchedule::attach() {
  runs_.resize(tracks_.size());
  cursors_.resize(tracks_.size());
  for (size_t i = 0; i < tracks_.size(); ++i) {
    layouts_.emplace_back(TrackRegistry::policyOf(tracks_[i]));
    cursors_[i].instant = tracks_[i].firstInstant;
    cursors_[i].instantEnd = tracks_[i].firstInstant + tracks_[i].instantCount;
  }
}

// The slices starting in the window, grouped by track in two passes (count,
// then place), each track's run of its layout (TrackLayout) written over
// them in place; each track's cursor on the result.
void EventSchedule::layOut(size_t w) {
  window_ = w;
  const uint64_t from = windows_[w];
  const uint64_t to = windows_[w + 1];
  for (Run& r : runs_) r.count = 0;
  forEachSlice(from, to, [&](uint32_t t, const Slice&) { ++runs_[t].count; });
  size_t total = 0;
  for (Run& r : runs_) {
    r.first = total;
    total += r.count;
    r.count = 0;
  }
  resizeWindow(slices_, total);
  forEachSlice(from, to, [&](uint32_t t, const Slice& s) {
    Run& r = runs_[t];
    slices_[r.first + r.count++] = s;
  });
  for (size_t i = 0; i < runs_.size(); ++i) {
    const Run& r = runs_[i];
    Cursor& c = cursors_[i];
    c.slice = c.sliceEnd = r.first;
    if (r.count == 0) continue;
    Slice* first = slices_.data() + r.first;
    size_t emitted = 0;
    layouts_[i].run(first, first + r.count, [&](const Slice& s) { first[emitted++] = s; });
    c.sliceEnd = c.slice + emitted;
  }
}

uint64_t EventSchedule::finishPlanning() {
  uint64_t clamped = 0;
  for (size_t i = 0; i < layouts_.size(); ++i) {
    clamped += layouts_[i].changed();
    tracks_.setLanes(i, layouts_[i].lanes());
  }
  // One window laid out stays; with several the layouts start over at the first.
  if (windows_.size() > 2) {
    for (size_t i = 0; i < layouts_.size(); ++i)
      layouts_[i] = TrackLayout(TrackRegistry::policyOf(tracks_[i]));
    layOut(0);
  }
  return clamped;
}

}  // namespace cuptitrace::pftrace
