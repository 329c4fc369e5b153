// Where the .pftrace puts things: processes, threads and streams with
// their names, NVTX ranges on their threads, and the lanes that overlapping
// ranges, kernels and graph branches get.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/trace.h"
#include "pftrace_readback.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::pftrace;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addGraphBranchReplays;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::initTrace;
using cuptitrace::testing::kUtf8Message;

TEST_CASE("pftrace: processes, threads and streams carry their names", "[pftrace]") {
  const Decoded d = exportSample();
  const TrackInfo* host = d.processTrack(kHostPid);
  REQUIRE(host != nullptr);
  CHECK(host->processName == "sample_app");
  CHECK(host->cmdline == "./sample_app --flag \"x\"");
  const TrackInfo* gpu = d.processTrack(kGpuPid);
  REQUIRE(gpu != nullptr);
  CHECK(gpu->processName == "GPU 0: NVIDIA H100 80GB HBM3 (CC 9.0, 132 SMs, 85.0 GiB, 1980 MHz)");
  CHECK(gpu->childOrdering == 3);  // EXPLICIT: streams by id

  const TrackInfo* main = d.trackNamed(kHostPid, "Main thread");
  REQUIRE(main != nullptr);
  CHECK(main->thread);
  CHECK(main->tid == kHostPid);
  const TrackInfo* worker = d.trackNamed(kHostPid, "worker");
  REQUIRE(worker != nullptr);
  CHECK(worker->tid == 4243);
  const TrackInfo* overhead = d.trackNamed(kHostPid, "CUPTI overhead");
  REQUIRE(overhead != nullptr);
  CHECK(overhead->merge == 2);
  const TrackInfo* stream7 = d.trackNamed(kGpuPid, "Stream 7");
  REQUIRE(stream7 != nullptr);
  CHECK(stream7->parent == gpu->uuid);
  CHECK(stream7->rank == 7);
  CHECK(stream7->merge == 2);  // NONE: streams never merge, whatever NVTX names them
  const TrackInfo* stream9 = d.trackNamed(kGpuPid, "copy \"stream\"");
  REQUIRE(stream9 != nullptr);
  CHECK(stream9->rank == 9);
  CHECK(stream9->merge == 2);
  const TrackInfo* sync = d.trackNamed(kGpuPid, "Synchronization (context 1)");
  REQUIRE(sync != nullptr);
  CHECK(sync->merge == 2);
  const TrackInfo* async = d.trackNamed(kHostPid, "async range");
  REQUIRE(async != nullptr);
  CHECK(async->parent == host->uuid);

  // Work sits on its stream of its GPU; calls on their thread.
  CHECK(d.sliceByCorrelation("kernel", 13).begin.track == stream9->uuid);
  CHECK(d.sliceByCorrelation("kernel", 11).begin.track == stream7->uuid);
  CHECK(d.sliceByCorrelation("cuda_runtime", 13).begin.track == worker->uuid);
  CHECK(d.sliceByCorrelation("cuda_sync", 16).begin.track == sync->uuid);
  CHECK(d.slicesOf("overhead").at(0).begin.track == overhead->uuid);
}

