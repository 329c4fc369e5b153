#include "timeline/window_layout.h"

#include <algorithm>

namespace cuptitrace {

void WindowLayout::runLayout(size_t t) {
  const Run& r = runs_[t];
  Slice* first = window_.data() + r.first;
  layouts_[t].run(first, first + r.count);
}

LaneStats WindowLayout::laneStats() const {
  LaneStats s;
  for (const TrackLayout& layout : layouts_) {
    s.clamped += layout.changed();
    s.maxLanes = std::max(s.maxLanes, layout.lanes());
    s.laneTracks += layout.lanes() - 1;
  }
  return s;
}

void WindowLayout::restart() {
  for (TrackLayout& layout : layouts_) layout = TrackLayout(layout.policy());
}

void WindowLayout::release() { std::vector<Slice>().swap(window_); }

}  // namespace cuptitrace
