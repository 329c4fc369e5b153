// Writing a timeline a window of start times at a time: the window bounds,
// a track laid out over several windows against one pass, and the few bits
// per correlation id that replace the launch index.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "core/chunked_vector.h"
#include "timeline/flow_sources.h"
#include "timeline/slice_windows.h"
#include "timeline/track_layout.h"

using namespace cuptitrace;

namespace {

bool sameSlice(const Slice& a, const Slice& b) {
  return a.start == b.start && a.end == b.end && a.index == b.index && a.tie == b.tie &&
         a.source == b.source && a.lane == b.lane;
}

// Random slices on one track: runs of nested and partly overlapping slices,
// some long ones spanning many others, in arrival (not start) order.
std::vector<Slice> randomTrack(std::mt19937_64& rng, size_t n) {
  std::vector<Slice> slices;
  uint64_t t = 1000;
  for (uint32_t i = 0; i < n; ++i) {
    t += rng() % 50;
    const uint64_t length = rng() % 8 == 0 ? 500 + rng() % 3000 : 1 + rng() % 120;
    slices.push_back(Slice{t, t + length, i, static_cast<uint16_t>(rng() % 3),
                           rng() % 2 ? SliceSource::ApiRuntime : SliceSource::ApiDriver, 0});
  }
  // Nearly in order, as records arrive: swap some neighbours.
  for (size_t i = 1; i < slices.size(); ++i)
    if (rng() % 4 == 0) std::swap(slices[i - 1], slices[i]);
  return slices;
}

}  // namespace

TEST_CASE("a track laid out over windows is laid out as in one pass", "[windows]") {
  std::mt19937_64 rng(7);
  for (const OverlapPolicy policy : {OverlapPolicy::Nest, OverlapPolicy::OneAtATime}) {
    for (int round = 0; round < 20; ++round) {
      std::vector<Slice> whole = randomTrack(rng, 400);
      const std::vector<Slice> input = whole;
      const uint32_t lanesWhole = layoutTrack(whole.data(), whole.data() + whole.size(), policy);
      CHECK(lanesWhole > 1);  // overlaps to put on lanes, some across windows

      // Bounds at random starts; each run gets the input slices starting in its window.
      std::vector<uint64_t> bounds{0};
      for (int w = 0; w < 12; ++w) bounds.push_back(1000 + rng() % 12000);
      std::sort(bounds.begin(), bounds.end());
      bounds.push_back(UINT64_MAX);
      TrackLayout layout(policy);
      std::vector<Slice> windowed;
      size_t runs = 0;
      for (size_t w = 0; w + 1 < bounds.size(); ++w) {
        std::vector<Slice> part;
        for (const Slice& s : input)
          if (s.start >= bounds[w] && s.start < bounds[w + 1]) part.push_back(s);
        layout.run(part.data(), part.data() + part.size(), [&](const Slice& s) {
          CHECK(s.start >= bounds[w]);  // each slice in its own window
          CHECK(s.start < bounds[w + 1]);
          windowed.push_back(s);
        });
        ++runs;
      }
      CHECK(runs > 2);
      REQUIRE(windowed.size() == whole.size());
      CHECK(layout.lanes() == lanesWhole);
      CHECK(layout.changed() == 0);
      for (size_t i = 0; i < whole.size(); ++i) CHECK(sameSlice(windowed[i], whole[i]));
    }
  }
}

TEST_CASE("a lane stays taken across a window's end", "[windows]") {
  // A long kernel in the first window; one starting in the second while it
  // runs takes lane 1, one after it ends lane 0 again.
  std::vector<Slice> first{Slice{1000, 3000, 0, 0, SliceSource::Kernel, 0}};
  TrackLayout layout(OverlapPolicy::OneAtATime);
  std::vector<Slice> out;
  auto emit = [&](const Slice& s) { out.push_back(s); };
  layout.run(first.data(), first.data() + 1, emit);
  layout.run(nullptr, nullptr, emit);  // nothing starts in the second window
  std::vector<Slice> third{Slice{3200, 3300, 2, 0, SliceSource::Kernel, 0},
                           Slice{2500, 3500, 1, 0, SliceSource::Kernel, 0}};
  layout.run(third.data(), third.data() + 2, emit);
  REQUIRE(out.size() == 3);
  CHECK(out[1].index == 1);
  CHECK(out[1].lane == 1);
  CHECK(out[1].start == 2500);
  CHECK(out[2].index == 2);
  CHECK(out[2].lane == 0);  // the first kernel ended at 3000
  CHECK(layout.lanes() == 2);
}

