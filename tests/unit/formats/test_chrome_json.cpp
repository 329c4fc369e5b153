// Chrome JSON exporter: write the synthetic trace (and small hand-made ones),
// parse the output back with nlohmann_json, and check what Perfetto and the
// GPU tests rely on.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/demangle.h"
#include "core/trace.h"
#include "formats/chrome_json.h"
#include "timeline/track_layout.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::addUsualAndUnusualLaunch;
using cuptitrace::testing::fillSampleTrace;
using cuptitrace::testing::initTrace;
using cuptitrace::testing::kHostileKernelName;
using cuptitrace::testing::kUtf8Message;
using cuptitrace::testing::longTemplateName;
using nlohmann::json;

namespace {

constexpr uint32_t kHostPid = cuptitrace::testing::kSamplePid;
const uint32_t kGpuPid = gpuProcessId(kHostPid, 0);

struct Exported {
  std::string text;
  json doc;
  JsonExportStats stats;
  const json& events() const { return doc.at("traceEvents"); }
  json meta() const { return doc.at("metadata"); }  // a copy: [] on it never hits a missing key
};

Exported exportTrace(const Trace& trace) {
  std::ostringstream out;
  Exported e;
  e.stats = writeChromeJson(trace, out);
  e.text = out.str();
  e.doc = json::parse(e.text);  // throws, failing the test, on invalid JSON or UTF-8
  return e;
}

Exported exportSample() {
  Trace t;
  fillSampleTrace(t);
  return exportTrace(t);
}

// Microseconds back to ns as Perfetto reads them (rounded to the nanosecond).
int64_t ns(const json& micros) { return std::llround(micros.get<double>() * 1000.0); }

std::vector<json> where(const json& events, const std::function<bool(const json&)>& pred) {
  std::vector<json> out;
  for (const json& e : events)
    if (pred(e)) out.push_back(e);
  return out;
}
std::vector<json> slices(const json& events, const std::string& cat) {
  return where(events, [&](const json& e) { return e["ph"] == "X" && e.value("cat", "") == cat; });
}
// The one X slice of `cat` whose args.correlation is `correlation`.
json sliceByCorrelation(const json& events, const std::string& cat, uint32_t correlation) {
  auto found = where(events, [&](const json& e) {
    return e["ph"] == "X" && e.value("cat", "") == cat &&
           e["args"].value("correlation", 0u) == correlation;
  });
  REQUIRE(found.size() == 1);
  return found[0];
}
// args.name of the metadata event `what` ("process_name", "thread_name") on (pid, tid).
std::string nameOf(const json& events, const std::string& what, uint32_t pid, uint32_t tid) {
  auto found = where(events, [&](const json& e) {
    return e["ph"] == "M" && e["name"] == what && e["pid"] == pid && e["tid"] == tid;
  });
  if (found.size() != 1) return "<" + std::to_string(found.size()) + " events>";
  return found[0]["args"]["name"].get<std::string>();
}

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

TEST_CASE("chrome json: the sample trace is one JSON object of well-formed events") {
  const Exported e = exportSample();
  REQUIRE(e.doc.is_object());
  REQUIRE(e.events().is_array());
  REQUIRE(e.meta().is_object());
  CHECK(e.events().size() == e.stats.events);
  for (const json& ev : e.events()) {
    INFO(ev.dump());
    // at() throws on a missing member, failing the test cleanly.
    CHECK(ev.at("ph").is_string());
    CHECK(ev.at("pid").is_number_integer());
    CHECK(ev.at("pid").get<int64_t>() >= 0);
    CHECK(ev.at("tid").is_number_integer());
    CHECK(ev.at("tid").get<int64_t>() >= 0);
    CHECK(ev.at("ts").is_number());
    CHECK(ev.at("name").is_string());
    if (ev.at("ph") == "X") {
      CHECK(ev.at("dur").is_number());
      CHECK(ev.at("dur").get<double>() >= 0);
      CHECK(ev.at("args").is_object());
    }
  }
}

TEST_CASE("chrome json: one event per drawn record, in its category") {
  const Exported e = exportSample();
  const json& ev = e.events();
  CHECK(slices(ev, "kernel").size() == 3);
  CHECK(slices(ev, "memcpy").size() == 2);
  CHECK(slices(ev, "memset").size() == 1);
  CHECK(slices(ev, "cuda_runtime").size() == 6);
  CHECK(slices(ev, "cuda_driver").size() == 1);
  CHECK(slices(ev, "nvtx").size() == 2);
  CHECK(slices(ev, "sync").size() == 1);
  CHECK(slices(ev, "overhead").size() == 1);
  auto nvtx = [&](const char* ph) {
    return where(ev, [&](const json& x) { return x["ph"] == ph && x.value("cat", "") == "nvtx"; })
        .size();
  };
  CHECK(nvtx("i") == 1);
  CHECK(nvtx("b") == 1);
  CHECK(nvtx("e") == 1);
  // Nothing else but the metadata events.
  const auto other = where(ev, [](const json& x) { return x["ph"] != "M"; });
  CHECK(other.size() == 3 + 2 + 1 + 6 + 1 + 2 + 1 + 1 + 3);
}

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

TEST_CASE("chrome json: every launch is linked to the GPU work it started") {
  const Exported e = exportSample();
  const json& ev = e.events();
  std::map<uint64_t, json> sources;
  std::multimap<uint64_t, json> targets;
  for (const json& x : ev) {
    if (x.value("flow_out", false)) {
      INFO(x.dump());
      CHECK(sources.count(x.at("bind_id").get<uint64_t>()) == 0);  // one source per id
      sources[x.at("bind_id").get<uint64_t>()] = x;
    }
    if (x.value("flow_in", false)) targets.insert({x.at("bind_id").get<uint64_t>(), x});
  }
  CHECK(sources.size() == 6);
  CHECK(targets.size() == 6);
  for (const auto& [id, x] : targets) CHECK(sources.count(id) == 1);
  for (const auto& [id, x] : sources) CHECK(targets.count(id) >= 1);

  // Each kernel, copy and set: a flow from the call with its correlation id.
  for (const char* cat : {"kernel", "memcpy", "memset"}) {
    for (json work : slices(ev, cat)) {
      INFO(work.dump());
      REQUIRE(work.value("flow_in", false));
      const uint64_t id = work["bind_id"].get<uint64_t>();
      CHECK(work["args"]["correlation"].get<uint64_t>() == id);
      REQUIRE(sources.count(id) == 1);
      CHECK(sources[id]["args"]["correlation"].get<uint64_t>() == id);
      CHECK(sources[id]["ph"] == "X");
      CHECK(sources[id]["pid"] == kHostPid);
    }
  }
  // Correlation 11 has a runtime and a driver call: the arrow leaves the runtime one.
  CHECK(sources[11]["cat"] == "cuda_runtime");
  CHECK_FALSE(sliceByCorrelation(ev, "cuda_driver", 11).contains("bind_id"));
  CHECK(e.stats.flows == 6);
  CHECK(e.meta()["flows"] == 6);
  // Every call slice says its correlation id, linked or not.
  for (const char* cat : {"cuda_runtime", "cuda_driver"})
    for (json call : slices(ev, cat)) CHECK(call["args"].contains("correlation"));
}

TEST_CASE("chrome json: a graph launch links each of its kernels") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 100, b + 200, 5, kHostPid, ApiDomain::Runtime, "cudaGraphLaunch");
  addKernel(t, b + 300, b + 400, 5);
  addKernel(t, b + 400, b + 500, 5);
  const Exported e = exportTrace(t);
  const auto out = where(e.events(), [](const json& x) { return x.value("flow_out", false); });
  const auto in = where(e.events(), [](const json& x) { return x.value("flow_in", false); });
  REQUIRE(out.size() == 1);
  REQUIRE(in.size() == 2);
  CHECK(in[0]["bind_id"] == out[0]["bind_id"]);
  CHECK(in[1]["bind_id"] == out[0]["bind_id"]);
  CHECK(e.stats.flows == 2);
}

