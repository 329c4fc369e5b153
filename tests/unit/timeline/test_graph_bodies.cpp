// Which graph launch ran the body of a conditional node (graph_bodies.h).
#include <catch2/catch.hpp>

#include "timeline/graph_bodies.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

using testing::addApi;
using testing::initTrace;

void addNode(Trace& t, uint64_t start, uint32_t correlation, uint32_t graph, uint32_t stream) {
  KernelRecord k{};
  k.start = t.meta.baseTimestampNs + start;
  k.end = k.start + 50;
  k.name = t.strings.intern("_Z4stepv");
  k.correlationId = correlation;
  k.contextId = 1;
  k.streamId = stream;
  k.graphId = graph;
  t.store.add(k);
}

uint32_t launchOf(const GraphBodies& bodies, const Trace& t, size_t kernel) {
  return bodies.correlation(t.store.records<KernelRecord>()[kernel], kernel);
}

TEST_CASE("graph bodies: a body goes to the launch of its graph on its stream", "[timeline]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  // Graph 6 launched on streams 7 (correlation 30) and 8 (40) at once, graph 9 on stream 7 (50).
  addApi(t, b + 10, b + 20, 30);
  addApi(t, b + 30, b + 40, 40);
  addApi(t, b + 50, b + 60, 50);
  addNode(t, 100, 30, 6, 7);  // 0
  addNode(t, 300, 40, 6, 8);  // 1: graph 6's latest node before the body below, on the other stream
  addNode(t, 350, 50, 9, 7);  // 2: graph 9's, on the body's stream
  addNode(t, 400, 0, 6, 7);   // 3: a body of graph 6 on stream 7
  addNode(t, 400, 0, 6, 8);   // 4: one on stream 8
  addNode(t, 400, 0, 9, 7);   // 5: one of graph 9
  addNode(t, 400, 0, 6, 11);  // 6: one on a stream no launch of graph 6 used: the graph's latest
  addNode(t, 400, 0, 0, 7);   // 7: correlation 0 and no graph: no launch
  addNode(t, 400, 0, 12, 7);  // 8: a graph no node of which carried a launch's id
  const GraphBodies bodies{TimelineRecords(t.store)};
  CHECK(launchOf(bodies, t, 0) == 30);  // ordinary nodes keep their own
  CHECK(launchOf(bodies, t, 1) == 40);
  CHECK(launchOf(bodies, t, 3) == 30);
  CHECK(launchOf(bodies, t, 4) == 40);
  CHECK(launchOf(bodies, t, 5) == 50);
  CHECK(launchOf(bodies, t, 6) == 40);
  CHECK(launchOf(bodies, t, 7) == 0);
  CHECK(launchOf(bodies, t, 8) == 0);
  CHECK(bodies.bound() == 4);
}

TEST_CASE("graph bodies: a body before any node of its graph goes to a launch already called", "[timeline]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 100, b + 120, 30);
  addNode(t, 50, 0, 6, 7);    // 0: before the launch call: no launch can have run it
  addNode(t, 200, 0, 6, 7);   // 1: after the call, before the launch's first ordinary node
  addNode(t, 300, 30, 6, 7);  // 2
  const GraphBodies bodies{TimelineRecords(t.store)};
  CHECK(launchOf(bodies, t, 0) == 0);
  CHECK(launchOf(bodies, t, 1) == 30);
}

TEST_CASE("graph bodies: a while loop alone in its graph goes to the launch call that ran no node",
          "[timeline]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  auto graphLaunch = [&](uint64_t start, uint32_t correlation, ApiDomain domain, uint32_t cbid) {
    ApiRecord r{};
    r.start = b + start;
    r.end = b + start + 10;
    r.name = t.strings.intern(domain == ApiDomain::Runtime ? "cudaGraphLaunch" : "cuGraphLaunch");
    r.correlationId = correlation;
    r.threadId = testing::kSamplePid;
    r.cbid = cbid;
    r.domain = static_cast<uint8_t>(domain);
    t.store.add(r);
  };
  // Correlation 30: a runtime launch (with the driver call it made) of graph 6, a while node alone.
  graphLaunch(100, 30, ApiDomain::Runtime, 311);
  graphLaunch(105, 30, ApiDomain::Driver, 514);
  addApi(t, b + 110, b + 120, 31);  // a kernel launch that ran nothing recorded: no graph launch
  for (uint64_t i = 0; i < 10; ++i) {  // 10 iterations of a body of 3 kernels
    addNode(t, 200 + 100 * i, 0, 6, 7);
    addNode(t, 230 + 100 * i, 0, 6, 7);
    addNode(t, 260 + 100 * i, 0, 6, 7);
  }
  addNode(t, 50, 0, 6, 7);  // 30: before any launch call: none
  // Correlation 40: a driver launch, per-thread stream, of graph 8 with an ordinary node: its own.
  graphLaunch(2000, 40, ApiDomain::Driver, 515);
  addNode(t, 2100, 40, 8, 7);  // 31
  addNode(t, 2200, 0, 8, 7);   // 32: a body of graph 8: its launch by its node
  // Correlation 50: a second bare launch (per-thread stream runtime call), of graph 9.
  graphLaunch(3000, 50, ApiDomain::Runtime, 312);
  addNode(t, 3100, 0, 9, 7);  // 33
  const GraphBodies bodies{TimelineRecords(t.store)};
  for (size_t k = 0; k < 30; ++k) {
    INFO("body kernel " << k);
    CHECK(launchOf(bodies, t, k) == 30);
  }
  CHECK(launchOf(bodies, t, 30) == 0);
  CHECK(launchOf(bodies, t, 31) == 40);
  CHECK(launchOf(bodies, t, 32) == 40);
  CHECK(launchOf(bodies, t, 33) == 50);
  CHECK(bodies.bound() == 32);
}

TEST_CASE("graph bodies: a trace without bodies reads nothing more", "[timeline]") {
  Trace t;
  initTrace(t);
  addApi(t, t.meta.baseTimestampNs + 10, t.meta.baseTimestampNs + 20, 30);
  addNode(t, 100, 30, 6, 7);
  const GraphBodies bodies{TimelineRecords(t.store)};
  CHECK(bodies.bound() == 0);
  size_t seen = 0;
  bodies.forEachGpuWork([&](uint32_t correlation, const auto&) {
    CHECK(correlation == 30);
    ++seen;
  });
  CHECK(seen == 1);
}

}  // namespace
}  // namespace cuptitrace
