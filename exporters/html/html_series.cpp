#include "exporters/html/html_series.h"

#include <algorithm>

namespace cuptitrace::html {

SeriesReducer::SeriesReducer(uint64_t from, uint64_t to, size_t limit)
    : from_(from), to_(std::max(to, from)), limit_(std::max<size_t>(limit, 4)) {}

void SeriesReducer::add(uint64_t t, double v) {
  ++added_;
  if (buckets_.empty()) {
    raw_.push_back({t, v});
    if (raw_.size() > limit_) toBuckets();
    return;
  }
  addToBucket({t, v});
}

void SeriesReducer::toBuckets() {
  buckets_.resize(limit_ / 2);
  for (const SeriesPoint& p : raw_) addToBucket(p);
  raw_.clear();
  raw_.shrink_to_fit();
}

void SeriesReducer::addToBucket(const SeriesPoint& p) {
  const uint64_t t = std::clamp(p.t, from_, to_);
  const uint64_t span = to_ - from_ + 1;
  const size_t i = static_cast<size_t>(static_cast<unsigned __int128>(t - from_) * buckets_.size() / span);
  Bucket& b = buckets_[std::min(i, buckets_.size() - 1)];
  if (!b.any) {
    b.lo = b.hi = p;
    b.any = true;
    return;
  }
  // Ties keep the earlier point: a flat stretch keeps where it began.
  if (p.v < b.lo.v) b.lo = p;
  if (p.v > b.hi.v) b.hi = p;
}

std::vector<SeriesPoint> SeriesReducer::points() const {
  if (buckets_.empty()) {
    std::vector<SeriesPoint> out = raw_;
    std::stable_sort(out.begin(), out.end(), [](const SeriesPoint& a, const SeriesPoint& b) { return a.t < b.t; });
    return out;
  }
  std::vector<SeriesPoint> out;
  out.reserve(buckets_.size() * 2);
  for (const Bucket& b : buckets_) {
    if (!b.any) continue;
    const SeriesPoint& first = b.lo.t <= b.hi.t ? b.lo : b.hi;
    const SeriesPoint& second = b.lo.t <= b.hi.t ? b.hi : b.lo;
    out.push_back(first);
    if (second.t != first.t || second.v != first.v) out.push_back(second);
  }
  return out;
}

}  // namespace cuptitrace::html