TEST_CASE("chrome json: no flow is written with a missing end") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 100, b + 200, 1);  // its kernel was not collected (end 0)
  addKernel(t, b + 300, 0, 1);
  addApi(t, b + 400, b + 500, 2);     // launched nothing that was recorded
  addKernel(t, b + 600, b + 700, 3);  // its launch call was not recorded
  addApi(t, 0, b + 750, 4);           // launch call without a start
  addKernel(t, b + 800, b + 900, 4);
  const Exported e = exportTrace(t);
  for (const json& x : e.events()) {
    INFO(x.dump());
    CHECK_FALSE(x.contains("bind_id"));
  }
  CHECK(e.stats.flows == 0);
  CHECK(e.meta()["flows"] == 0);
}

TEST_CASE("chrome json: hostile names survive exactly") {
  const Exported e = exportSample();
  const json& ev = e.events();
  json k1 = sliceByCorrelation(ev, "kernel", 11);
  CHECK_FALSE(k1["args"].contains("mangled_name"));  // the CSV's
  CHECK(k1["name"] == demangle(kHostileKernelName));
  CHECK(sliceByCorrelation(ev, "kernel", 12)["name"] == longTemplateName());
  CHECK(sliceByCorrelation(ev, "kernel", 13)["name"] == "add(float*, float*, float*, int)");
  const auto utf8 = where(ev, [](const json& x) { return x.value("name", "") == kUtf8Message; });
  REQUIRE(utf8.size() == 1);
  CHECK(utf8[0]["ph"] == "X");
  CHECK(e.meta()["command_line"] == "./sample_app --flag \"x\"");
}

