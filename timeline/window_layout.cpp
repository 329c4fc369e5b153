#include "timeline/window_layout.h"

#include <algorithm>
#include <system_error>
#include <utility>

#include "core/ordered_work.h"

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

WindowLayout::~WindowLayout() {
  if (ahead_.joinable()) ahead_.join();
}

void WindowLayout::startThread(std::function<void()> work) {
  try {
    ahead_ = std::thread([this, work = std::move(work)] {
      const OwnThread own("trace writer");
      try {
        work();
      } catch (...) {
        aheadError_ = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
    aheadWindow_ = SIZE_MAX;  // laid out on the caller's thread when its turn comes
  }
}

bool WindowLayout::takeAhead(size_t w) {
  if (!ahead_.joinable()) return false;
  ahead_.join();
  if (aheadError_) {
    std::exception_ptr e = aheadError_;
    aheadError_ = nullptr;
    aheadWindow_ = SIZE_MAX;
    std::rethrow_exception(e);
  }
  if (aheadWindow_ != w) return false;  // windows go in order: not reached
  aheadWindow_ = SIZE_MAX;
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
  if (ahead_.joinable()) ahead_.join();
  cur_.window.release();
  next_.window.release();
}

}  // namespace cuptitrace
