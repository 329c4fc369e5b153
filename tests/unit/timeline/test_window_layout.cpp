// One window of the timeline laid out for both timeline formats: slices
// grouped by track, put on lanes in track order, carried across windows.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <vector>

#include "core/trace_store.h"
#include "timeline/track_layout.h"
#include "timeline/window_layout.h"

using namespace cuptitrace;

namespace {

// Tracks for the tests: one per host thread and per stream, numbered on
// first sight, each with the policy a timeline gives it.
struct TestTracks {
  std::map<uint64_t, uint32_t> index;
  std::vector<OverlapPolicy> policies;

  uint32_t add(uint64_t key, OverlapPolicy policy) {
    const auto [it, added] = index.try_emplace(key, static_cast<uint32_t>(policies.size()));
    if (added) policies.push_back(policy);
    return it->second;
  }
  uint32_t host(uint32_t tid) { return add(tid, OverlapPolicy::Nest); }
  uint32_t stream(uint32_t device, uint32_t stream, uint32_t) {
    return add(uint64_t{1} << 40 | uint64_t{device} << 20 | stream, OverlapPolicy::OneAtATime);
  }
  uint32_t sync(uint32_t context) { return add(uint64_t{2} << 40 | context, OverlapPolicy::Nest); }
  uint32_t overhead() { return add(uint64_t{3} << 40, OverlapPolicy::Nest); }
  uint32_t nvtxRange(size_t, const NvtxRecord&) { return TimelineSlices::kNoTrack; }
};

void addKernel(TraceStore& store, uint64_t start, uint64_t end, uint32_t stream = 7) {
  KernelRecord k{};
  k.start = start;
  k.end = end;
  k.contextId = 1;
  k.streamId = stream;
  store.add(k);
}

void addApi(TraceStore& store, uint64_t start, uint64_t end, uint32_t tid,
            ApiDomain domain = ApiDomain::Runtime) {
  ApiRecord r{};
  r.start = start;
  r.end = end;
  r.threadId = tid;
  r.domain = static_cast<uint8_t>(domain);
  store.add(r);
}

void addRange(TraceStore& store, uint64_t start, uint64_t end, uint32_t tid, uint16_t depth) {
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::PushPop);
  n.start = start;
  n.end = end;
  n.threadId = tid;
  n.endThreadId = tid;
  n.depth = depth;
  store.add(n);
}

// Every window laid out in order: each track's slices as the formats walk them.
struct LaidOut {
  std::vector<std::vector<Slice>> byTrack;
  std::vector<uint32_t> lanes;
  LaneStats stats;
  size_t windows = 0;
};

LaidOut layOutAll(const TraceStore& store, size_t windowSlices) {
  TestTracks tracks;
  WindowLayout layout(store);
  layout.planWindows(tracks, windowSlices);
  layout.setTracks(tracks.policies.size(), [&](size_t t) { return tracks.policies[t]; });
  LaidOut out;
  out.byTrack.resize(tracks.policies.size());
  out.windows = layout.windows();
  for (size_t w = 0; w < layout.windows(); ++w) {
    layout.layOut(tracks, w);
    REQUIRE(layout.tracks() == tracks.policies.size());
    for (size_t t = 0; t < layout.tracks(); ++t) {
      for (size_t i = layout.first(t); i < layout.end(t); ++i) {
        const Slice& s = layout.slice(i);
        CHECK(s.start >= layout.windowStart(w));
        CHECK((s.start < layout.windowEnd(w) || layout.windowEnd(w) == UINT64_MAX));
        out.byTrack[t].push_back(s);
      }
    }
  }
  for (size_t t = 0; t < layout.tracks(); ++t) out.lanes.push_back(layout.lanes(t));
  out.stats = layout.laneStats();
  return out;
}

bool sameSlice(const Slice& a, const Slice& b) {
  return a.start == b.start && a.end == b.end && a.index == b.index && a.tie == b.tie &&
         a.source == b.source && a.lane == b.lane;
}

}  // namespace