TEST_CASE("chrome json: invalid UTF-8 in names still gives valid JSON") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 10, b + 20, 0, 7, "bad\xFF\xFE name\xC3");
  addNvtx(t, NvtxType::PushPop, b + 5, b + 30, "cut \xE2\x82");
  t.threadNames[kHostPid] = "thread \xC0\xAF";
  t.meta.config = {{"CUPTITRACE_BAD\xFF", "v\xED\xA0\x80"}};
  const Exported e = exportTrace(t);  // parses: nlohmann rejects invalid UTF-8
  const std::string r = "\xEF\xBF\xBD";
  CHECK(slices(e.events(), "kernel").at(0)["name"] == "bad" + r + r + " name" + r);
  CHECK(slices(e.events(), "nvtx").at(0)["name"] == "cut " + r);
  CHECK(nameOf(e.events(), "thread_name", kHostPid, kHostPid) == "thread " + r + r);
  CHECK(e.meta()["config"]["CUPTITRACE_BAD" + r] == "v" + r + r + r);
}

TEST_CASE("chrome json: timestamps keep every nanosecond") {
  Trace t;
  initTrace(t);
  // A realistic absolute clock value: written as is, it would lose its ns.
  t.meta.baseTimestampNs = 1'700'000'000'123'456'789ull;
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 1, b + 1 + 1234567, 0);
  addApi(t, b + 2, b + 7'000'000'000'001ull, 1);  // lasts about 2 hours
  const Exported e = exportTrace(t);
  CHECK(e.text.find("\"ts\":0.001,\"dur\":1234.567") != std::string::npos);
  json k = slices(e.events(), "kernel").at(0);
  CHECK(ns(k["ts"]) == 1);
  CHECK(ns(k["dur"]) == 1234567);
  json call = slices(e.events(), "cuda_runtime").at(0);
  CHECK(ns(call["ts"]) == 2);
  CHECK(ns(call["dur"]) == 6'999'999'999'999ll);
  CHECK(e.meta()["base_timestamp_ns"].get<uint64_t>() == b);
}

TEST_CASE("chrome json: a record before the base moves the base, never below zero") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 1, b + 10, 0);
  addApi(t, b - 500, b + 5, 1);
  const Exported e = exportTrace(t);
  CHECK(e.meta()["base_timestamp_ns"].get<uint64_t>() == b - 500);
  CHECK(ns(slices(e.events(), "cuda_runtime").at(0)["ts"]) == 0);
  CHECK(ns(slices(e.events(), "kernel").at(0)["ts"]) == 501);
  for (const json& x : e.events()) CHECK(x.at("ts").get<double>() >= 0);
}

