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

void WindowLayout::release() { window_.release(); }

}  // namespace cuptitrace
