// The split of time by category in windows (report_data.h): one sweep over
// the merged busy intervals of every category, queried at the windows' edges.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "reports/report_data.h"

namespace cuptitrace::reports {

std::vector<CategoryTimes> splitByCategory(const std::array<std::vector<Interval>, kCategories>& busy,
                                           const std::vector<Interval>& whole, uint64_t from,
                                           uint64_t to) {
  // The windows' parts inside [from, to); empty ones count nothing.
  std::vector<Interval> windows;
  windows.reserve(whole.size());
  for (const Interval& w : whole) {
    const uint64_t start = std::max(w.start, from), end = std::min(w.end, to);
    windows.push_back(end > start ? Interval{start, end} : Interval{0, 0});
  }
  // Every window edge is a query point: F(q) is the time before q that each
  // category held (the first busy one in priority order). A window's share is
  // F(end) - F(start).
  std::vector<uint64_t> points;
  points.reserve(2 * windows.size());
  for (const Interval& w : windows) {
    points.push_back(w.start);
    points.push_back(w.end);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<std::array<uint64_t, kCategories>> before(points.size());

  // The categories with any busy time, in their order: the others never hold any.
  std::array<size_t, kCategories> active{};
  size_t actives = 0;
  for (size_t c = 0; c < kCategories; ++c)
    if (!busy[c].empty()) active[actives++] = c;
  std::array<size_t, kCategories> next{};    // per category: the interval at or after the sweep
  std::array<bool, kCategories> inside{};    // per category: the sweep is inside busy[c][next[c]]
  std::array<uint64_t, kCategories> held{};  // per category: time held so far
  auto boundary = [&](size_t c) -> uint64_t {
    if (next[c] >= busy[c].size()) return UINT64_MAX;
    return inside[c] ? busy[c][next[c]].end : busy[c][next[c]].start;
  };
  uint64_t now = 0;
  for (size_t q = 0; q < points.size();) {
    uint64_t t = points[q];
    for (size_t a = 0; a < actives; ++a) t = std::min(t, boundary(active[a]));
    for (size_t a = 0; a < actives; ++a) {
      if (inside[active[a]]) {
        held[active[a]] += t - now;
        break;
      }
    }
    now = t;
    if (points[q] == t) before[q++] = held;
    for (size_t a = 0; a < actives; ++a) {
      const size_t c = active[a];
      // An interval may end at UINT64_MAX, where the exhausted ones "are": stop there.
      while (next[c] < busy[c].size() && boundary(c) == t) {
        if (inside[c]) ++next[c];
        inside[c] = !inside[c];
      }
    }
  }

  std::vector<CategoryTimes> out;
  out.reserve(windows.size());
  auto at = [&](uint64_t t) -> const std::array<uint64_t, kCategories>& {
    return before[static_cast<size_t>(std::lower_bound(points.begin(), points.end(), t) -
                                      points.begin())];
  };
  for (const Interval& w : windows) {
    CategoryTimes parts{};
    if (w.end > w.start) {
      const auto& a = at(w.start);
      const auto& b = at(w.end);
      uint64_t sum = 0;
      for (size_t c = 0; c < kCategories; ++c) {
        parts[c] = b[c] - a[c];
        sum += parts[c];
      }
      parts[kCategories] = (w.end - w.start) - sum;
    }
    out.push_back(parts);
  }
  return out;
}

}  // namespace cuptitrace::reports
