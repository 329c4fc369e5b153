#include "exporters/pftrace/pftrace_schedule.h"

namespace cuptitrace::pftrace {

void EventSchedule::planWindows(size_t windowSlices) {
  TrackMap map{tracks_};
  layout_.planWindows(map, windowSlices);
}

void EventSchedule::attach() {
  layout_.setTracks(tracks_.size(), [&](size_t t) { return TrackRegistry::policyOf(tracks_[t]); });
  if (ahead_) finder_.emplace(tracks_);
  cursors_.resize(tracks_.size());
  for (size_t i = 0; i < tracks_.size(); ++i) {
    cursors_[i].instant = tracks_[i].firstInstant;
    cursors_[i].instantEnd = tracks_[i].firstInstant + tracks_[i].instantCount;
  }
  if (layout_.windows() > 0) layOut(0);
}

// Each track's cursor on its slices of the window, laid out.
void EventSchedule::layOut(size_t w) {
  window_ = w;
  TrackMap map{tracks_};
  if (finder_) {
    layout_.layOutAhead(map, *finder_, w);
  } else {
    layout_.layOut(map, w);
  }
  for (size_t i = 0; i < cursors_.size(); ++i) {
    Cursor& c = cursors_[i];
    c.slice = layout_.first(i);
    c.sliceEnd = layout_.end(i);
  }
}

}  // namespace cuptitrace::pftrace
