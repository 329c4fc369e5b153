// The .pftrace against the Chrome JSON exporter: the same timeline.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "pftrace_readback.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::pftrace;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::fillSampleTrace;
using nlohmann::json;

// The same timeline as the Chrome JSON exporter: every X slice there is a
// slice here on the track of the same name in the same process, with the
// same name, times and arguments; marks and async ranges likewise.
TEST_CASE("pftrace: the timeline is the Chrome JSON exporter's", "[pftrace]") {
  Trace t;
  fillSampleTrace(t);
  // Lanes too: a kernel that overlaps another, a call that outlives its range.
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 25000, b + 27000, 0, 7);
  addNvtx(t, NvtxType::PushPop, b + 60000, b + 60300, "range");
  addApi(t, b + 60200, b + 60400, 99, kHostPid, ApiDomain::Runtime, "cudaFree");

  std::ostringstream jsonOut;
  const JsonExportStats jsonStats = writeChromeJson(t, jsonOut);
  const json doc = json::parse(jsonOut.str());
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.stats.clamped == jsonStats.clamped);
  CHECK(d.stats.clamped == 0);
  CHECK(d.stats.laneTracks == jsonStats.laneTracks);
  CHECK(d.stats.laneTracks == 3);  // the overlapping kernel, the call, the set in the copy
  CHECK(d.stats.flows == jsonStats.flows);

  const uint64_t base = doc["metadata"]["base_timestamp_ns"].get<uint64_t>();
  auto ns = [&](const json& micros) { return std::llround(micros.get<double>() * 1000.0); };
  std::map<std::pair<int64_t, int64_t>, std::string> threadNames;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name")
      threadNames[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}] = e["args"]["name"];

  auto toJson = [](const Arg& a) -> json {
    switch (a.kind) {
      case Arg::Uint:
        return a.u;
      case Arg::Int:
        return a.i;
      case Arg::Bool:
        return a.b;
      case Arg::Double:
        return a.d;
      case Arg::String:
        return a.s;
    }
    return nullptr;
  };
  // What the protobuf leaves out on purpose (see pftrace_slices.h "Arguments").
  auto leftOut = [](const std::string& category, const std::string& key, const json& value) {
    const bool gpu = category == "kernel" || category == "gpu_memcpy" || category == "gpu_memset";
    const bool call = category == "cuda_runtime" || category == "cuda_driver";
    if (gpu && (key == "device" || key == "context" || key == "stream")) return true;
    if (category == "cuda_sync" && (key == "device" || key == "context")) return true;
    if (category == "kernel" && key == "mangled_name") return true;
    if (category == "kernel" && key == "launch_type") return value == "Regular";
    if (call && (key == "cbid" || key == "domain")) return true;
    if (call && key == "return_value") return value == 0;
    return false;
  };
  // Both formats write the arguments record_args.h lists: a start/end range
  // says in both which thread started and ended it.
  auto sameArgs = [&](const json& expected, Args actual, const std::string& what, const std::string& category) {
    INFO(what);
    for (const auto& [key, value] : expected.items()) {
      INFO(key);
      if (leftOut(category, key, value)) {
        CHECK(actual.count(key) == 0);
        continue;
      }
      REQUIRE(actual.count(key) == 1);
      const json mine = toJson(actual.at(key));
      if (value.is_number_float() || mine.is_number_float()) {
        CHECK(mine.get<double>() == Approx(value.get<double>()).epsilon(1e-5));
      } else {
        CHECK(mine == value);
      }
      actual.erase(key);
    }
    CHECK(actual.empty());
  };

  // X slices.
  using Key = std::tuple<int64_t, std::string, std::string, int64_t, int64_t>;
  std::multimap<Key, json> jsonSlices;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int64_t pid = e["pid"];
    const std::string track = threadNames.at({pid, e["tid"].get<int64_t>()});
    jsonSlices.insert(
        {Key{pid, track, e["name"], static_cast<int64_t>(base) + ns(e["ts"]), ns(e["dur"])}, e});
  }
  size_t matched = 0;
  for (const SliceOut& s : d.slices) {
    if (d.nameOf(s.begin.track) == "async range") continue;  // an async range in JSON
    const Key key{d.pidOf(s.begin.track), d.nameOf(s.begin.track), s.begin.name,
                  static_cast<int64_t>(s.begin.ts), static_cast<int64_t>(s.end - s.begin.ts)};
    const auto it = jsonSlices.find(key);
    INFO(s.begin.name << " at " << s.begin.ts);
    REQUIRE(it != jsonSlices.end());
    CHECK(it->second["cat"] == s.begin.categories.at(0));
    sameArgs(it->second["args"], s.begin.args, s.begin.name, s.begin.categories.at(0));
    jsonSlices.erase(it);
    ++matched;
  }
  CHECK(jsonSlices.empty());
  CHECK(matched == 3 + 1 + 2 + 1 + 8 + 3 + 1 + 1);

  // Marks and async ranges.
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "i") {
      const auto found = std::find_if(d.instants.begin(), d.instants.end(),
                                      [&](const Event& x) { return x.name == e["name"]; });
      REQUIRE(found != d.instants.end());
      CHECK(found->ts == base + static_cast<uint64_t>(ns(e["ts"])));
      CHECK(d.nameOf(found->track) == threadNames.at({e["pid"], e["tid"]}));
      sameArgs(e["args"], found->args, e["name"], "nvtx");
    } else if (e["ph"] == "b") {
      const SliceOut range = d.slicesNamed(e["name"]).at(0);
      CHECK(range.begin.ts == base + static_cast<uint64_t>(ns(e["ts"])));
      sameArgs(e["args"], range.begin.args, e["name"], "nvtx");
    }
  }
}
