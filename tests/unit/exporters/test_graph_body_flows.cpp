// Arrows to the bodies of a graph's conditional nodes: CUPTI gives their
// kernels (and copies, sets) correlation id 0, but their graph id names the
// launched graph; both timelines draw the arrow from the launch that ran
// them, once each.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "exporters/json/chrome_json.h"
#include "pftrace_readback.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;
using namespace cuptitrace::testing::pftrace;
using nlohmann::json;

namespace {

constexpr uint32_t kGraph = 5;
constexpr uint64_t kCallA = 100, kCallB = 200;  // the two launches' calls, ns after the base
constexpr uint64_t kLone = 3000;                // a kernel of no graph with correlation 0

// Where each GPU slice starts (ns after the base) -> where the call its
// arrow must come from starts (0: none).
const std::map<uint64_t, uint64_t> kExpected = {
    {900, kCallA},   // a body before any node of the graph ran: the first launch called before it
    {1000, kCallA},  // launch A's own kernel (correlation 10)
    {1200, kCallA},  // bodies of A that ran after B's call started: the program ran ahead
    {1400, kCallA},
    {2000, kCallB},  // launch B's own kernel (correlation 20)
    {2200, kCallB},  // bodies of B
    {2400, kCallB},
    {2600, kCallB},  // a memset in a body of B
    {kLone, 0},
};

// Two launches of graph 5 on stream 7, each with an ordinary kernel and
// conditional-node bodies; the second call is made before the first
// launch's bodies run. Then a kernel of no graph with correlation 0.
void graphBodiesTrace(Trace& t) {
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + kCallA, b + kCallA + 50, 10, kSamplePid, ApiDomain::Runtime, "cudaGraphLaunch");
  addApi(t, b + kCallB, b + kCallB + 50, 20, kSamplePid, ApiDomain::Runtime, "cudaGraphLaunch");
  uint64_t node = 1;
  auto kernel = [&](uint64_t start, uint32_t correlation, uint32_t graph) {
    KernelRecord k{};
    k.start = b + start;
    k.end = b + start + 100;
    k.name = t.strings.intern("_Z4stepv");
    k.correlationId = correlation;
    k.contextId = 1;
    k.streamId = graph != 0 ? 7 : 9;
    k.graphId = graph;
    k.graphNodeId = graph != 0 ? node++ : 0;
    k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
    t.store.add(k);
  };
  kernel(900, 0, kGraph);
  kernel(1000, 10, kGraph);
  kernel(1200, 0, kGraph);
  kernel(1400, 0, kGraph);
  kernel(2000, 20, kGraph);
  kernel(2200, 0, kGraph);
  kernel(2400, 0, kGraph);
  MemsetRecord m{};
  m.start = b + 2600;
  m.end = b + 2650;
  m.bytes = 64;
  m.contextId = 1;
  m.streamId = 7;
  m.graphId = kGraph;
  m.graphNodeId = node++;
  m.memoryKind = static_cast<uint8_t>(MemoryKind::Device);
  t.store.add(m);
  kernel(kLone, 0, 0);
}

int64_t ns(const json& micros) { return std::llround(micros.get<double>() * 1000.0); }

}  // namespace

TEST_CASE("graph bodies json: each conditional body gets one arrow, from the launch that ran it", "[flows]") {
  Trace t;
  graphBodiesTrace(t);
  std::ostringstream out;
  writeChromeJson(t, out);
  const json doc = json::parse(out.str());
  const uint64_t base = doc.at("metadata").at("base_timestamp_ns").get<uint64_t>();
  const uint64_t offset = base - t.meta.baseTimestampNs;  // the base, ns after the trace's
  std::map<uint64_t, uint64_t> sourceAt;  // bind_id -> where its call starts
  for (const json& e : doc.at("traceEvents")) {
    if (e.value("flow_out", false)) {
      const uint64_t id = e.at("bind_id").get<uint64_t>();
      CHECK(sourceAt.count(id) == 0);
      sourceAt[id] = ns(e.at("ts")) + offset;
    }
  }
  CHECK(sourceAt.size() == 2);
  std::map<uint64_t, uint64_t> got;  // GPU slice start -> its arrow's call start (0: none)
  for (const json& e : doc.at("traceEvents")) {
    const std::string cat = e.value("cat", "");
    if (e.value("ph", "") != "X" || (cat != "kernel" && cat != "gpu_memset")) continue;
    const uint64_t at = ns(e.at("ts")) + offset;
    INFO("GPU slice at +" << at);
    CHECK(got.count(at) == 0);
    got[at] = e.contains("bind_id") ? sourceAt.at(e.at("bind_id").get<uint64_t>()) : 0;
    CHECK(e.value("flow_in", false) == e.contains("bind_id"));
    // The records keep CUPTI's id: a body's slice says correlation 0.
    if (at != 1000 && at != 2000) CHECK(e.at("args").at("correlation") == 0);
  }
  CHECK(got == kExpected);
  CHECK(doc.at("metadata").at("flows") == kExpected.size() - 1);  // all but the lone kernel
}

