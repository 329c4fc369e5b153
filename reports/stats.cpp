#include "reports/stats.h"

#include <algorithm>
#include <cmath>

namespace cuptitrace {

Summary summarize(std::vector<uint64_t>& values) { return summarize(values.data(), values.size()); }

Summary summarize(uint64_t* values, size_t n) {
  Summary s;
  if (n == 0) return s;
  uint64_t* const end = values + n;
  s.count = n;
  s.min = values[0];
  s.max = values[0];
  for (const uint64_t* p = values; p != end; ++p) {
    const uint64_t v = *p;
    s.total += v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = static_cast<double>(s.total) / static_cast<double>(n);
  // Two passes (mean first, then squared deviations) keep the variance
  // accurate where the one-pass sum-of-squares formula cancels badly.
  if (n > 1) {
    double squares = 0;
    for (const uint64_t* p = values; p != end; ++p) {
      const double d = static_cast<double>(*p) - s.mean;
      squares += d * d;
    }
    s.stddev = std::sqrt(squares / static_cast<double>(n - 1));
  }
  uint64_t* const mid = values + n / 2;
  std::nth_element(values, mid, end);
  if (n % 2 == 1) {
    s.median = static_cast<double>(*mid);
  } else {
    // The largest of the lower half is the other middle value.
    const uint64_t lower = *std::max_element(values, mid);
    s.median = (static_cast<double>(lower) + static_cast<double>(*mid)) / 2;
  }
  return s;
}

void mergeIntervals(std::vector<Interval>& v) {
  const auto byStart = [](const Interval& a, const Interval& b) {
    return a.start < b.start || (a.start == b.start && a.end < b.end);
  };
  if (!std::is_sorted(v.begin(), v.end(), byStart)) std::sort(v.begin(), v.end(), byStart);
  size_t out = 0;
  for (const Interval& i : v) {
    if (i.end <= i.start) continue;
    if (out > 0 && i.start <= v[out - 1].end) {
      v[out - 1].end = std::max(v[out - 1].end, i.end);
    } else {
      v[out++] = i;
    }
  }
  v.resize(out);
  // Shrinking copies: worth it only when it frees most of the memory.
  if (out < v.capacity() / 2) v.shrink_to_fit();
}

std::vector<Interval> unionOf(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const Interval next =
        (j >= b.size() || (i < a.size() && a[i].start <= b[j].start)) ? a[i++] : b[j++];
    if (!out.empty() && next.start <= out.back().end)
      out.back().end = std::max(out.back().end, next.end);
    else
      out.push_back(next);
  }
  if (out.size() < out.capacity() / 2) out.shrink_to_fit();
  return out;
}

uint64_t coveredLength(const std::vector<Interval>& merged) {
  uint64_t total = 0;
  for (const Interval& i : merged) total += i.end - i.start;
  return total;
}

Gaps gapsOf(const std::vector<Interval>& merged) {
  Gaps g;
  for (size_t i = 1; i < merged.size(); ++i) {
    const uint64_t gap = merged[i].start - merged[i - 1].end;
    ++g.count;
    g.total += gap;
    if (gap > g.largest) {
      g.largest = gap;
      g.largestStart = merged[i - 1].end;
    }
  }
  return g;
}

}  // namespace cuptitrace