TEST_CASE("chrome json: without a base timestamp, times are relative to the earliest record") {
  Trace t;
  initTrace(t);
  t.meta.baseTimestampNs = 0;
  addKernel(t, 5'000'000'000'000'000'007ull, 5'000'000'000'000'000'010ull, 0);
  addApi(t, 5'000'000'000'000'000'002ull, 5'000'000'000'000'000'004ull, 1);
  const Exported e = exportTrace(t);
  CHECK(e.meta()["base_timestamp_ns"].get<uint64_t>() == 5'000'000'000'000'000'002ull);
  CHECK(ns(slices(e.events(), "kernel").at(0)["ts"]) == 5);
  CHECK(ns(slices(e.events(), "cuda_runtime").at(0)["ts"]) == 0);
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
  const json set = sliceByCorrelation(e.events(), "memset", 15);
  CHECK_FALSE(set["args"].contains("clamped_ns"));
  CHECK(set["tid"] == laneTid(9, 1));
  CHECK(sliceByCorrelation(e.events(), "memcpy", 14)["tid"] == 9);
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
  const uint64_t b = t.meta.baseTimestampNs;
  // 12 graph branches of different lengths, replayed 3 times on one stream;
  // each replay's kernels share the correlation id of its cudaGraphLaunch.
  for (uint32_t replay = 0; replay < 3; ++replay) {
    const uint64_t at = b + 10000 * replay;
    addApi(t, at, at + 5, 100 + replay, kHostPid, ApiDomain::Runtime, "cudaGraphLaunch");
    for (uint64_t branch = 0; branch < 12; ++branch)
      addKernel(t, at + 10 + branch, at + 1000 + 300 * branch, 100 + replay);
  }
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

TEST_CASE("chrome json: incomplete records are not drawn but counted") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 100, b + 200, 1);
  addKernel(t, b + 300, 0, 2);     // end not collected
  addKernel(t, 0, b + 500, 3);     // no start
  addApi(t, b + 600, b + 550, 4);  // end before start
  addNvtx(t, NvtxType::Mark, 0, 0, "lost mark");
  MemcpyRecord m{};
  m.start = b + 700;
  m.correlationId = 5;
  t.store.add(m);
  const Exported e = exportTrace(t);
  CHECK(e.meta()["incomplete_records"] == 5);
  CHECK(e.meta()["records"]["kernel"] == 3);
  const auto drawn = where(e.events(), [](const json& x) { return x["ph"] != "M"; });
  REQUIRE(drawn.size() == 1);
  CHECK(drawn[0]["args"]["correlation"] == 1);
}