TEST_CASE("window layout: overlapping work on a stream goes on lanes, times exact",
          "[window_layout]") {
  TraceStore store;
  addKernel(store, 100, 300);
  addKernel(store, 200, 400);  // while the first runs
  addKernel(store, 350, 500);  // the first has ended: back on the track
  addKernel(store, 450, 600);  // the third runs, the second has ended
  const LaidOut out = layOutAll(store, kDefaultWindowSlices);
  REQUIRE(out.byTrack.size() == 1);
  const std::vector<Slice>& s = out.byTrack[0];
  REQUIRE(s.size() == 4);
  const uint64_t starts[] = {100, 200, 350, 450};
  const uint64_t ends[] = {300, 400, 500, 600};
  const uint8_t lanes[] = {0, 1, 0, 1};
  for (size_t i = 0; i < 4; ++i) {
    CHECK(s[i].index == i);
    CHECK(s[i].start == starts[i]);
    CHECK(s[i].end == ends[i]);
    CHECK(s[i].lane == lanes[i]);
  }
  CHECK(out.lanes[0] == 2);
  CHECK(out.stats.maxLanes == 2);
  CHECK(out.stats.laneTracks == 1);
  CHECK(out.stats.clamped == 0);
}

TEST_CASE("window layout: work running all at once gets a lane each", "[window_layout]") {
  TraceStore store;
  for (uint32_t i = 0; i < 40; ++i) addKernel(store, 1000 + i, 5000 - i);
  addKernel(store, 6000, 7000, 9);  // another stream, alone
  const LaidOut out = layOutAll(store, kDefaultWindowSlices);
  REQUIRE(out.byTrack.size() == 2);
  const std::vector<Slice>& s = out.byTrack[0];
  REQUIRE(s.size() == 40);
  for (uint32_t i = 0; i < 40; ++i) {
    CHECK(s[i].index == i);
    CHECK(s[i].lane == i);
    CHECK(s[i].start == 1000 + i);
    CHECK(s[i].end == 5000 - i);  // inside the one before, on a stream still its own lane
  }
  CHECK(out.lanes[0] == 40);
  CHECK(out.lanes[1] == 1);
  CHECK(out.stats.maxLanes == 40);
  CHECK(out.stats.laneTracks == 39);
  CHECK(out.stats.clamped == 0);
}

TEST_CASE("window layout: heavy overlap opens only as many lanes as run at once",
          "[window_layout]") {
  // 1000 kernels of 250 ns every 100 ns: at most 3 run at once. They arrive
  // nearly in order, some neighbours swapped.
  std::mt19937_64 rng(11);
  std::vector<uint32_t> order(1000);
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t i = 1; i < order.size(); ++i)
    if (rng() % 4 == 0) std::swap(order[i - 1], order[i]);
  TraceStore store;
  for (const uint32_t i : order) addKernel(store, 10000 + uint64_t{i} * 100, 10250 + uint64_t{i} * 100);
  for (const size_t windowSlices : {kDefaultWindowSlices, size_t{64}, size_t{5}}) {
    const LaidOut out = layOutAll(store, windowSlices);
    if (windowSlices != kDefaultWindowSlices) CHECK(out.windows > 2);
    REQUIRE(out.byTrack.size() == 1);
    const std::vector<Slice>& s = out.byTrack[0];
    REQUIRE(s.size() == 1000);
    for (size_t i = 0; i < s.size(); ++i) {
      CHECK(s[i].start == 10000 + i * 100);
      CHECK(s[i].end == s[i].start + 250);  // nothing shortened
      CHECK(s[i].lane == i % 3);
    }
    CHECK(out.lanes[0] == 3);
    CHECK(out.stats.maxLanes == 3);
    CHECK(out.stats.clamped == 0);
  }
}

TEST_CASE("window layout: calls nest on a host thread, a partial overlap takes a lane",
          "[window_layout]") {
  TraceStore store;
  addApi(store, 200, 800, 42, ApiDomain::Driver);  // made by the runtime call around it
  addApi(store, 100, 1000, 42);
  addApi(store, 900, 1500, 42);  // starts inside the runtime call, ends after it
  addApi(store, 1000, 1100, 42);  // starts where the runtime call ends: no overlap
  addRange(store, 50, 1200, 42, 0);
  addRange(store, 100, 1000, 42, 1);  // the same bounds as the runtime call: around it
  const LaidOut out = layOutAll(store, kDefaultWindowSlices);
  REQUIRE(out.byTrack.size() == 1);
  const std::vector<Slice>& s = out.byTrack[0];
  REQUIRE(s.size() == 6);
  CHECK(s[0].source == SliceSource::Nvtx);
  CHECK(s[0].start == 50);
  CHECK(s[1].source == SliceSource::Nvtx);
  CHECK(s[1].tie == 1);
  CHECK(s[2].source == SliceSource::ApiRuntime);
  CHECK(s[3].source == SliceSource::ApiDriver);
  for (size_t i = 0; i < 4; ++i) CHECK(s[i].lane == 0);
  CHECK(s[4].start == 900);
  CHECK(s[4].end == 1500);
  CHECK(s[4].lane == 1);
  CHECK(s[5].start == 1000);
  CHECK(s[5].lane == 0);  // after the runtime call, inside the outer range: back on the track
  CHECK(out.lanes[0] == 2);
  CHECK(out.stats.clamped == 0);
}

