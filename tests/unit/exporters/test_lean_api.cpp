// The lean API set in the outputs: GPU work launched through the driver API
// gets its arrow from the driver call; a driver call made inside a runtime
// call is drawn once as a source (the runtime call) and counted once in the
// API calls report; every output says which calls were recorded.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/api_set.h"
#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "exporters/csv/csv.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "reports/reports.h"
#include "pftrace_decoder.h"
#include "trace_fixture.h"
#include "csv_table.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::initTrace;
using nlohmann::json;

namespace {

// Launches the way Triton and libraries make them: driver calls only.
// Correlation 21: cuLaunchKernelEx; 22: cuMemcpyHtoDAsync; 23: cuMemsetD32Async;
// 24: cuGraphLaunch of two kernels. Correlation 30: a runtime call and the
// driver call it made, sharing the id, and its kernel.
void fillDriverTrace(Trace& t, const char* activities = "kernel,memcpy,memset,nvtx,api") {
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  t.meta.config = {{"CUPTITRACE_ACTIVITIES", activities}};
  t.counters[kLeanRuntimeCounter] = 123;
  t.counters[kLeanDriverCounter] = 194;
  addApi(t, b + 100, b + 110, 21, cuptitrace::testing::kSamplePid, ApiDomain::Driver,
         "cuLaunchKernelEx");
  addKernel(t, b + 200, b + 260, 21);
  addApi(t, b + 120, b + 130, 22, cuptitrace::testing::kSamplePid, ApiDomain::Driver,
         "cuMemcpyHtoDAsync_v2");
  MemcpyRecord c{};
  c.start = b + 270, c.end = b + 290, c.bytes = 4096, c.correlationId = 22, c.contextId = 1,
  c.streamId = 7;
  c.copyKind = 1;
  t.store.add(c);
  addApi(t, b + 140, b + 150, 23, cuptitrace::testing::kSamplePid, ApiDomain::Driver,
         "cuMemsetD32Async");
  MemsetRecord s{};
  s.start = b + 300, s.end = b + 310, s.bytes = 4096, s.correlationId = 23, s.contextId = 1,
  s.streamId = 7;
  t.store.add(s);
  addApi(t, b + 160, b + 170, 24, cuptitrace::testing::kSamplePid, ApiDomain::Driver,
         "cuGraphLaunch");
  addKernel(t, b + 320, b + 330, 24, 7, "_Z5node1v");
  addKernel(t, b + 340, b + 350, 24, 7, "_Z5node2v");
  addApi(t, b + 400, b + 440, 30, cuptitrace::testing::kSamplePid, ApiDomain::Runtime,
         "cudaLaunchKernel");
  addApi(t, b + 410, b + 430, 30, cuptitrace::testing::kSamplePid, ApiDomain::Driver,
         "cuLaunchKernel");
  addKernel(t, b + 450, b + 470, 30);
}

json exportJson(const Trace& t) {
  std::ostringstream out;
  writeChromeJson(t, out);
  return json::parse(out.str());
}

std::vector<json> events(const json& doc, const std::string& cat) {
  std::vector<json> out;
  for (const json& e : doc.at("traceEvents"))
    if (e.value("cat", "") == cat && e.value("ph", "") == "X") out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("json: work launched by driver calls has its arrow from the driver call",
          "[lean][json]") {
  Trace t;
  fillDriverTrace(t);
  const json doc = exportJson(t);
  std::map<uint64_t, json> sources;  // bind_id -> the call it leaves
  for (const char* cat : {"cuda_runtime", "cuda_driver"})
    for (const json& call : events(doc, cat))
      if (call.value("flow_out", false)) sources[call["bind_id"].get<uint64_t>()] = call;
  size_t work = 0;
  for (const char* cat : {"kernel", "gpu_memcpy", "gpu_memset"}) {
    for (const json& w : events(doc, cat)) {
      INFO(w.dump());
      REQUIRE(w.value("flow_in", false));
      const uint64_t id = w["bind_id"].get<uint64_t>();
      REQUIRE(sources.count(id) == 1);
      CHECK(sources[id]["args"]["correlation"] == w["args"]["correlation"]);
      // Driver-only launches start at the driver call; 30 at the runtime call.
      CHECK(sources[id]["cat"] == (id == 30 ? "cuda_runtime" : "cuda_driver"));
      ++work;
    }
  }
  CHECK(work == 6);
  CHECK(sources.size() == 5);  // one source per launch, the graph's two kernels share one
  // The nested driver call is still on the timeline, once, without an arrow.
  size_t nested = 0;
  for (const json& call : events(doc, "cuda_driver"))
    if (call["args"]["correlation"] == 30) {
      ++nested;
      CHECK_FALSE(call.value("flow_out", false));
    }
  CHECK(nested == 1);
}

TEST_CASE("pftrace: work launched by driver calls has its arrow from the driver call",
          "[lean][pftrace]") {
  Trace t;
  fillDriverTrace(t);
  std::ostringstream out;
  writePerfettoProto(t, out);
  const auto d = cuptitrace::testing::perfetto::decodePerfetto(out.str());
  INFO(d.problemText());
  CHECK(d.problems.empty());
  const auto indexOf = [&](const cuptitrace::testing::perfetto::SliceOut& s) {
    for (size_t i = 0; i < d.events.size(); ++i)
      if (d.events[i].packet == s.begin.packet) return i;
    FAIL("no such event");
    return size_t{0};
  };
  size_t work = 0;
  for (const char* cat : {"kernel", "gpu_memcpy", "gpu_memset"}) {
    for (const auto& w : d.slicesOf(cat)) {
      const auto* source = d.arrowInto(indexOf(w));
      REQUIRE(source != nullptr);
      const uint64_t id = w.begin.args.at("correlation").u;
      CHECK(source->args.at("correlation").u == id);
      CHECK(source->categories ==
            std::vector<std::string>{id == 30 ? "cuda_runtime" : "cuda_driver"});
      ++work;
    }
  }
  CHECK(work == 6);
  // The metadata event says which calls were recorded, as the JSON does.
  const auto meta = std::find_if(d.instants.begin(), d.instants.end(),
                                 [](const auto& e) { return e.name == "cuptitrace"; });
  REQUIRE(meta != d.instants.end());
  CHECK(meta->args.at("api_calls").s.rfind("lean set: 123 runtime + 194 driver callback ids", 0) ==
        0);
}

TEST_CASE("api_calls report counts a driver call made inside a runtime call once",
          "[lean][reports]") {
  Trace t;
  fillDriverTrace(t, "kernel,memcpy,memset,runtime,driver");
  const ReportTable table = buildReport(t, "api_calls", ReportOptions{});
  std::vector<std::string> names;
  for (const auto& row : table.rows) names.push_back(row.back().s);
  std::sort(names.begin(), names.end());
  // cuLaunchKernel (correlation 30) ran inside cudaLaunchKernel: left out.
  CHECK(names == std::vector<std::string>{"cuGraphLaunch", "cuLaunchKernelEx",
                                          "cuMemcpyHtoDAsync_v2", "cuMemsetD32Async",
                                          "cudaLaunchKernel"});
  const auto hasNote = [&](const std::string& text) {
    return std::any_of(table.notes.begin(), table.notes.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  CHECK(hasNote("1 driver calls made inside runtime calls are left out"));
  CHECK(hasNote("Recorded: every runtime and driver call."));
  CHECK_FALSE(hasNote("lean set"));

  // Without the runtime call, the driver call is a launch of its own and counted.
  Trace driverOnly;
  fillDriverTrace(driverOnly);
  driverOnly.store.retain<ApiRecord>(
      [&](const ApiRecord& r) { return r.domain != static_cast<uint8_t>(ApiDomain::Runtime); });
  const ReportTable lean = buildReport(driverOnly, "api_calls", ReportOptions{});
  CHECK(lean.rows.size() == 5);
  CHECK(std::none_of(lean.notes.begin(), lean.notes.end(),
                     [](const std::string& n) { return n.find("left out") != std::string::npos; }));
  CHECK(std::any_of(lean.notes.begin(), lean.notes.end(), [](const std::string& n) {
    return n.find("Recorded: lean set: 123 runtime + 194 driver callback ids") == 0;
  }));
}

TEST_CASE("json metadata and csv say which API calls were recorded", "[lean][json][csv]") {
  Trace lean;
  fillDriverTrace(lean);
  const std::string leanText = exportJson(lean)["metadata"]["api_calls"].get<std::string>();
  CHECK(leanText.find("lean set: 123 runtime + 194 driver callback ids") == 0);
  CHECK(leanText.find("queries such as cudaGetDevice are not recorded") != std::string::npos);

  Trace mixed;
  fillDriverTrace(mixed, "kernel,runtime,api");
  CHECK(exportJson(mixed)["metadata"]["api_calls"] ==
        "every runtime call; lean set: 194 driver callback ids, the calls that launch, copy, set, "
        "wait for, allocate or free GPU work and memory; queries such as cudaGetDevice are not "
        "recorded");

  // One column per row: the set of that row's API.
  const auto rows = csvTableRows(mixed, RecordKind::Api);
  REQUIRE(rows.size() == 7);
  const auto& header = rows[0];
  const auto at = [&](const char* name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  REQUIRE(at("api_set") < header.size());
  for (size_t i = 1; i < rows.size(); ++i) {
    INFO(rows[i][at("name")]);
    CHECK(rows[i][at("api_set")] == (rows[i][at("domain")] == "runtime" ? "all" : "lean"));
  }

  // A trace that does not say (older, or merged) claims nothing.
  Trace unknown;
  fillDriverTrace(unknown);
  unknown.meta.config.clear();
  CHECK_FALSE(exportJson(unknown)["metadata"].contains("api_calls"));
  for (const auto& row : csvTableRows(unknown, RecordKind::Api)) CHECK(row.size() == rows[0].size());
}