TEST_CASE("chrome json: arguments of kernels, copies, sets, syncs and overhead") {
  const Exported e = exportSample();
  const json& ev = e.events();
  json k = sliceByCorrelation(ev, "kernel", 13)["args"];
  CHECK(k["grid"] == "[128,1,1]");
  CHECK(k["block"] == "[256,1,1]");
  CHECK(k["registers"] == 32);
  CHECK(k["static_smem"] == 1024);
  CHECK(k["dynamic_smem"] == 0);
  CHECK(k["correlation"] == 13);
  // What the track says (device, context, stream) and the usual launch type are left out.
  CHECK_FALSE(k.contains("device"));
  CHECK_FALSE(k.contains("context"));
  CHECK_FALSE(k.contains("stream"));
  CHECK_FALSE(k.contains("launch_type"));
  CHECK_FALSE(k.contains("graph_id"));
  CHECK_FALSE(k.contains("graph_node_id"));

  json h2d = sliceByCorrelation(ev, "memcpy", 14);
  CHECK(h2d["name"] == "Memcpy HtoD (Pinned -> Device)");
  CHECK(h2d["args"]["bytes"] == 1 << 20);
  CHECK(h2d["args"]["copy_kind"] == "HtoD");
  CHECK(h2d["args"]["src_kind"] == "Pinned");
  CHECK(h2d["args"]["dst_kind"] == "Device");
  CHECK(h2d["args"]["async"] == true);
  CHECK(h2d["args"]["bandwidth_GBps"].get<double>() == Approx(104.8576).epsilon(1e-5));
  CHECK_FALSE(h2d["args"].contains("stream"));
  CHECK_FALSE(h2d["args"].contains("src_device"));
  json d2h = sliceByCorrelation(ev, "memcpy", 16);
  CHECK(d2h["name"] == "Memcpy DtoH (Device -> Pageable)");
  CHECK(d2h["args"]["async"] == false);

  json set = sliceByCorrelation(ev, "memset", 15);
  CHECK(set["name"] == "Memset (Device)");
  CHECK(set["args"]["bytes"] == 4096);
  CHECK(set["args"]["value"] == 0);
  CHECK(set["args"]["memory_kind"] == "Device");
  CHECK(set["args"]["async"] == true);

  json sync = slices(ev, "sync").at(0);
  CHECK(sync["name"] == "StreamSynchronize");
  CHECK(sync["pid"] == kGpuPid);
  CHECK(sync["tid"] == syncTrackTid(1));
  CHECK(sync["args"]["stream"] == 7);
  CHECK(sync["args"]["correlation"] == 16);
  CHECK_FALSE(sync["args"].contains("event"));

  json overhead = slices(ev, "overhead").at(0);
  CHECK(overhead["name"] == "CUPTI buffer flush");
  CHECK(overhead["pid"] == kHostPid);
  CHECK(overhead["tid"] == kOverheadTid);
  CHECK_FALSE(overhead["args"].contains("device"));

  json driver = sliceByCorrelation(ev, "cuda_driver", 11);
  CHECK(driver["name"] == "cuLaunchKernel");
  CHECK(driver["cat"] == "cuda_driver");
  CHECK(driver["args"]["correlation"] == 11);
  // Success (0) is the usual; the callback id and domain are the CSV's.
  CHECK_FALSE(driver["args"].contains("return_value"));
  CHECK_FALSE(driver["args"].contains("cbid"));
  CHECK_FALSE(driver["args"].contains("domain"));
}

TEST_CASE("chrome json: arguments only written when they differ from the usual") {
  Trace t;
  initTrace(t);
  addUsualAndUnusualLaunch(t);
  const Exported e = exportTrace(t);
  CHECK_FALSE(sliceByCorrelation(e.events(), "cuda_runtime", 1)["args"].contains("return_value"));
  CHECK(sliceByCorrelation(e.events(), "cuda_runtime", 2)["args"]["return_value"] == 719);
  CHECK_FALSE(sliceByCorrelation(e.events(), "kernel", 1)["args"].contains("launch_type"));
  const json second = sliceByCorrelation(e.events(), "kernel", 2)["args"];
  CHECK(second["launch_type"] == "CooperativeSingle");
  CHECK(second["device_launched"] == true);
  CHECK(second["graph_id"] == 3);
  CHECK(second["graph_node_id"] == 44);
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

TEST_CASE("chrome json: peer copies and graph work say where they ran") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  MemcpyRecord m{};
  m.start = b + 10;
  m.end = b + 10;  // zero duration: no bandwidth to compute
  m.bytes = 64;
  m.deviceId = 1;
  m.srcDeviceId = 1;
  m.dstDeviceId = 2;
  m.graphId = 4;
  m.graphNodeId = 99;
  m.copyKind = static_cast<uint8_t>(CopyKind::PtoP);
  t.store.add(m);
  const Exported e = exportTrace(t);
  json copy = slices(e.events(), "memcpy").at(0);
  CHECK(copy["pid"] == gpuProcessId(kHostPid, 1));
  CHECK(copy["args"]["src_device"] == 1);
  CHECK(copy["args"]["dst_device"] == 2);
  CHECK(copy["args"]["graph_id"] == 4);
  CHECK(copy["args"]["graph_node_id"] == 99);
  CHECK_FALSE(copy["args"].contains("bandwidth_GBps"));
}

