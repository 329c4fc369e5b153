// Chrome JSON exporter, where events go: the processes and tracks of the
// trace, their names and order, and the lanes that keep every track's slices
// nested as Perfetto needs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "chrome_json_fixture.h"
#include "core/trace.h"
#include "timeline/track_layout.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::chrome;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addGraphBranchReplays;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::initTrace;
using nlohmann::json;

namespace {
// Empty when the X slices of every (pid, tid) nest as Perfetto needs (any two
// disjoint, touching allowed, or one inside the other); else the first problem.
std::string partialOverlap(const json& events) {
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> tracks;
  for (const json& e : events) {
    if (e.at("ph") != "X") continue;
    const int64_t start = ns(e.at("ts"));
    tracks[{e.at("pid").get<int64_t>(), e.at("tid").get<int64_t>()}].push_back(
        {start, start + ns(e.at("dur"))});
  }
  for (auto& [track, list] : tracks) {
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<int64_t> open;
    for (const auto& [start, end] : list) {
      while (!open.empty() && open.back() <= start) open.pop_back();
      if (!open.empty() && end > open.back())
        return "track " + std::to_string(track.first) + "/" + std::to_string(track.second) +
               ": slice [" + std::to_string(start) + "," + std::to_string(end) +
               "] overlaps one ending at " + std::to_string(open.back());
      open.push_back(end);
    }
  }
  return {};
}

}  // namespace

TEST_CASE("chrome json: processes and tracks carry their names") {
  const Exported e = exportSample();
  const json& ev = e.events();
  CHECK(nameOf(ev, "process_name", kHostPid, kHostPid) == "sample_app");
  CHECK(nameOf(ev, "process_name", kGpuPid, kGpuPid) ==
        "GPU 0: NVIDIA H100 80GB HBM3 (CC 9.0, 132 SMs, 85.0 GiB, 1980 MHz)");
  CHECK(nameOf(ev, "thread_name", kHostPid, 4242) == "Main thread");
  CHECK(nameOf(ev, "thread_name", kHostPid, 4243) == "worker");
  CHECK(nameOf(ev, "thread_name", kHostPid, kOverheadTid) == "CUPTI overhead");
  CHECK(nameOf(ev, "thread_name", kGpuPid, 7) == "Stream 7");
  CHECK(nameOf(ev, "thread_name", kGpuPid, 9) == "copy \"stream\"");
  CHECK(nameOf(ev, "thread_name", kGpuPid, syncTrackTid(1)) == "Synchronization (context 1)");

  // GPUs sort after the host.
  auto sortIndex = [&](uint32_t pid) {
    auto found = where(
        ev, [&](const json& x) { return x["name"] == "process_sort_index" && x["pid"] == pid; });
    REQUIRE(found.size() == 1);
    return found[0]["args"]["sort_index"].get<int64_t>();
  };
  CHECK(sortIndex(kHostPid) < sortIndex(kGpuPid));

  // Work sits on its stream's track of its GPU's process; calls on their thread.
  json k3 = sliceByCorrelation(ev, "kernel", 13);
  CHECK(k3["pid"] == kGpuPid);
  CHECK(k3["tid"] == 9);
  json call = sliceByCorrelation(ev, "cuda_runtime", 13);
  CHECK(call["pid"] == kHostPid);
  CHECK(call["tid"] == 4243);
}

TEST_CASE("chrome json: a device named with NVTX keeps its name; an unknown one gets its id") {
  Trace t;
  initTrace(t);
  t.deviceNames[0] = "trainer GPU";
  addKernel(t, t.meta.baseTimestampNs + 10, t.meta.baseTimestampNs + 20, 1);
  KernelRecord k{};
  k.start = t.meta.baseTimestampNs + 10;
  k.end = k.start + 5;
  k.deviceId = 3;
  k.streamId = 1;
  t.store.add(k);
  const Exported e = exportTrace(t);
  CHECK(nameOf(e.events(), "process_name", gpuProcessId(kHostPid, 0), gpuProcessId(kHostPid, 0)) ==
        "GPU 0: trainer GPU (CC 9.0, 132 SMs, 85.0 GiB, 1980 MHz)");
  CHECK(nameOf(e.events(), "process_name", gpuProcessId(kHostPid, 3), gpuProcessId(kHostPid, 3)) ==
        "GPU 3");
}

