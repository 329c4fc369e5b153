#include "timeline/thread_ranges.h"

#include <algorithm>

namespace cuptitrace {

void ThreadRanges::finish() {
  std::sort(ranges_.begin(), ranges_.end(), [](const ThreadRange& a, const ThreadRange& b) {
    if (a.threadId != b.threadId) return a.threadId < b.threadId;
    if (a.start != b.start) return a.start < b.start;
    return a.end > b.end;
  });
  std::vector<uint32_t> open;
  for (uint32_t i = 0; i < ranges_.size(); ++i) {
    ThreadRange& r = ranges_[i];
    if (i == 0 || ranges_[i - 1].threadId != r.threadId) {
      threads_.emplace_back(r.threadId, i);
      open.clear();
    }
    // Ranges that ended by this one's start are closed; what is left encloses it.
    while (!open.empty() && ranges_[open.back()].end <= r.start) open.pop_back();
    r.parent = open.empty() ? kNoRange : open.back();
    open.push_back(i);
  }
}

uint32_t ThreadRanges::innermost(uint32_t threadId, uint64_t ts) const {
  const auto t = std::lower_bound(threads_.begin(), threads_.end(), std::make_pair(threadId, uint32_t{0}),
                                  [](const auto& a, const auto& b) { return a.first < b.first; });
  if (t == threads_.end() || t->first != threadId) return kNoRange;
  const uint32_t first = t->second;
  const uint32_t last = t + 1 == threads_.end() ? static_cast<uint32_t>(ranges_.size()) : (t + 1)->second;
  // The last range starting at or before ts, then out through its parents
  // until one is still open at ts.
  const auto it = std::upper_bound(ranges_.begin() + first, ranges_.begin() + last, ts,
                                   [](uint64_t v, const ThreadRange& r) { return v < r.start; });
  if (it == ranges_.begin() + first) return kNoRange;
  uint32_t i = static_cast<uint32_t>(it - ranges_.begin()) - 1;
  while (i != kNoRange && ranges_[i].end <= ts) i = ranges_[i].parent;
  return i;
}

uint32_t ThreadRanges::depth(uint32_t i) const {
  uint32_t d = 0;
  for (uint32_t p = ranges_[i].parent; p != kNoRange; p = ranges_[p].parent) ++d;
  return d;
}

}  // namespace cuptitrace