TEST_CASE("chrome json: NVTX ranges, marks and start/end ranges") {
  const Exported e = exportSample();
  const json& ev = e.events();
  const auto outer = where(ev, [](const json& x) { return x.value("name", "") == "outer"; });
  REQUIRE(outer.size() == 1);
  CHECK(outer[0]["pid"] == kHostPid);
  CHECK(outer[0]["tid"] == 4242);
  CHECK(outer[0]["args"]["color"] == "#FF00FF00");
  CHECK(outer[0]["args"]["depth"] == 0);
  CHECK_FALSE(outer[0]["args"].contains("domain"));
  const auto inner = where(ev, [](const json& x) { return x.value("name", "") == kUtf8Message; });
  REQUIRE(inner.size() == 1);
  CHECK(inner[0]["args"]["domain"] == "my domain");
  CHECK(inner[0]["args"]["category"] == 3);
  CHECK(inner[0]["args"]["depth"] == 1);
  CHECK_FALSE(inner[0]["args"].contains("color"));

  const auto mark = where(ev, [](const json& x) { return x["ph"] == "i"; });
  REQUIRE(mark.size() == 1);
  CHECK(mark[0]["name"] == "checkpoint");
  CHECK(mark[0]["s"] == "t");
  CHECK(mark[0]["tid"] == 4243);
  CHECK(ns(mark[0]["ts"]) == 7000);

  const auto begin = where(ev, [](const json& x) { return x["ph"] == "b"; });
  const auto end = where(ev, [](const json& x) { return x["ph"] == "e"; });
  REQUIRE(begin.size() == 1);
  REQUIRE(end.size() == 1);
  CHECK(begin[0]["id"] == end[0]["id"]);
  CHECK(begin[0]["name"] == "async range");
  CHECK(end[0]["name"] == "async range");
  CHECK(begin[0]["cat"] == end[0]["cat"]);
  CHECK(begin[0]["pid"] == kHostPid);
  CHECK(begin[0]["tid"] == 4242);
  CHECK(end[0]["tid"] == 4243);
  CHECK(ns(begin[0]["ts"]) == 2000);
  CHECK(ns(end[0]["ts"]) == 35000);
  CHECK(begin[0]["args"]["range_id"] == 77);
}

TEST_CASE("chrome json: NVTX payloads, open ranges and empty start/end ranges") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::PushPop);
  n.threadId = kHostPid;
  n.start = b + 10;
  n.end = b + 90;
  n.message = t.strings.intern("double payload, left open");
  n.payloadType = static_cast<uint8_t>(NvtxPayload::Double);
  const double value = 2.5;
  std::memcpy(&n.payload, &value, sizeof value);
  n.flags = kNvtxOpen;
  t.store.add(n);
  n.start = b + 20;
  n.end = b + 30;
  n.depth = 1;
  n.flags = 0;
  n.message = t.strings.intern("i32 payload");
  n.payloadType = static_cast<uint8_t>(NvtxPayload::I32);
  n.payload = static_cast<uint32_t>(-7);
  t.store.add(n);
  addNvtx(t, NvtxType::StartEnd, b + 40, b + 40, "empty");
  addNvtx(t, NvtxType::StartEnd, b + 50, b + 60, "second");
  const Exported e = exportTrace(t);
  const json& ev = e.events();
  json open = where(ev, [](const json& x) {
                return x.value("name", "") == "double payload, left open";
              }).at(0);
  CHECK(open["args"]["payload"] == 2.5);
  CHECK(open["args"]["open"] == true);
  const json i32 =
      where(ev, [](const json& x) { return x.value("name", "") == "i32 payload"; }).at(0);
  CHECK(i32["args"]["payload"] == -7);
  CHECK_FALSE(i32["args"].contains("open"));
  // An empty range is one async instant; ids stay unique.
  const auto empty = where(ev, [](const json& x) { return x.value("name", "") == "empty"; });
  REQUIRE(empty.size() == 1);
  CHECK(empty[0]["ph"] == "n");
  json second = where(ev, [](const json& x) { return x["ph"] == "b"; }).at(0);
  CHECK(second["id"] != empty[0]["id"]);
}

