#include "timeline/window_layout.h"

#include <algorithm>
#include <utility>

namespace cuptitrace {

void WindowLayout::runLayout(Laid& laid, size_t t) {
  const Run& r = laid.runs[t];
  Slice* first = laid.window.data() + r.first;
  layouts_[t].run(first, first + r.count);
}

void WindowLayout::runLayouts(Laid& laid) {
  for (size_t t = 0; t < laid.runs.size(); ++t)
    if (laid.runs[t].count != 0) runLayout(laid, t);
}

WindowLayout::~WindowLayout() = default;  // ahead_ waits for its thread

bool WindowLayout::takeAhead(size_t w) {
  if (!ahead_) return false;
  const size_t laid = std::exchange(aheadWindow_, SIZE_MAX);
  finishSideTask(ahead_);
  if (laid != w) return false;  // windows go in order: not reached
  std::swap(cur_, next_);
  return true;
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

void WindowLayout::release() {
  ahead_.reset();
  cur_.window.release();
  next_.window.release();
}

}  // namespace cuptitrace
