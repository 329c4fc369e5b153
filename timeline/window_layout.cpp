#include "timeline/window_layout.h"

#include <algorithm>

namespace cuptitrace {

// Each track's run of its layout, written back over its slices in place:
// the layout emits exactly the slices it is given, in their final order, and
// never the one it has yet to read.
void WindowLayout::runLayouts() {
  for (size_t t = 0; t < runs_.size(); ++t) {
    const Run& r = runs_[t];
    if (r.count == 0) continue;
    Slice* first = window_.data() + r.first;
    Slice* write = first;
    layouts_[t].run(first, first + r.count, [&](const Slice& s) { *write++ = s; });
  }
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
