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
