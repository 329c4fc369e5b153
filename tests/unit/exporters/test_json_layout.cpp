// Track layout: slices of one track sorted parent-first and put on lanes,
// so that Perfetto accepts every lane and no slice is changed to fit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "timeline/track_layout.h"

using namespace cuptitrace;

namespace {

Slice slice(uint64_t start, uint64_t end, uint32_t index = 0,
            SliceSource source = SliceSource::Kernel, uint16_t tie = 0) {
  return Slice{start, end, index, tie, source, 0};
}

uint32_t layout(std::vector<Slice>& slices, OverlapPolicy policy) {
  return layoutTrack(slices.data(), slices.data() + slices.size(), policy);
}

// Empty when the slices, in this order, are what Perfetto accepts on one
// track: starts never decrease and no slice starts inside another and ends
// after it; else what is wrong. With `nestOnlyInGraphs`, a slice may only
// lie inside a whole graph launch (a stream's rule).
std::string nestingProblem(const std::vector<Slice>& slices, bool nestOnlyInGraphs = false) {
  std::vector<Slice> open;
  uint64_t lastStart = 0;
  for (const Slice& s : slices) {
    if (s.start < lastStart) return "out of order at index " + std::to_string(s.index);
    if (s.end < s.start) return "negative duration at index " + std::to_string(s.index);
    lastStart = s.start;
    while (!open.empty() && open.back().end <= s.start) open.pop_back();
    if (!open.empty() && s.end > open.back().end)
      return "partial overlap at index " + std::to_string(s.index);
    if (!open.empty() && nestOnlyInGraphs && open.back().source != SliceSource::Graph &&
        s.end != s.start)
      return "nested in work at index " + std::to_string(s.index);
    open.push_back(s);
  }
  return {};
}

// The laid-out slices of each lane, in their order.
std::map<uint8_t, std::vector<Slice>> byLane(const std::vector<Slice>& slices) {
  std::map<uint8_t, std::vector<Slice>> lanes;
  for (const Slice& s : slices) lanes[s.lane].push_back(s);
  return lanes;
}

// The most slices that run at one time (touching is not overlapping).
uint32_t mostAtOnce(const std::vector<Slice>& slices) {
  std::vector<std::pair<uint64_t, int>> edges;
  for (const Slice& s : slices) {
    if (s.end == s.start) continue;
    edges.emplace_back(s.start, 1);
    edges.emplace_back(s.end, -1);
  }
  std::sort(edges.begin(), edges.end());  // at equal times ends (-1) first
  int now = 0, most = 0;
  for (const auto& e : edges) most = std::max(most, now += e.second);
  return static_cast<uint32_t>(most);
}

}  // namespace

TEST_CASE("layout: the nesting checker finds what it must") {
  CHECK(nestingProblem({slice(0, 100), slice(50, 150)}) != "");
  CHECK(nestingProblem({slice(50, 60), slice(0, 100)}) != "");
  CHECK(nestingProblem({slice(0, 100), slice(10, 20), slice(100, 200)}) == "");
  CHECK(nestingProblem({slice(0, 100), slice(10, 20)}, true) != "");
  CHECK(nestingProblem({slice(0, 100, 0, SliceSource::Graph), slice(10, 20)}, true) == "");
  CHECK(mostAtOnce({slice(0, 100), slice(50, 150), slice(100, 200), slice(120, 130)}) == 3);
}

TEST_CASE("layout: nested and touching slices stay on the track, parents first") {
  std::vector<Slice> s = {slice(100, 200, 3), slice(0, 100, 2), slice(0, 300, 1), slice(10, 50, 4)};
  CHECK(layout(s, OverlapPolicy::Nest) == 1);
  REQUIRE(s.size() == 4);
  CHECK(s[0].index == 1);  // [0,300] before [0,100] at the same start
  CHECK(s[1].index == 2);
  CHECK(s[2].index == 4);
  CHECK(s[3].index == 3);
  for (const Slice& x : s) CHECK(x.lane == 0);
  CHECK(nestingProblem(s) == "");
}