TEST_CASE("window layout: the same lanes in one window or many", "[window_layout]") {
  // Calls on two threads (runtime around driver, some partly overlapping),
  // NVTX ranges around some, kernels on two streams that sometimes overlap
  // and some running long across many windows.
  std::mt19937_64 rng(3);
  TraceStore store;
  uint64_t now = 1000;
  for (uint32_t i = 0; i < 3000; ++i) {
    const uint32_t tid = i % 3 == 0 ? 43 : 42;
    now += 100 + rng() % 300;
    const uint64_t end = now + 100 + rng() % 400;
    if (i % 40 == 0) addRange(store, now - 10, end + rng() % 3000, tid, 0);
    addApi(store, now, end, tid);
    addApi(store, now + 10, end - 10 + (rng() % 8 == 0 ? 50 : 0), tid, ApiDomain::Driver);
    const uint64_t start = end + rng() % 2000;
    const uint64_t length = i % 500 == 0 ? 100000 : 50 + rng() % 600;
    addKernel(store, start, start + length, 7 + 2 * (i % 2));
  }
  const LaidOut whole = layOutAll(store, kDefaultWindowSlices);
  CHECK(whole.windows == 1);
  CHECK(whole.stats.laneTracks > 2);  // lanes on streams and threads
  for (const size_t windowSlices : {size_t{1000}, size_t{97}, size_t{3}}) {
    const LaidOut windowed = layOutAll(store, windowSlices);
    CHECK(windowed.windows > 5);
    REQUIRE(windowed.byTrack.size() == whole.byTrack.size());
    for (size_t t = 0; t < whole.byTrack.size(); ++t) {
      REQUIRE(windowed.byTrack[t].size() == whole.byTrack[t].size());
      size_t differ = 0;
      for (size_t i = 0; i < whole.byTrack[t].size(); ++i)
        differ += sameSlice(windowed.byTrack[t][i], whole.byTrack[t][i]) ? 0 : 1;
      CHECK(differ == 0);
    }
    CHECK(windowed.lanes == whole.lanes);
    CHECK(windowed.stats.maxLanes == whole.stats.maxLanes);
    CHECK(windowed.stats.laneTracks == whole.stats.laneTracks);
    CHECK(windowed.stats.clamped == whole.stats.clamped);
  }
}

TEST_CASE("window layout: each track with slices handed over once laid out, in order",
          "[window_layout]") {
  TraceStore store;
  addApi(store, 100, 900, 42);
  addKernel(store, 300, 700, 9);
  addKernel(store, 200, 600, 9);  // overlaps the one after it: a lane
  addApi(store, 5000, 5100, 43);  // in a later window only
  TestTracks tracks;
  WindowLayout layout(store);
  layout.planWindows(tracks, 3);
  layout.setTracks(tracks.policies.size(), [&](size_t t) { return tracks.policies[t]; });
  REQUIRE(layout.windows() == 2);
  std::vector<size_t> handed;
  layout.layOut(tracks, 0, [&](size_t t) {
    handed.push_back(t);
    for (size_t i = layout.first(t); i + 1 < layout.end(t); ++i)
      CHECK(inTrackOrder(layout.slice(i), layout.slice(i + 1)));
  });
  // Tracks are numbered as read: calls first (threads 42, 43), then kernels.
  const size_t stream = tracks.stream(0, 9, 0);
  CHECK(stream == 2);
  CHECK(handed == std::vector<size_t>{0, stream});  // not thread 43's: nothing in this window
  REQUIRE(layout.end(stream) - layout.first(stream) == 2);
  CHECK(layout.slice(layout.first(stream)).start == 200);
  CHECK(layout.slice(layout.first(stream) + 1).lane == 1);
  handed.clear();
  layout.layOut(tracks, 1, [&](size_t t) { handed.push_back(t); });
  CHECK(handed == std::vector<size_t>{1});
}