TEST_CASE("pftrace: NVTX ranges, marks and start/end ranges", "[pftrace]") {
  const Decoded d = exportSample();
  const SliceOut outer = d.slicesNamed("outer").at(0);
  CHECK(outer.begin.args.at("color").s == "#FF00FF00");
  CHECK(outer.begin.args.at("depth").u == 0);
  CHECK(d.nameOf(outer.begin.track) == "Main thread");
  CHECK(outer.end - outer.begin.ts == 49500);
  const SliceOut inner = d.slicesNamed(kUtf8Message).at(0);
  CHECK(inner.depth == 1);
  CHECK(inner.begin.args.at("category").u == 3);

  const Event& mark = d.instants.at(1);
  CHECK(mark.ts == 1'000'007'000ull);
  CHECK(d.nameOf(mark.track) == "worker");

  const SliceOut range = d.slicesNamed("async range").at(0);
  CHECK(range.begin.ts == 1'000'002'000ull);
  CHECK(range.end == 1'000'035'000ull);
  CHECK(range.begin.args.at("range_id").u == 77);
  CHECK(range.begin.args.at("thread").u == 4242);
  CHECK(range.begin.args.at("end_thread").u == 4243);
  CHECK(d.track(range.begin.track).parent == d.processTrack(kHostPid)->uuid);
}

TEST_CASE("pftrace: overlapping start/end ranges go on lanes of their name", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addNvtx(t, NvtxType::StartEnd, b + 100, b + 300, "load");
  addNvtx(t, NvtxType::StartEnd, b + 200, b + 400, "load");  // overlaps the first
  addNvtx(t, NvtxType::StartEnd, b + 300, b + 350, "load");  // fits after the first
  addNvtx(t, NvtxType::StartEnd, b + 150, b + 250, "step");  // another name
  addNvtx(t, NvtxType::StartEnd, b + 500, b + 500, "load");  // empty: an instant
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  const auto loads = d.slicesNamed("load");
  REQUIRE(loads.size() == 3);
  std::set<uint64_t> lanes;
  for (const SliceOut& s : loads) {
    lanes.insert(s.begin.track);
    CHECK(d.nameOf(s.begin.track) == "load");
    CHECK(s.depth == 0);
  }
  CHECK(lanes.size() == 2);
  auto startingAt = [&](uint64_t ts) {
    for (const SliceOut& s : loads)
      if (s.begin.ts == ts) return s.begin.track;
    FAIL("no range starts at " << ts);
    return uint64_t{0};
  };
  CHECK(startingAt(b + 100) != startingAt(b + 200));
  CHECK(startingAt(b + 100) == startingAt(b + 300));
  const SliceOut step = d.slicesNamed("step").at(0);
  CHECK(lanes.count(step.begin.track) == 0);
  REQUIRE(d.instants.size() == 2);
  CHECK(d.instants[1].name == "load");
  CHECK(d.instants[1].ts == b + 500);
  // Lanes of one name keep the default merge: one track in the UI.
  for (uint64_t lane : lanes) CHECK(d.track(lane).merge == 0);
}

TEST_CASE("pftrace: overlapping kernels on one stream go on lanes with their own times",
          "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 100, b + 300, 1);
  addKernel(t, b + 200, b + 400, 2);     // runs with the first
  addKernel(t, b + 250, b + 350, 3, 8);  // another stream: no conflict
  addKernel(t, b + 300, b + 500, 4);     // the first has ended: its lane again
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.stats.clamped == 0);
  CHECK(d.stats.maxLanes == 2);
  CHECK(d.stats.laneTracks == 1);
  const uint64_t stream7 = d.sliceByCorrelation("kernel", 1).begin.track;
  const uint64_t starts[] = {100, 200, 250, 300}, ends[] = {300, 400, 350, 500};
  for (uint32_t c = 1; c <= 4; ++c) {
    const SliceOut k = d.sliceByCorrelation("kernel", c);
    INFO("kernel " << c);
    CHECK(k.begin.ts == b + starts[c - 1]);
    CHECK(k.end == b + ends[c - 1]);
    CHECK(k.depth == 0);
    CHECK_FALSE(k.begin.args.count("clamped_ns"));
  }
  const TrackInfo& lane = d.track(d.sliceByCorrelation("kernel", 2).begin.track);
  CHECK(lane.name == "Stream 7 \u00b72");
  CHECK(lane.parent == stream7);  // a child of the stream: shown under it
  CHECK(lane.rank == 1);
  CHECK(lane.merge == 2);                      // never merged with another lane
  CHECK(d.track(stream7).childOrdering == 3);  // explicit: lanes in order
  CHECK(d.sliceByCorrelation("kernel", 4).begin.track == stream7);
  REQUIRE(d.layouts.size() == 1);
  CHECK(d.layouts[0].args.at("clamped_slices").u == 0);
  CHECK(d.layouts[0].args.at("max_lanes").u == 2);
  CHECK(d.layouts[0].args.at("lane_tracks").u == 1);
}

TEST_CASE("pftrace: a graph's branches get a lane each and an arrow each from its launch",
          "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addGraphBranchReplays(t);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.stats.maxLanes == 12);
  CHECK(d.stats.laneTracks == 11);
  CHECK(d.stats.clamped == 0);
  CHECK(d.stats.flows == 36);
  std::map<uint64_t, std::set<uint64_t>> tracksOfBranch;
  std::set<uint64_t> tracks;
  std::map<uint64_t, int> endsOfReplay;
  size_t kernels = 0;
  for (size_t i = 0; i < d.events.size(); ++i) {
    const Event& k = d.events[i];
    if (k.categories != std::vector<std::string>{"kernel"}) continue;
    ++kernels;
    const uint64_t replay = (k.ts - b) / 10000, branch = (k.ts - b) % 10000 - 10;
    INFO("replay " << replay << " branch " << branch);
    tracksOfBranch[branch].insert(k.track);
    tracks.insert(k.track);
    // Its arrow: from the launch of its replay, one source for the 12 ends.
    const Event* from = d.arrowInto(i);
    REQUIRE(from != nullptr);
    CHECK(from->name == "cudaGraphLaunch");
    CHECK(from->args.at("correlation").u == 100 + replay);
    CHECK(k.args.at("correlation").u == 100 + replay);
    ++endsOfReplay[replay];
  }
  CHECK(kernels == 36);
  for (const SliceOut& s : d.slicesOf("kernel")) {
    const uint64_t branch = (s.begin.ts - b) % 10000 - 10;
    CHECK(s.end - s.begin.ts == 1000 + 300 * branch - 10 - branch);
    CHECK(s.depth == 0);
  }
  CHECK(tracks.size() == 12);
  for (const auto& [branch, of] : tracksOfBranch) CHECK(of.size() == 1);  // replays reuse the lanes
  REQUIRE(endsOfReplay.size() == 3);
  for (const auto& [replay, n] : endsOfReplay) CHECK(n == 12);
}

TEST_CASE("pftrace: a slice ending where the next begins is closed first", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 100, b + 200, 1);
  addKernel(t, b + 200, b + 300, 2);
  addKernel(t, b + 300, b + 400, 3);
  addKernel(t, b + 300, b + 300, 4);  // empty, at the start of another: nested in it
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  std::vector<std::pair<uint64_t, uint64_t>> order;  // (ts, type) in file order
  for (const Event& e : d.events)
    if (e.categories == std::vector<std::string>{"kernel"} || e.type == f::kEnd)
      order.push_back({e.ts - b, e.type});
  const std::vector<std::pair<uint64_t, uint64_t>> expected = {
      {100, f::kBegin}, {200, f::kEnd},   {200, f::kBegin}, {300, f::kEnd},
      {300, f::kBegin}, {300, f::kBegin}, {300, f::kEnd},   {400, f::kEnd}};
  CHECK(order == expected);
  for (const SliceOut& s : d.slicesOf("kernel"))
    CHECK(s.depth == (s.begin.args.at("correlation").u == 4 ? 1 : 0));
  CHECK(d.sliceByCorrelation("kernel", 2).end == b + 300);
  CHECK(d.stats.clamped == 0);
}