TEST_CASE("chrome json: the overlap checker finds a partial overlap") {
  json bad = json::parse(R"([
    {"ph":"X","pid":1,"tid":1,"ts":0.0,"dur":1.0},
    {"ph":"X","pid":1,"tid":1,"ts":0.5,"dur":1.0}])");
  CHECK(partialOverlap(bad) != "");
  json good = json::parse(R"([
    {"ph":"X","pid":1,"tid":1,"ts":0.0,"dur":1.0},
    {"ph":"X","pid":1,"tid":2,"ts":0.5,"dur":1.0},
    {"ph":"X","pid":1,"tid":1,"ts":1.0,"dur":1.0}])");
  CHECK(partialOverlap(good) == "");
}

TEST_CASE("chrome json: slices on every track of the sample nest properly") {
  const Exported e = exportSample();
  CHECK(partialOverlap(e.events()) == "");
  CHECK(e.stats.clamped == 0);
  CHECK(e.meta()["clamped_slices"] == 0);
  // The memset runs inside the copy on stream 9: concurrent work, on the stream's second lane.
  const json set = sliceByCorrelation(e.events(), "gpu_memset", 15);
  CHECK_FALSE(set["args"].contains("clamped_ns"));
  CHECK(set["tid"] == laneTid(9, 1));
  CHECK(sliceByCorrelation(e.events(), "gpu_memcpy", 14)["tid"] == 9);
  CHECK(e.meta()["max_lanes"] == 2);
  CHECK(e.meta()["lane_tracks"] == 1);
}

TEST_CASE("chrome json: overlapping kernels on one stream go on lanes with their own times") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 100, b + 300, 1);
  addKernel(t, b + 200, b + 400, 2);     // runs with the first
  addKernel(t, b + 250, b + 350, 3, 8);  // another stream: no conflict
  addKernel(t, b + 300, b + 500, 4);     // the first has ended: its lane again
  const Exported e = exportTrace(t);
  CHECK(partialOverlap(e.events()) == "");
  CHECK(e.stats.clamped == 0);
  CHECK(e.meta()["clamped_slices"] == 0);
  CHECK(e.meta()["max_lanes"] == 2);
  CHECK(e.meta()["lane_tracks"] == 1);
  CHECK(e.stats.laneTracks == 1);
  const uint64_t starts[] = {100, 200, 250, 300}, ends[] = {300, 400, 350, 500};
  const int64_t tids[] = {7, laneTid(7, 1), 8, 7};
  for (uint32_t c = 1; c <= 4; ++c) {
    const json k = sliceByCorrelation(e.events(), "kernel", c);
    INFO("kernel " << c);
    CHECK(ns(k["ts"]) == starts[c - 1]);
    CHECK(ns(k["dur"]) == ends[c - 1] - starts[c - 1]);
    CHECK(k["tid"] == tids[c - 1]);
    CHECK_FALSE(k["args"].contains("clamped_ns"));
  }
  // The lane is named after its stream and sorts right under it.
  const json& ev = e.events();
  auto meta = [&](const char* name, int64_t tid) {
    for (const json& x : ev)
      if (x["ph"] == "M" && x["name"] == name && x["pid"] == kGpuPid && x["tid"] == tid)
        return x["args"];
    return json();
  };
  CHECK(meta("thread_name", laneTid(7, 1))["name"] == "Stream 7 \u00b72");
  const int64_t s7 = meta("thread_sort_index", 7)["sort_index"];
  CHECK(meta("thread_sort_index", laneTid(7, 1))["sort_index"] == s7 + 1);
  CHECK(meta("thread_sort_index", 8)["sort_index"] == s7 + 2);
}

