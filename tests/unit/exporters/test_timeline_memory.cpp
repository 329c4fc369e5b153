// The timeline exporters with memory, unified memory and graph-level
// records: Chrome JSON parsed back, Perfetto protobuf replayed as trace
// processor reads it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

#include "exporters/json/chrome_json.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "timeline/track_layout.h"
#include "memory_fixture.h"
#include "pftrace_decoder.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;
using nlohmann::json;

namespace {

// The sample trace plus two graph launches (graph-level records) on stream
// 13, an allocation and free, and a unified memory transfer.
Trace& depthTrace(Trace& t) {
  fillSampleTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 50'000, b + 52'000, "cudaGraphLaunch", 90);
  addApi(t, b + 53'000, b + 54'000, "cudaGraphLaunch", 91);
  addGraphLaunch(t, b + 55'000, b + 60'000, 5, 90);
  addGraphLaunch(t, b + 60'000, b + 64'000, 5, 91);
  addApi(t, b + 100, b + 400, "cudaMalloc", 80);
  addAllocation(t, b + 300, 0xA000, 1 << 20, 0, MemoryKind::Device, 80);
  addFree(t, b + 70'000, 0xA000, 1 << 20, 0, MemoryKind::Device, 81);
  addUvm(t, UvmKind::BytesHtoD, b + 65'000, b + 66'000, 65536, 0);
  return t;
}

}  // namespace

TEST_CASE("json timeline: graph launches on their stream with arrows, memory counters") {
  Trace t;
  depthTrace(t);
  std::ostringstream out;
  writeChromeJson(t, out);
  const json doc = json::parse(out.str());
  const uint32_t gpuPid = gpuProcessId(t.meta.pid, 0);

  std::map<uint64_t, std::string> flowOut;  // bind_id -> API name
  std::vector<json> graphs, counters, uvm;
  for (const json& e : doc.at("traceEvents")) {
    if (e.at("ph") == "X" && e.contains("flow_out")) flowOut[e.at("bind_id")] = e.at("name");
    if (e.at("ph") == "X" && e.at("cat") == "graph") graphs.push_back(e);
    if (e.at("ph") == "C") counters.push_back(e);
    if (e.at("ph") == "X" && e.at("cat") == "uvm") uvm.push_back(e);
  }
  REQUIRE(graphs.size() == 2);
  for (const json& g : graphs) {
    CHECK(g.at("name") == "Graph 5");
    CHECK(g.at("pid") == gpuPid);
    CHECK(g.at("tid") == 13);
    CHECK(g.at("args").at("graph_id") == 5);
    REQUIRE(g.contains("flow_in"));
    CHECK(flowOut.at(g.at("bind_id")) == "cudaGraphLaunch");
    CHECK(g.at("args").at("correlation") == g.at("bind_id"));
  }
  CHECK(graphs[0].at("dur").get<double>() == Approx(5.0));

  std::vector<uint64_t> bytes;
  for (const json& c : counters)
    if (c.at("name") == "Memory allocated" && c.at("pid") == gpuPid) bytes.push_back(c.at("args").at("bytes"));
  CHECK(bytes == std::vector<uint64_t>{1 << 20, 0});
  REQUIRE(uvm.size() == 1);
  CHECK(uvm[0].at("pid") == gpuPid);
  // Every kind's count is in the metadata.
  CHECK(doc.at("metadata").at("records").at("graph") == 2);
  CHECK(doc.at("metadata").at("records").at("memory") == 2);
  CHECK(doc.at("metadata").at("records").at("uvm") == 1);
}

TEST_CASE("pftrace timeline: graph launches with arrows, memory counters in time order") {
  Trace t;
  depthTrace(t);
  std::ostringstream out;
  const PerfettoExportStats stats = writePerfettoProto(t, out);
  const auto d = perfetto::decodePerfetto(out.str());
  INFO(d.problemText());
  CHECK(d.problems.empty());
  CHECK(stats.bytes == out.str().size());

  const auto graphs = d.slicesOf("graph");
  REQUIRE(graphs.size() == 2);
  for (const auto& g : graphs) {
    CHECK(g.begin.name == "Graph 5");
    CHECK(d.nameOf(g.begin.track) == "Stream 13");
    CHECK(g.begin.args.at("graph_id").u == 5);
    size_t index = 0;
    for (size_t i = 0; i < d.events.size(); ++i)
      if (d.events[i].packet == g.begin.packet) index = i;
    const perfetto::Event* source = d.arrowInto(index);
    REQUIRE(source != nullptr);
    CHECK(source->name == "cudaGraphLaunch");
  }

  std::vector<int64_t> bytes;
  for (const auto& c : d.counters) {
    if (d.nameOf(c.track) != "Memory allocated bytes") continue;
    CHECK(d.pidOf(c.track) == gpuProcessId(t.meta.pid, 0));
    bytes.push_back(c.counterValue);
  }
  CHECK(bytes == std::vector<int64_t>{1 << 20, 0});
  const auto uvm = d.slicesOf("uvm");
  REQUIRE(uvm.size() == 1);
  CHECK(uvm[0].begin.name == "HtoD");
  CHECK(d.nameOf(uvm[0].begin.track) == "Unified memory HtoD");
}