TEST_CASE("chrome json: metadata describes the trace and everything lost") {
  Trace t;
  fillSampleTrace(t);
  t.store.addDropped(RecordKind::Kernel, 5);
  t.counters["dropped.cupti"] = 2;
  t.counters["unknown_records"] = 1;
  const Exported e = exportTrace(t);
  json m = e.meta();
  CHECK(m["tool"] == "cuptitrace");
  CHECK(m["tool_version"] == "test");
  CHECK(m["host"] == "testhost");
  CHECK(m["pid"] == 4242);
  CHECK(m["process_name"] == "sample_app");
  CHECK(m["clock"] == "cupti");
  CHECK(m["base_timestamp_ns"] == 1'000'000'000ull);
  CHECK(m["start_timestamp_ns"] == 1'000'000'000ull);
  CHECK(m["end_timestamp_ns"] == 1'000'100'000ull);
  CHECK(m["start_realtime_ns"] == 0);
  CHECK(m["cupti_version"] == 130001);
  CHECK(m["driver_version"] == 13000);
  CHECK(m["config"] ==
        json({{"CUPTITRACE_ACTIVITIES", "kernel,memcpy"}, {"CUPTITRACE_FORMAT", "json"}}));
  REQUIRE(m["devices"].size() == 1);
  CHECK(m["devices"][0]["name"] == "NVIDIA H100 80GB HBM3");
  CHECK(m["devices"][0]["compute_capability"] == "9.0");
  CHECK(m["devices"][0]["multiprocessors"] == 132);
  CHECK(m["devices"][0]["uuid"] == "GPU-1234");
  CHECK(m["records"] == json({{"kernel", 3},
                              {"memcpy", 2},
                              {"memset", 1},
                              {"api", 7},
                              {"nvtx", 4},
                              {"sync", 1},
                              {"overhead", 1},
                              {"memory", 0},
                              {"memory_pool", 0},
                              {"uvm", 0},
                              {"graph", 0},
                              {"external_id", 0},
                              {"openacc", 0}}));
  CHECK(m["dropped_records"] == 7);
  CHECK(m["dropped"]["kernel"] == 5);
  CHECK(m["dropped"]["memcpy"] == 0);
  CHECK(m["dropped"].size() == kRecordKindCount);
  CHECK(m["counters"] == json({{"dropped.cupti", 2}, {"unknown_records", 1}}));
  CHECK(m["incomplete_records"] == 0);
  CHECK(m["clamped_slices"] == 0);
  CHECK(m["flows"] == 6);
}

TEST_CASE("chrome json: an empty trace is valid JSON") {
  Trace t;
  const Exported e = exportTrace(t);
  CHECK(e.events().is_array());
  CHECK(where(e.events(), [](const json& x) { return x["ph"] != "M"; }).empty());
  CHECK(e.meta()["records"]["kernel"] == 0);
  CHECK(e.meta()["incomplete_records"] == 0);
  CHECK(e.meta()["devices"].is_array());
  CHECK(e.stats.events == e.events().size());
  CHECK(e.stats.flows == 0);
}

// Not run by default: `format_tests "[bench]"`.
TEST_CASE("chrome json: export speed", "[.][bench]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  const StringId kernelName = t.strings.intern("_Z6kernelPfi");
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  const uint32_t n = 1'000'000;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t at = b + uint64_t{i} * 1000;
    ApiRecord a{};
    a.start = at;
    a.end = at + 400;
    a.name = launch;
    a.correlationId = i + 1;
    a.threadId = kHostPid + i % 4;
    t.store.add(a);
    KernelRecord k{};
    k.start = at + 500;
    k.end = at + 900;
    k.name = kernelName;
    k.correlationId = i + 1;
    k.streamId = 7 + i % 8;
    t.store.add(k);
  }
  // Counts the bytes and drops them: the exporter is measured, not a stream's growth.
  struct Sink : std::streambuf {
    size_t bytes = 0;
    std::streamsize xsputn(const char*, std::streamsize n) override {
      bytes += static_cast<size_t>(n);
      return n;
    }
    int overflow(int c) override {
      ++bytes;
      return c;
    }
  } sink;
  std::ostream out(&sink);
  const auto start = std::chrono::steady_clock::now();
  const JsonExportStats stats = writeChromeJson(t, out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << stats.events << " events, " << sink.bytes / 1e6 << " MB in " << seconds
            << " s: " << stats.events / seconds / 1e6 << " M events/s\n";
  CHECK(stats.flows == n);
}
