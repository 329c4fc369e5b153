// The .pftrace's clock: every nanosecond kept, the reference moved by early
// records; records without valid times counted, not drawn; empty traces.
#include <catch2/catch.hpp>
#include <cstdint>

#include "core/trace.h"
#include "pftrace_readback.h"
#include "proto_reader.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::pftrace;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::initTrace;
using cuptitrace::testing::proto::Message;

TEST_CASE("pftrace: timestamps keep every nanosecond of a realistic clock", "[pftrace]") {
  Trace t;
  initTrace(t);
  t.meta.baseTimestampNs = 1'700'000'000'123'456'789ull;
  t.meta.startTimestampNs = t.meta.baseTimestampNs;
  t.meta.startRealtimeNs = t.meta.baseTimestampNs + 5'000;  // the wall clock is 5 us ahead
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 1, b + 1 + 1234567, 0);
  addApi(t, b + 2, b + 7'000'000'000'001ull, 1);  // lasts about 2 hours
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  const SliceOut k = d.slicesOf("kernel").at(0);
  CHECK(k.begin.ts == b + 1);
  CHECK(k.end == b + 1 + 1234567);
  const SliceOut call = d.slicesOf("cuda_runtime").at(0);
  CHECK(call.begin.ts == b + 2);
  CHECK(call.end == b + 7'000'000'000'001ull);
  CHECK(d.clockReference == b);
  CHECK(d.realtimeReference == b + 5'000);
  // Deltas are at most the trace's length (the layout's summary, after the
  // description): no packet holds an absolute timestamp.
  for (const Message& p : d.packets)
    if (p.has(f::kTimestamp)) CHECK(p.u(f::kTimestamp) <= 7'000'000'000'001ull);
}

TEST_CASE("pftrace: a record before the base moves the clock's reference", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 1, b + 10, 0);
  addApi(t, b - 500, b + 5, 1);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.clockReference == b - 500);
  CHECK(d.slicesOf("cuda_runtime").at(0).begin.ts == b - 500);
  CHECK(d.slicesOf("kernel").at(0).begin.ts == b + 1);
}

TEST_CASE("pftrace: incomplete records are not drawn but counted", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 100, b + 200, 1);
  addKernel(t, b + 300, 0, 2);     // end not collected
  addKernel(t, 0, b + 500, 3);     // no start
  addApi(t, b + 600, b + 550, 4);  // end before start
  addNvtx(t, NvtxType::Mark, 0, 0, "lost mark");
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.stats.incomplete == 4);
  CHECK(d.slices.size() == 1);
  CHECK(d.instants.size() == 1);  // the trace's description only
  CHECK(d.instants[0].args.at("incomplete_records").u == 4);
}

TEST_CASE("pftrace: an empty trace is a valid trace", "[pftrace]") {
  Trace t;
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.slices.empty());
  CHECK(d.instants.size() == 1);
  CHECK(d.stats.flows == 0);
  CHECK(d.processTrack(0) != nullptr);
}

TEST_CASE("pftrace: a trace of NVTX records that cannot be drawn is a valid trace", "[pftrace]") {
  Trace t;
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::StartEnd);
  n.start = 0;  // never started: not drawn, and no track made
  n.end = 100;
  n.message = t.strings.intern("lost");
  t.store.add(n);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.slices.empty());
  CHECK(d.stats.incomplete == 1);
}