TEST_CASE("graph bodies pftrace: each conditional body gets one arrow, from the launch that ran it",
          "[pftrace][flows]") {
  Trace t;
  graphBodiesTrace(t);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  const uint64_t b = t.meta.baseTimestampNs;
  std::map<uint64_t, uint64_t> got;
  for (const char* category : {"kernel", "gpu_memset"}) {
    for (const SliceOut& work : d.slicesOf(category)) {
      const uint64_t at = work.begin.ts - b;
      INFO("GPU slice at +" << at);
      size_t arrows = 0;
      for (const auto& a : d.arrows) arrows += a.to == d.indexOf(work);
      CHECK(arrows <= 1);
      const Event* source = d.arrowInto(d.indexOf(work));
      got[at] = source != nullptr ? source->ts - b : 0;
      if (source != nullptr) CHECK(source->name == "cudaGraphLaunch");
    }
  }
  CHECK(got == kExpected);
  CHECK(d.stats.flows == kExpected.size() - 1);
  CHECK(d.arrows.size() == kExpected.size() - 1);
}

namespace {

// A graph whose top level is a while node alone (cuda-samples'
// graphConditionalNodes, simpleDoWhileGraph): each of 10 iterations runs
// 3 kernels, all with correlation id 0; no node carries the launch's id.
void whileLoopTrace(Trace& t) {
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  ApiRecord call{};
  call.start = b + kCallA;
  call.end = b + kCallA + 50;
  call.name = t.strings.intern("cudaGraphLaunch");
  call.correlationId = 10;
  call.threadId = kSamplePid;
  call.cbid = 311;  // CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000
  call.domain = static_cast<uint8_t>(ApiDomain::Runtime);
  t.store.add(call);
  uint64_t node = 1;
  for (uint64_t i = 0; i < 30; ++i) {
    KernelRecord k{};
    k.start = b + 1000 + 100 * i;
    k.end = k.start + 50;
    k.name = t.strings.intern(i % 3 == 2 ? "_Z17doWhileLoopKernelPcy" : "_Z18doWhileEmptyKernelv");
    k.contextId = 1;
    k.streamId = 7;
    k.graphId = kGraph;
    k.graphNodeId = node + i % 3;
    k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
    t.store.add(k);
  }
}

}  // namespace

TEST_CASE("graph bodies: every iteration of a while loop alone in its graph gets the launch's arrow",
          "[flows][pftrace]") {
  Trace t;
  whileLoopTrace(t);
  std::ostringstream out;
  writeChromeJson(t, out);
  const json doc = json::parse(out.str());
  std::map<uint64_t, std::string> sources;  // bind_id -> the call's name
  for (const json& e : doc.at("traceEvents"))
    if (e.value("flow_out", false)) sources[e.at("bind_id").get<uint64_t>()] = e.at("name").get<std::string>();
  size_t kernels = 0, arrows = 0;
  for (const json& e : doc.at("traceEvents")) {
    if (e.value("ph", "") != "X" || e.value("cat", "") != "kernel") continue;
    ++kernels;
    if (e.contains("bind_id") && sources.count(e.at("bind_id").get<uint64_t>()) != 0) ++arrows;
  }
  CHECK(kernels == 30);
  CHECK(arrows == 30);
  CHECK(sources.size() == 1);

  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  size_t into = 0;
  for (const SliceOut& work : d.slicesOf("kernel")) {
    const Event* source = d.arrowInto(d.indexOf(work));
    if (source != nullptr && source->name == "cudaGraphLaunch") ++into;
  }
  CHECK(into == 30);
}
