// Track layout: slices of one track sorted parent-first and partial overlaps
// removed, so that Perfetto accepts the track.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <vector>

#include "exporters/track_layout.h"

using namespace cuptitrace;

namespace {

Slice slice(uint64_t start, uint64_t end, uint32_t index = 0,
            SliceSource source = SliceSource::Kernel, uint16_t tie = 0) {
  return Slice{start, end, index, tie, source, 0};
}

uint64_t layout(std::vector<Slice>& slices, OverlapPolicy policy) {
  return layoutTrack(slices.data(), slices.data() + slices.size(), policy);
}

// Empty when the slices, in this order, are what Perfetto accepts on one
// track: starts never decrease and no slice starts inside another and ends
// after it; else what is wrong.
std::string nestingProblem(const std::vector<Slice>& slices) {
  std::vector<uint64_t> open;
  uint64_t lastStart = 0;
  for (const Slice& s : slices) {
    if (s.start < lastStart) return "out of order at index " + std::to_string(s.index);
    if (s.end < s.start) return "negative duration at index " + std::to_string(s.index);
    lastStart = s.start;
    while (!open.empty() && open.back() <= s.start) open.pop_back();
    if (!open.empty() && s.end > open.back())
      return "partial overlap at index " + std::to_string(s.index);
    open.push_back(s.end);
  }
  return {};
}

}  // namespace

TEST_CASE("layout: the nesting checker finds what it must") {
  CHECK(nestingProblem({slice(0, 100), slice(50, 150)}) != "");
  CHECK(nestingProblem({slice(50, 60), slice(0, 100)}) != "");
  CHECK(nestingProblem({slice(0, 100), slice(10, 20), slice(100, 200)}) == "");
}

TEST_CASE("layout: nested and touching slices are kept as they are, parents first") {
  std::vector<Slice> s = {slice(100, 200, 3), slice(0, 100, 2), slice(0, 300, 1), slice(10, 50, 4)};
  CHECK(layout(s, OverlapPolicy::ClampEnd) == 0);
  REQUIRE(s.size() == 4);
  CHECK(s[0].index == 1);  // [0,300] before [0,100] at the same start
  CHECK(s[1].index == 2);
  CHECK(s[2].index == 4);
  CHECK(s[3].index == 3);
  for (const Slice& x : s) CHECK(x.adjusted == 0);
  CHECK(nestingProblem(s) == "");
}

TEST_CASE("layout: equal bounds put NVTX around runtime around driver calls") {
  std::vector<Slice> s = {
      slice(10, 20, 0, SliceSource::ApiDriver), slice(10, 20, 1, SliceSource::ApiRuntime),
      slice(10, 20, 2, SliceSource::Nvtx, 1), slice(10, 20, 3, SliceSource::Nvtx, 0)};
  CHECK(layout(s, OverlapPolicy::ClampEnd) == 0);
  CHECK(s[0].index == 3);
  CHECK(s[1].index == 2);
  CHECK(s[2].source == SliceSource::ApiRuntime);
  CHECK(s[3].source == SliceSource::ApiDriver);
}

TEST_CASE("layout: ClampEnd cuts the later slice at the enclosing end") {
  std::vector<Slice> s = {slice(0, 100, 0), slice(50, 150, 1)};
  CHECK(layout(s, OverlapPolicy::ClampEnd) == 1);
  CHECK(s[1].start == 50);
  CHECK(s[1].end == 100);
  CHECK(s[1].adjusted == 1);
  CHECK(s[0].adjusted == 0);
  CHECK(nestingProblem(s) == "");
}

TEST_CASE("layout: MoveStart starts the later slice where the earlier ends") {
  std::vector<Slice> s = {slice(0, 100, 0), slice(99, 250, 1)};
  CHECK(layout(s, OverlapPolicy::MoveStart) == 1);
  CHECK(s[1].start == 100);
  CHECK(s[1].end == 250);
  CHECK(s[1].adjusted == 1);
  CHECK(nestingProblem(s) == "");
}

TEST_CASE("layout: a moved slice takes its place after slices that start before it") {
  // [50,200] moves to 100; [60,80] (nested in [0,100]) must come before it.
  std::vector<Slice> s = {slice(0, 100, 0), slice(50, 200, 1), slice(60, 80, 2)};
  CHECK(layout(s, OverlapPolicy::MoveStart) == 1);
  CHECK(nestingProblem(s) == "");
  CHECK(s[0].index == 0);
  CHECK(s[1].index == 2);
  CHECK(s[2].index == 1);
  CHECK(s[2].start == 100);
}

TEST_CASE("layout: a slice moved twice is counted once") {
  // [50,150] overlaps [10,90] (inside [0,100]), moves to 90, then overlaps [0,100].
  std::vector<Slice> s = {slice(0, 100, 0), slice(10, 90, 1), slice(50, 150, 2)};
  CHECK(layout(s, OverlapPolicy::MoveStart) == 1);
  CHECK(nestingProblem(s) == "");
  CHECK(s[2].index == 2);
  CHECK(s[2].start == 100);
  CHECK(s[2].end == 150);
}

TEST_CASE("layout: random tracks always come out properly nested") {
  std::mt19937_64 rng(12345);
  for (const OverlapPolicy policy : {OverlapPolicy::ClampEnd, OverlapPolicy::MoveStart}) {
    for (int round = 0; round < 200; ++round) {
      std::vector<Slice> original;
      const int n = 1 + static_cast<int>(rng() % 40);
      for (int i = 0; i < n; ++i) {
        const uint64_t start = rng() % 1000;
        original.push_back(slice(start, start + rng() % 300, static_cast<uint32_t>(i)));
      }
      std::vector<Slice> s = original;
      const uint64_t changed = layout(s, policy);
      INFO("round " << round << " policy " << static_cast<int>(policy));
      REQUIRE(s.size() == original.size());
      CHECK(nestingProblem(s) == "");
      uint64_t adjusted = 0;
      std::set<uint32_t> seen;
      for (const Slice& x : s) {
        const Slice& o = original[x.index];
        seen.insert(x.index);
        // Only ever shortened, never moved outside its recorded bounds.
        CHECK(x.start >= o.start);
        CHECK(x.end <= o.end);
        CHECK((x.adjusted == 1) == (x.start != o.start || x.end != o.end));
        adjusted += x.adjusted;
      }
      CHECK(seen.size() == original.size());
      CHECK(changed == adjusted);
    }
  }
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