TEST_CASE("layout: equal bounds put NVTX around runtime around driver calls") {
  std::vector<Slice> s = {
      slice(10, 20, 0, SliceSource::ApiDriver), slice(10, 20, 1, SliceSource::ApiRuntime),
      slice(10, 20, 2, SliceSource::Nvtx, 1), slice(10, 20, 3, SliceSource::Nvtx, 0)};
  CHECK(layout(s, OverlapPolicy::Nest) == 1);
  CHECK(s[0].index == 3);
  CHECK(s[1].index == 2);
  CHECK(s[2].source == SliceSource::ApiRuntime);
  CHECK(s[3].source == SliceSource::ApiDriver);
}

TEST_CASE("layout: a partial overlap goes on a second lane, times untouched") {
  std::vector<Slice> s = {slice(0, 100, 0, SliceSource::ApiRuntime),
                          slice(50, 150, 1, SliceSource::ApiRuntime)};
  CHECK(layout(s, OverlapPolicy::Nest) == 2);
  CHECK(s[0].lane == 0);
  CHECK(s[1].lane == 1);
  CHECK(s[1].start == 50);
  CHECK(s[1].end == 150);
  for (const auto& [lane, slices] : byLane(s)) CHECK(nestingProblem(slices) == "");
}

TEST_CASE("layout: on a stream any overlap is another lane, even one inside another") {
  // A copy and a set running inside it, then a kernel 1 ns into the copy
  // (clock jitter): all exact, on two lanes; the kernel touching the copy's end reuses lane 0.
  std::vector<Slice> s = {slice(0, 100, 0, SliceSource::Memcpy),
                          slice(10, 20, 1, SliceSource::Memset), slice(99, 250, 2),
                          slice(100, 120, 3)};
  CHECK(layout(s, OverlapPolicy::OneAtATime) == 2);
  CHECK(s[0].lane == 0);
  CHECK(s[1].lane == 1);
  CHECK(s[2].lane == 1);  // the set ended at 20: lane 1 is free again at 99
  CHECK(s[3].lane == 0);  // the copy ended at 100
  CHECK(s[2].start == 99);
  CHECK(s[2].end == 250);
  for (const auto& [lane, slices] : byLane(s)) CHECK(nestingProblem(slices, true) == "");
}

TEST_CASE("layout: a whole graph launch on a stream encloses its nodes on its lane") {
  std::vector<Slice> s = {slice(0, 1000, 0, SliceSource::Graph), slice(10, 400, 1),
                          slice(20, 500, 2), slice(600, 900, 3)};
  CHECK(layout(s, OverlapPolicy::OneAtATime) == 2);
  CHECK(s[0].lane == 0);
  CHECK(s[1].lane == 0);  // inside the graph launch
  CHECK(s[2].lane == 1);  // concurrent with the first node
  CHECK(s[3].lane == 0);
  for (const auto& [lane, slices] : byLane(s)) CHECK(nestingProblem(slices, true) == "");
}

TEST_CASE("layout: many concurrent kernels get a lane each, with their own times") {
  std::vector<Slice> s;
  for (uint32_t i = 0; i < 40; ++i) s.push_back(slice(1000 + i, 5000 + 7 * i, i));
  CHECK(layout(s, OverlapPolicy::OneAtATime) == 40);
  std::set<uint8_t> lanes;
  for (const Slice& x : s) {
    lanes.insert(x.lane);
    CHECK(x.start == 1000 + x.index);
    CHECK(x.end == 5000 + 7 * x.index);
  }
  CHECK(lanes.size() == 40);
}

TEST_CASE("layout: lanes stay as few as the overlap needs under heavy overlap") {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 50; ++round) {
    // Graph replays: bursts of branches of different lengths, many bursts overlapping.
    std::vector<Slice> original;
    uint64_t t = 1000;
    for (uint32_t i = 0; i < 3000; ++i) {
      if (i % 6 == 0) t += rng() % 400;
      original.push_back(slice(t + rng() % 20, t + 50 + rng() % 2000, i));
    }
    std::vector<Slice> s = original;
    const uint32_t lanes = layout(s, OverlapPolicy::OneAtATime);
    INFO("round " << round);
    CHECK(lanes == mostAtOnce(original));  // interval partitioning is optimal
    CHECK(lanes < kMaxLanes);
    for (const Slice& x : s) {
      CHECK(x.start == original[x.index].start);
      CHECK(x.end == original[x.index].end);
      CHECK(x.lane < lanes);
    }
    for (const auto& [lane, slices] : byLane(s)) CHECK(nestingProblem(slices, true) == "");
  }
}

