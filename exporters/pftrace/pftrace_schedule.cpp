#include "exporters/pftrace/pftrace_schedule.h"

#include <algorithm>

namespace cuptitrace::pftrace {

void EventSchedule::planWindows(size_t windowSlices) {
  TrackMap map{tracks_};
  layout_.planWindows(map, windowSlices);
}

void EventSchedule::attach() {
  layout_.setTracks(tracks_.size(), [&](size_t t) { return TrackRegistry::policyOf(tracks_[t]); });
  if (ahead_) finder_.emplace(tracks_);
  instant_.resize(tracks_.size());
  for (size_t i = 0; i < tracks_.size(); ++i) instant_[i] = tracks_[i].firstInstant;
  if (layout_.windows() > 0) layOut(0);
}

void EventSchedule::layOut(size_t w) {
  window_ = w;
  TrackMap map{tracks_};
  if (finder_) {
    layout_.layOutAhead(map, *finder_, w);
  } else {
    layout_.layOut(map, w);
  }
}

void EventSchedule::cut(std::vector<Piece>& pieces, std::vector<uint8_t>& lanesUsed) {
  pieces.clear();
  lanesUsed.assign(tracks_.size(), 0);
  const bool last = !moreWindows();
  const uint64_t end = windowEnd();
  const std::vector<Instant>& instants = tracks_.instants();
  for (size_t t = 0; t < tracks_.size(); ++t) {
    const size_t first = layout_.first(t);
    const size_t stop = layout_.end(t);
    // The track's instants of the window: those before its end (all, in the last).
    size_t& next = instant_[t];
    const size_t instantsEnd = tracks_[t].firstInstant + tracks_[t].instantCount;
    size_t until = next;
    while (until < instantsEnd && (last || instants[until].ts < end)) ++until;
    if (first == stop && next == until) continue;
    uint8_t lanes = 0;
    for (size_t i = first; i < stop; ++i) lanes = std::max(lanes, layout_.slice(i).lane);
    lanesUsed[t] = lanes;
    size_t from = first;
    do {
      Piece p;
      p.track = static_cast<uint32_t>(t);
      p.first = from;
      // Cut past kPieceSlices, before the next slice that starts later.
      size_t to = std::min(stop, from + kPieceSlices);
      while (to < stop && layout_.slice(to).start == layout_.slice(to - 1).start) ++to;
      p.end = to;
      p.instant = next;
      if (to < stop) {
        const uint64_t bound = layout_.slice(to).start;
        while (next < until && instants[next].ts < bound) ++next;
      } else {
        next = until;
      }
      p.instantEnd = next;
      pieces.push_back(p);
      from = to;
    } while (from < stop);
  }
}

}  // namespace cuptitrace::pftrace