TEST_CASE("window bounds hold at most the asked number of starts", "[windows]") {
  std::mt19937_64 rng(11);
  std::vector<uint64_t> starts;
  for (int i = 0; i < 100000; ++i) starts.push_back(5'000'000'000ull + rng() % 2'000'000'000ull);
  for (int i = 0; i < 20000; ++i) starts.push_back(5'700'000'000ull + rng() % 1000);  // a burst
  WindowPlanner planner(10000);
  for (const uint64_t s : starts) planner.first(s);
  REQUIRE(planner.needsSecondPass());
  for (const uint64_t s : starts) planner.second(s);
  const std::vector<uint64_t> bounds = planner.bounds();
  REQUIRE(bounds.front() == 0);
  REQUIRE(bounds.back() == UINT64_MAX);
  CHECK(bounds.size() > 12);
  std::sort(starts.begin(), starts.end());
  size_t counted = 0, overfull = 0;
  for (size_t w = 0; w + 1 < bounds.size(); ++w) {
    REQUIRE(bounds[w] < bounds[w + 1]);
    const auto from = std::lower_bound(starts.begin(), starts.end(), bounds[w]);
    const auto to = std::lower_bound(starts.begin(), starts.end(), bounds[w + 1]);
    const auto n = static_cast<size_t>(to - from);
    counted += n;
    // Only a window of one histogram bucket may hold more (the burst's).
    if (n > 10000) ++overfull;
  }
  CHECK(counted == starts.size());
  CHECK(overfull <= 1);
}

TEST_CASE("no window but the last ends at the end of time", "[windows]") {
  // Starts packed at the top of the range: the histogram's buckets start at
  // UINT64_MAX, which must not become an inner bound (the last window,
  // ending there, also holds the starts equal to it: they would be read twice).
  const std::vector<uint64_t> starts{UINT64_MAX - 1, UINT64_MAX, UINT64_MAX};
  WindowPlanner planner(1);
  for (const uint64_t s : starts) planner.first(s);
  for (const uint64_t s : starts) planner.second(s);
  const std::vector<uint64_t> bounds = planner.bounds();
  REQUIRE(bounds.back() == UINT64_MAX);
  for (size_t w = 0; w + 1 < bounds.size(); ++w) CHECK(bounds[w] < bounds[w + 1]);
  size_t seen = 0;
  for (size_t w = 0; w + 1 < bounds.size(); ++w)
    for (const uint64_t s : starts)
      if (s >= bounds[w] && (s < bounds[w + 1] || w + 2 == bounds.size())) ++seen;
  CHECK(seen == starts.size());
  CHECK(bounds.size() == 2);  // UINT64_MAX cannot start a window: one holds them all
}

TEST_CASE("few starts make one window", "[windows]") {
  WindowPlanner planner(100);
  for (uint64_t s = 1; s <= 100; ++s) planner.first(s * 1000);
  CHECK_FALSE(planner.needsSecondPass());
  CHECK(planner.bounds() == std::vector<uint64_t>{0, UINT64_MAX});
}

TEST_CASE("chunk starts skip only chunks with nothing in the window", "[windows]") {
  ChunkStarts starts;
  starts.add(0, 100);
  starts.add(0, 300);
  starts.add(2, 500);
  CHECK(starts.mayStartIn(0, 0, 101));
  CHECK(starts.mayStartIn(0, 300, 301));
  CHECK(starts.mayStartIn(0, 150, 200));  // inside its range: it may
  CHECK_FALSE(starts.mayStartIn(0, 301, 1000));
  CHECK_FALSE(starts.mayStartIn(0, 0, 100));
  CHECK_FALSE(starts.mayStartIn(1, 0, UINT64_MAX));  // no drawn record
  CHECK(starts.mayStartIn(2, 500, 501));
  CHECK_FALSE(starts.mayStartIn(5, 0, UINT64_MAX));
}

TEST_CASE("the last window holds what starts at the end of time", "[windows]") {
  ChunkedVector<ApiRecord> records;
  for (const uint64_t start : {uint64_t{100}, uint64_t{200}, UINT64_MAX}) {
    ApiRecord r{};
    r.start = start;
    r.end = start;
    records.push_back(r);
  }
  ChunkStarts starts;
  auto drawn = [](uint64_t start, uint64_t end) { return start != 0 && end >= start; };
  std::vector<uint64_t> seen;
  auto note = [&](const ApiRecord& r, size_t) { seen.push_back(r.start); };
  forEachStartIn(records, starts, false, 0, UINT64_MAX, drawn, note);
  CHECK(seen == std::vector<uint64_t>{100, 200, UINT64_MAX});
  seen.clear();
  forEachStartIn(records, starts, true, 150, UINT64_MAX, drawn, note);
  CHECK(seen == std::vector<uint64_t>{200, UINT64_MAX});
  seen.clear();
  forEachStartIn(records, starts, true, 150, 1000, drawn, note);
  CHECK(seen == std::vector<uint64_t>{200});
  CHECK(starts.mayStartIn(0, 1000, UINT64_MAX));
}

TEST_CASE("an id set holds its ids, dense or sparse", "[windows]") {
  IdSet dense(100, 1099, 1000);
  IdSet sparse(1, 4'000'000'000u, 3);
  for (IdSet* set : {&dense, &sparse}) {
    CHECK(set->insert(100));
    CHECK_FALSE(set->insert(100));
    CHECK(set->insert(1000));
    CHECK(set->contains(100));
    CHECK(set->contains(1000));
    CHECK_FALSE(set->contains(101));
  }
  CHECK_FALSE(dense.insert(5'000'000));  // outside its range
  CHECK_FALSE(dense.contains(5'000'000));
  CHECK(sparse.insert(5'000'000));
  CHECK(sparse.contains(5'000'000));
  CHECK_FALSE(dense.contains(99));
  CHECK_FALSE(dense.insert(99));
  CHECK_FALSE(IdSet().contains(0));
}

TEST_CASE("flow sources pick the launch index's calls", "[windows]") {
  std::mt19937_64 rng(3);
  for (const uint32_t spread : {1u, 100000u}) {  // dense ids, then scattered ones
    ChunkedVector<ApiRecord> api;
    for (uint32_t i = 0; i < 5000; ++i) {
      ApiRecord r{};
      r.correlationId = rng() % 7 == 0 ? 0 : 1 + (rng() % 3000) * spread;  // shared ids, and 0
      r.start = rng() % 10 == 0 ? 0 : 1000 + rng() % 1000;                 // some not drawn
      r.end = r.start + rng() % 50;
      r.domain = static_cast<uint8_t>(rng() % 3 == 0 ? ApiDomain::Driver : ApiDomain::Runtime);
      api.push_back(r);
    }
    const LaunchIndex index(api);
    const FlowSources sources(api);
    size_t picked = 0;
    for (size_t i = 0; i < api.size(); ++i) {
      const ApiRecord& r = api[i];
      const bool expected = index.find(r.correlationId) == i;
      CHECK(sources.isSource(i, r) == expected);
      picked += expected ? 1 : 0;
    }
    CHECK(picked > 1000);
    for (uint32_t id = 0; id < 3001 * spread; id += spread)
      CHECK(sources.hasSource(id) == (index.find(id) != LaunchIndex::kNone));
  }
}
