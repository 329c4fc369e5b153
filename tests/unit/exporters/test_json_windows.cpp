// The JSON exporter writing a window of start times at a time: the same
// events and metadata as in one window, whatever the window size.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::initTrace;
using nlohmann::json;

namespace {

// Launches on two threads (runtime calls around driver calls, NVTX ranges
// around some), kernels on two streams that sometimes overlap (clock
// jitter: moved on their track), long-running kernels spanning many
// launches, and calls whose kernels come much later: more records than one
// chunk (4096) of each kind, so whole chunks are skipped in some windows.
void fillLongTrace(Trace& t, std::mt19937_64& rng) {
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  uint64_t now = b + 1000;
  uint64_t streamFree[2] = {now, now};
  for (uint32_t corr = 1; corr <= 6000; ++corr) {
    const uint32_t tid = corr % 3 == 0 ? 4243 : cuptitrace::testing::kSamplePid;
    now += 200 + rng() % 400;
    const uint64_t end = now + 150 + rng() % 100;
    if (corr % 50 == 0) addNvtx(t, NvtxType::PushPop, now - 10, end + 10 + rng() % 2000, "step", tid);
    addApi(t, now, end, corr, tid);
    addApi(t, now + 20, end - 20, corr, tid, ApiDomain::Driver, "cuLaunchKernel");
    const uint32_t stream = corr % 2;
    uint64_t start = std::max(end + rng() % 300, streamFree[stream]);
    if (rng() % 10 == 0) start -= 50;  // overlaps the one before
    if (corr % 700 == 0) start += 200000;  // queued far behind its launch
    const uint64_t length = corr % 997 == 0 ? 300000 : 100 + rng() % 500;
    addKernel(t, start, start + length, corr, 7 + 2 * stream, corr % 2 ? "_Z1av" : "_Z1bv");
    streamFree[stream] = start + length;
  }
  addNvtx(t, NvtxType::Mark, now, now, "done");
  addNvtx(t, NvtxType::StartEnd, b + 5000, now, "whole run");
}

std::string exportText(const Trace& t, size_t windowSlices, JsonExportStats* stats) {
  std::ostringstream out;
  *stats = writeChromeJson(t, out, windowSlices);
  return out.str();
}

std::vector<std::string> sortedEvents(const json& doc) {
  std::vector<std::string> events;
  for (const json& e : doc.at("traceEvents")) events.push_back(e.dump());
  std::sort(events.begin(), events.end());
  return events;
}

}  // namespace

TEST_CASE("json written in windows holds the events of one window", "[json][windows]") {
  std::mt19937_64 rng(5);
  Trace t;
  fillLongTrace(t, rng);
  JsonExportStats whole{}, windowed{}, tiny{};
  const std::string wholeText = exportText(t, kDefaultWindowSlices, &whole);
  const json wholeDoc = json::parse(wholeText);
  const std::vector<std::string> expected = sortedEvents(wholeDoc);
  REQUIRE(whole.flows == 6000);
  REQUIRE(whole.laneTracks > 0);  // overlaps put on lanes, some across windows
  REQUIRE(whole.clamped == 0);

  for (const size_t window : {size_t{1000}, size_t{7}}) {
    JsonExportStats& stats = window == 7 ? tiny : windowed;
    const std::string text = exportText(t, window, &stats);
    // The order differs: the slices went out window by window.
    CHECK(text != wholeText);
    const json doc = json::parse(text);
    CHECK(sortedEvents(doc) == expected);
    CHECK(doc.at("metadata") == wholeDoc.at("metadata"));
    CHECK(stats.events == whole.events);
    CHECK(stats.flows == whole.flows);
    CHECK(stats.clamped == whole.clamped);
    CHECK(stats.maxLanes == whole.maxLanes);
    CHECK(stats.laneTracks == whole.laneTracks);
  }
}

TEST_CASE("json windows keep every slice on a stream's lanes exact and apart", "[json][windows]") {
  std::mt19937_64 rng(9);
  Trace t;
  fillLongTrace(t, rng);
  JsonExportStats stats{};
  const json doc = json::parse(exportText(t, 64, &stats));
  // Each lane's kernels, by start: none starts before the one before it ends.
  std::map<int64_t, std::vector<std::pair<double, double>>> byTrack;
  for (const json& e : doc.at("traceEvents"))
    if (e.value("cat", "") == "kernel")
      byTrack[e.at("tid").get<int64_t>()].push_back({e.at("ts").get<double>(), e.at("dur").get<double>()});
  // Two streams, each with more than one lane.
  std::set<int64_t> streams;
  for (const auto& [tid, slices] : byTrack) streams.insert(tid & 0xFFFFFF);
  REQUIRE(streams.size() == 2);
  CHECK(byTrack.size() > 2);
  CHECK(byTrack.size() <= 2 + stats.laneTracks);  // host threads may have lanes too
  size_t kernels = 0;
  for (auto& [tid, slices] : byTrack) {
    std::sort(slices.begin(), slices.end());
    for (size_t i = 1; i < slices.size(); ++i)
      CHECK(slices[i].first + 1e-9 >= slices[i - 1].first + slices[i - 1].second);
    kernels += slices.size();
  }
  CHECK(kernels == 6000);
}