TEST_CASE("chrome json: a graph's branches get a lane each and an arrow each from its launch") {
  Trace t;
  initTrace(t);
  addGraphBranchReplays(t);
  const Exported e = exportTrace(t);
  CHECK(partialOverlap(e.events()) == "");
  CHECK(e.meta()["max_lanes"] == 12);
  CHECK(e.meta()["lane_tracks"] == 11);
  CHECK(e.meta()["clamped_slices"] == 0);
  std::map<uint64_t, json> sources;  // bind_id -> the call
  for (const json& x : e.events())
    if (x.value("flow_out", false)) sources[x.at("bind_id").get<uint64_t>()] = x;
  CHECK(sources.size() == 3);
  std::set<int64_t> tids;
  std::map<uint64_t, int> ends;  // bind_id -> kernels it reaches
  const std::vector<json> kernels = slices(e.events(), "kernel");
  REQUIRE(kernels.size() == 36);
  for (const json& k : kernels) {
    const uint64_t start = ns(k["ts"]);
    const uint64_t replay = start / 10000, branch = start % 10000 - 10;
    INFO("replay " << replay << " branch " << branch);
    CHECK(ns(k["dur"]) == 1000 + 300 * branch - 10 - branch);
    CHECK(k["tid"] == laneTid(7, static_cast<uint32_t>(branch)));  // each replay reuses the lanes
    tids.insert(k["tid"].get<int64_t>());
    // Its arrow: from the launch of its replay, one source for the 12 ends.
    REQUIRE(k.value("flow_in", false));
    const uint64_t id = k["bind_id"].get<uint64_t>();
    REQUIRE(sources.count(id) == 1);
    CHECK(sources[id]["args"]["correlation"] == 100 + replay);
    ++ends[id];
  }
  CHECK(tids.size() == 12);
  REQUIRE(ends.size() == 3);
  for (const auto& [id, n] : ends) CHECK(n == 12);
  CHECK(e.stats.flows == 36);
}

TEST_CASE("chrome json: a call that outlives its enclosing range goes on a lane, untouched") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addNvtx(t, NvtxType::PushPop, b + 100, b + 300, "range");
  addApi(t, b + 200, b + 400, 1);
  const Exported e = exportTrace(t);
  CHECK(partialOverlap(e.events()) == "");
  CHECK(e.meta()["clamped_slices"] == 0);
  json call = slices(e.events(), "cuda_runtime").at(0);
  CHECK(ns(call["ts"]) == 200);
  CHECK(ns(call["dur"]) == 200);
  CHECK_FALSE(call["args"].contains("clamped_ns"));
  CHECK(call["tid"] == laneTid(kHostPid, 1));
}

TEST_CASE("chrome json: syncs go to their context's device, device 0 when unknown") {
  Trace t;
  initTrace(t);
  t.contexts.push_back({2, 1, 0});
  const uint64_t b = t.meta.baseTimestampNs;
  SyncRecord sync{};
  sync.start = b + 10;
  sync.end = b + 20;
  sync.contextId = 2;
  sync.streamId = sync.eventId = 0xffffffffu;
  sync.type = static_cast<uint8_t>(SyncType::ContextSynchronize);
  t.store.add(sync);
  sync.contextId = 70000;  // not in trace.contexts
  sync.eventId = 3;
  sync.type = static_cast<uint8_t>(SyncType::EventSynchronize);
  t.store.add(sync);
  const Exported e = exportTrace(t);
  json known = where(e.events(), [](const json& x) {
                 return x.value("name", "") == "ContextSynchronize";
               }).at(0);
  CHECK(known["pid"] == gpuProcessId(kHostPid, 1));
  CHECK(known["tid"] == syncTrackTid(2));
  CHECK_FALSE(known["args"].contains("stream"));
  json unknown = where(e.events(), [](const json& x) {
                   return x.value("name", "") == "EventSynchronize";
                 }).at(0);
  CHECK(unknown["pid"] == gpuProcessId(kHostPid, 0));
  CHECK(unknown["args"]["event"] == 3);
  CHECK(nameOf(e.events(), "thread_name", gpuProcessId(kHostPid, 0), syncTrackTid(70000)) ==
        "Synchronization (context 70000)");
  CHECK(nameOf(e.events(), "process_name", gpuProcessId(kHostPid, 1), gpuProcessId(kHostPid, 1)) ==
        "GPU 1");
}