TEST_CASE("layout: past the most lanes a slice is cut to nest in the last, and counted") {
  std::vector<Slice> s;
  for (uint32_t i = 0; i < kMaxLanes + 2; ++i) s.push_back(slice(100 + i, 10000 + i, i));
  TrackLayout l(OverlapPolicy::OneAtATime);
  std::vector<Slice> out;
  l.run(s.data(), s.data() + s.size(), [&](const Slice& x) { out.push_back(x); });
  CHECK(l.lanes() == kMaxLanes);
  CHECK(l.changed() == 2);
  REQUIRE(out.size() == s.size());
  for (const Slice& x : out) {
    CHECK(x.lane < kMaxLanes);
    CHECK(x.start == 100 + x.index);
    CHECK(x.end == (x.index < kMaxLanes ? 10000 + x.index : 10000 + kMaxLanes - 1));
  }
  for (const auto& [lane, slices] : byLane(out)) CHECK(nestingProblem(slices) == "");
}

TEST_CASE("layout: random tracks come out properly nested on each lane, untouched") {
  std::mt19937_64 rng(12345);
  for (const OverlapPolicy policy : {OverlapPolicy::Nest, OverlapPolicy::OneAtATime}) {
    for (int round = 0; round < 200; ++round) {
      std::vector<Slice> original;
      const int n = 1 + static_cast<int>(rng() % 40);
      for (int i = 0; i < n; ++i) {
        const uint64_t start = rng() % 1000;
        original.push_back(slice(start, start + rng() % 300, static_cast<uint32_t>(i)));
      }
      std::vector<Slice> s = original;
      const uint32_t lanes = layout(s, policy);
      INFO("round " << round << " policy " << static_cast<int>(policy));
      REQUIRE(s.size() == original.size());
      std::set<uint32_t> seen;
      for (const Slice& x : s) {
        const Slice& o = original[x.index];
        seen.insert(x.index);
        CHECK(x.start == o.start);
        CHECK(x.end == o.end);
        CHECK(x.lane < lanes);
      }
      CHECK(seen.size() == original.size());
      CHECK(lanes <= std::max<uint32_t>(1, mostAtOnce(original)));
      for (const auto& [lane, slices] : byLane(s))
        CHECK(nestingProblem(slices, policy == OverlapPolicy::OneAtATime) == "");
    }
  }
}

TEST_CASE("layout: lane tids and names") {
  CHECK(laneTid(7, 0) == 7);
  CHECK(laneTid(7, 1) != 7);
  CHECK(laneTid(7, 1) != laneTid(8, 1));
  CHECK(laneTid(7, 1) != laneTid(7, 2));
  CHECK(laneTid(0xFFFFFF, kMaxLanes - 1) <= 0x7FFFFFFFu);
  CHECK(laneTid(4242, 1) > (1u << 22));  // not a thread id
  CHECK(laneName("Stream 7", 0) == "Stream 7");
  CHECK(laneName("Stream 7", 1) == "Stream 7 \u00b72");
  CHECK(laneName("Stream 7", 2) == "Stream 7 \u00b73");
}

TEST_CASE("layout: GPU pids cannot be host pids and differ per device") {
  std::set<uint32_t> pids;
  for (uint32_t device = 0; device < 64; ++device) {
    const uint32_t pid = gpuProcessId(4242, device);
    CHECK(pid >= (1u << 22));   // above every Linux pid
    CHECK(pid <= 0x7FFFFFFFu);  // a non-negative JSON int32, as Perfetto wants
    pids.insert(pid);
  }
  CHECK(pids.size() == 64);
  CHECK(gpuProcessId(4242, 0) != gpuProcessId(4243, 0));
  CHECK(syncTrackTid(1) != kOverheadTid);
}
