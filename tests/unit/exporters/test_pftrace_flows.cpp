// The .pftrace's arrows (flows) from each launch call to the GPU work it
// launched, as trace processor draws them.
#include <catch2/catch.hpp>
#include <cstdint>
#include <set>

#include "core/trace.h"
#include "pftrace_readback.h"
#include "proto_reader.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::pftrace;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addLaunchesMissingAnEnd;
using cuptitrace::testing::initTrace;
using cuptitrace::testing::proto::Message;

TEST_CASE("pftrace: an arrow from each launch call to the GPU work it launched", "[pftrace]") {
  const Decoded d = exportSample();
  INFO(problems(d));
  CHECK(d.problems.empty());  // no flow stepped, left open or ended while inactive
  CHECK(d.arrows.size() == 6);
  CHECK(d.stats.flows == 6);
  // Every kernel, copy and set ends an arrow from the call with its correlation id.
  size_t ends = 0;
  for (const char* category : {"kernel", "gpu_memcpy", "gpu_memset"}) {
    for (const SliceOut& work : d.slicesOf(category)) {
      const Event* source = d.arrowInto(d.indexOf(work));
      REQUIRE(source != nullptr);
      CHECK(source->type == f::kBegin);
      CHECK(source->args.at("correlation").u == work.begin.args.at("correlation").u);
      CHECK(d.pidOf(source->track) == kHostPid);
      CHECK(source->ts <= work.begin.ts);
      ++ends;
    }
  }
  CHECK(ends == 6);
  // Correlation 11 has a runtime and a driver call: the arrow leaves the runtime one.
  CHECK(d.sliceByCorrelation("cuda_runtime", 11).begin.flows.size() == 1);
  CHECK(d.sliceByCorrelation("cuda_driver", 11).begin.flows.empty());
  // Ids are small varints (fields 36 and 42), never the 8-byte fixed64 ones.
  for (const Event& e : d.events) {
    const Message te = d.packets[e.packet].msg(f::kTrackEvent);
    CHECK_FALSE(te.has(f::kFlowIds));
    CHECK_FALSE(te.has(f::kTerminatingFlowIds));
    for (uint64_t id : e.flows) CHECK(id <= 6);
  }
}

TEST_CASE("pftrace: each arrow has an id of its own, from its call's correlation id", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  // 300 launches; each kernel runs before the next call, but the next
  // call starts exactly when the kernel starts.
  for (uint32_t i = 0; i < 300; ++i) {
    const uint64_t at = b + 1000 * uint64_t{i};
    addApi(t, at, at + 300, i + 1);
    addKernel(t, at + 500, at + 800, i + 1);
  }
  // A call whose kernel starts at the very nanosecond the previous kernel's did.
  addApi(t, b + 299'500, b + 299'600, 1000);
  addKernel(t, b + 299'800, b + 299'900, 1000, 8);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  REQUIRE(d.arrows.size() == 301);
  std::set<uint64_t> ids;
  for (const Event& e : d.events)
    for (uint64_t id : e.flows) ids.insert(id);
  CHECK(ids.size() == 301);  // no id shared: the events may be written in any order
  for (const auto& a : d.arrows) {
    const uint64_t correlation = d.events[a.from].args.at("correlation").u;
    CHECK(correlation == d.events[a.to].args.at("correlation").u);
    // The launching calls' ids start at 1: the id is the correlation id (a short varint).
    REQUIRE(d.events[a.from].flows.size() == 1);
    CHECK(d.events[a.from].flows[0] == correlation);
  }
}

TEST_CASE("pftrace: no arrow to GPU work that starts before its call", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 500, b + 600, 1);
  addKernel(t, b + 400, b + 700, 1);  // clock skew: before its launch
  addApi(t, b + 800, b + 900, 2);
  addKernel(t, b + 950, b + 990, 2);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  REQUIRE(d.arrows.size() == 1);
  CHECK(d.events[d.arrows[0].to].args.at("correlation").u == 2);
  CHECK(d.stats.flows == 1);
}

TEST_CASE("pftrace: a graph launch starts one arrow per kernel", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 100, b + 200, 5, kHostPid, ApiDomain::Runtime, "cudaGraphLaunch");
  addKernel(t, b + 300, b + 400, 5);
  addKernel(t, b + 400, b + 500, 5);
  addKernel(t, b + 400, b + 450, 5, 8);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  const SliceOut launch = d.slicesNamed("cudaGraphLaunch").at(0);
  REQUIRE(launch.begin.flows.size() == 3);
  CHECK(std::set<uint64_t>(launch.begin.flows.begin(), launch.begin.flows.end()).size() == 3);
  for (const SliceOut& k : d.slicesOf("kernel")) {
    const Event* source = d.arrowInto(d.indexOf(k));
    REQUIRE(source != nullptr);
    CHECK(source->packet == launch.begin.packet);
  }
  CHECK(d.arrows.size() == 3);
  CHECK(d.stats.flows == 3);
}

TEST_CASE("pftrace: no flow is written with a missing end", "[pftrace]") {
  Trace t;
  initTrace(t);
  addLaunchesMissingAnEnd(t);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  for (const Event& e : d.events) {
    CHECK(e.flows.empty());
    CHECK(e.terminating.empty());
  }
  CHECK(d.stats.flows == 0);
  CHECK(d.stats.incomplete == 2);
}
