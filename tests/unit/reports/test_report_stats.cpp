// Summary reports' statistics: exact medians and deviations, interval unions.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "reports/stats.h"

namespace cuptitrace {

// ---- statistics ----------------------------------------------------------------

TEST_CASE("report stats: exact median, sample standard deviation, single value", "[report]") {
  std::vector<uint64_t> v{10, 1, 3, 2};
  const Summary s = summarize(v);
  CHECK(s.count == 4);
  CHECK(s.total == 16);
  CHECK(s.min == 1);
  CHECK(s.max == 10);
  CHECK(s.mean == Approx(4.0));
  CHECK(s.median == Approx(2.5));                    // mean of the two middle values
  CHECK(s.stddev == Approx(std::sqrt(50.0 / 3.0)));  // (9 + 4 + 1 + 36) / (n - 1)

  std::vector<uint64_t> odd{5, 1, 9};
  CHECK(summarize(odd).median == 5.0);

  std::vector<uint64_t> one{42};
  const Summary single = summarize(one);
  CHECK(single.median == 42.0);
  CHECK(single.stddev == 0.0);
  CHECK(single.min == 42);
  CHECK(single.max == 42);

  std::vector<uint64_t> none;
  CHECK(summarize(none).count == 0);
}

TEST_CASE("report stats: interval unions and coverage of a window", "[report]") {
  std::vector<Interval> v{{50, 150}, {0, 100}, {150, 160}, {300, 400}, {500, 500}};
  mergeIntervals(v);
  REQUIRE(v.size() == 2);  // touching intervals merge, empty ones go
  CHECK(v[0].start == 0);
  CHECK(v[0].end == 160);
  CHECK(coveredLength(v) == 260);
  const Gaps g = gapsOf(v);
  CHECK(g.count == 1);
  CHECK(g.total == 140);
  CHECK(g.largest == 140);
  CHECK(g.largestStart == 160);
  const auto u = unionOf(v, {{155, 310}});
  REQUIRE(u.size() == 1);
  CHECK(u[0].end == 400);
}

}  // namespace cuptitrace
