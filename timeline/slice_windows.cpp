#include "timeline/slice_windows.h"

namespace cuptitrace {

void WindowPlanner::second(uint64_t start) {
  if (histogram_.empty()) {
    histogram_.assign(kBuckets, 0);
    while (((hi_ - lo_) >> shift_) >= kBuckets) ++shift_;
  }
  ++histogram_[bucket(start)];
}

std::vector<uint64_t> WindowPlanner::bounds() const {
  std::vector<uint64_t> out{0};
  if (needsSecondPass() && !histogram_.empty()) {
    // The first start of bucket b: the least start s with bucket(s) == b
    // (a bucket that holds starts begins at most at hi_: no overflow).
    auto bucketStart = [&](size_t b) { return lo_ + (static_cast<uint64_t>(b) << shift_); };
    uint64_t held = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      const uint64_t n = histogram_[b];
      // Bucket b and one before it hold starts, so its first start is above
      // the last bound; it is never UINT64_MAX, which only the end may be
      // (a window ending there holds the starts equal to it).
      const uint64_t first = n != 0 && held != 0 && held + n > max_ ? bucketStart(b) : 0;
      if (first > out.back() && first != UINT64_MAX) {
        out.push_back(first);
        held = 0;
      }
      held += n;
    }
  }
  out.push_back(UINT64_MAX);
  return out;
}

}  // namespace cuptitrace
