// The external_ids report: GPU work and API calls per external id and per
// named scope, attributed through the correlation id of the launching call.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "reports/report_table.h"
#include "reports/reports.h"
#include "memory_fixture.h"
#include "report_cells.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;

namespace {

constexpr uint64_t kBase = 1'000'000'000ull;

void kernel(Trace& t, uint64_t start, uint64_t duration, uint32_t correlation) {
  KernelRecord k{};
  k.start = kBase + start;
  k.end = duration == 0 ? 0 : kBase + start + duration;
  k.name = t.strings.intern("_Z4bumpPii");
  k.correlationId = correlation;
  k.contextId = 1;
  k.streamId = 7;
  t.store.add(k);
}

template <typename Record>
void gpuOp(Trace& t, uint64_t start, uint64_t duration, uint32_t correlation) {
  Record r{};
  r.start = kBase + start;
  r.end = kBase + start + duration;
  r.bytes = 4096;
  r.correlationId = correlation;
  r.contextId = 1;
  r.streamId = 7;
  t.store.add(r);
}

void external(Trace& t, uint32_t correlation, ExternalKind kind, uint64_t id) {
  ExternalIdRecord r{};
  r.correlationId = correlation;
  r.externalKind = static_cast<uint8_t>(kind);
  r.externalId = id;
  t.store.add(r);
}

// A scope's range, as the library draws it: its name, its id as payload.
void scopeRange(Trace& t, uint64_t start, uint64_t end, const char* name, uint64_t id,
                uint16_t depth) {
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::PushPop);
  n.start = kBase + start;
  n.end = kBase + end;
  n.message = t.strings.intern(name);
  n.domain = t.strings.intern(kScopeNvtxDomain);
  n.payloadType = static_cast<uint8_t>(NvtxPayload::U64);
  n.payload = id;
  n.depth = depth;
  n.threadId = n.endThreadId = t.meta.pid;
  t.store.add(n);
}

// One runtime call per correlation id c, lasting 10 * c ns, and what it launched:
//
//   corr  id    scope          GPU work
//   1     -     -              kernel 100
//   2     1001  -              kernel 200  (and a driver call with the same id)
//   3     1001  -              kernel 300
//   4     1001  outer (1)      kernel 400
//   5     1002  inner (2)      kernel 1000   inner is nested in outer
//   6     1002  inner (2)      memcpy 500
//   7     1001  outer (1)      memset 50
//   8     2001  -              kernel 250    another thread's id
//   9     2001  -              kernel 250
//   10    -     outer (3)      kernel 600    a second scope named outer
//   11    1001  -              -             a call that launches nothing
//   12    1002  inner (2)      kernel without an end
//   13    -     (9, no range)  memset 5
void externalTrace(Trace& t) {
  t.meta.pid = 4242;
  t.meta.baseTimestampNs = kBase;
  for (uint32_t c = 1; c <= 13; ++c)
    addApi(t, kBase + 1000 * c, kBase + 1000 * c + 10 * c,
           c == 11 ? "cudaGetLastError" : "cudaLaunchKernel", c);
  addApi(t, kBase + 2001, kBase + 2016, "cuLaunchKernel", 2, ApiDomain::Driver);
  addApi(t, kBase + 2100, kBase + 9100, "read", 2, ApiDomain::Osrt);  // not a CUDA call

  kernel(t, 1100, 100, 1);
  kernel(t, 2100, 200, 2);
  kernel(t, 3100, 300, 3);
  kernel(t, 4100, 400, 4);
  kernel(t, 5100, 1000, 5);
  gpuOp<MemcpyRecord>(t, 6100, 500, 6);
  gpuOp<MemsetRecord>(t, 7100, 50, 7);
  kernel(t, 8100, 250, 8);
  kernel(t, 9100, 250, 9);
  kernel(t, 10100, 600, 10);
  kernel(t, 12100, 0, 12);
  gpuOp<MemsetRecord>(t, 13100, 5, 13);

  for (const uint32_t c : {2u, 3u, 4u, 7u, 11u}) external(t, c, ExternalKind::Id, 1001);
  for (const uint32_t c : {5u, 6u, 12u}) external(t, c, ExternalKind::Id, 1002);
  for (const uint32_t c : {8u, 9u}) external(t, c, ExternalKind::Id, 2001);
  for (const uint32_t c : {4u, 7u}) external(t, c, ExternalKind::Scope, 1);
  for (const uint32_t c : {5u, 6u, 12u}) external(t, c, ExternalKind::Scope, 2);
  external(t, 10, ExternalKind::Scope, 3);
  external(t, 13, ExternalKind::Scope, 9);
  scopeRange(t, 3900, 7900, "outer", 1, 0);
  scopeRange(t, 4900, 6900, "inner", 2, 1);
  scopeRange(t, 9900, 10900, "outer", 3, 0);
}

}  // namespace

TEST_CASE("report external_ids: GPU work per id and per innermost scope", "[report]") {
  Trace t;
  externalTrace(t);
  const ReportTable r = buildReport(t, "external_ids", {});
  CHECK(r.name == "external_ids");
  // 1002 and inner tie at 1500 ns: ids first.
  REQUIRE(r.rows.size() == 6);
  const uint64_t gpuTotal = 100 + 200 + 300 + 400 + 1000 + 500 + 50 + 250 + 250 + 600 + 5;

  CHECK(reportCell(r, 0, "kind").s == "id");
  CHECK(reportCell(r, 0, "name").s == "1002");
  CHECK(reportCell(r, 0, "kernels").i == 2);
  CHECK(reportCell(r, 0, "memcpy").i == 1);
  CHECK(reportCell(r, 0, "memset").i == 0);
  CHECK(reportCell(r, 0, "gpu_total").i == 1500);
  CHECK(reportCell(r, 0, "gpu_avg").d == Approx(750));  // the kernel without an end is not timed
  CHECK(reportCell(r, 0, "gpu_pct").d == Approx(100.0 * 1500 / gpuTotal));
  CHECK(reportCell(r, 0, "api_calls").i == 3);
  CHECK(reportCell(r, 0, "api_total").i == 50 + 60 + 120);

  CHECK(reportCell(r, 1, "kind").s == "scope");
  CHECK(reportCell(r, 1, "name").s == "inner");
  CHECK(reportCell(r, 1, "kernels").i == 2);
  CHECK(reportCell(r, 1, "memcpy").i == 1);
  CHECK(reportCell(r, 1, "gpu_total").i == 1500);
  CHECK(reportCell(r, 1, "api_calls").i == 3);

  // Both scopes named outer, without what inner (nested in the first) launched.
  CHECK(reportCell(r, 2, "kind").s == "scope");
  CHECK(reportCell(r, 2, "name").s == "outer");
  CHECK(reportCell(r, 2, "kernels").i == 2);
  CHECK(reportCell(r, 2, "memcpy").i == 0);
  CHECK(reportCell(r, 2, "memset").i == 1);
  CHECK(reportCell(r, 2, "gpu_total").i == 400 + 600 + 50);
  CHECK(reportCell(r, 2, "gpu_avg").d == Approx(350));
  CHECK(reportCell(r, 2, "api_calls").i == 3);
  CHECK(reportCell(r, 2, "api_total").i == 40 + 70 + 100);

  // 1001: the driver call of correlation 2 is not counted again; the call
  // that launched nothing is.
  CHECK(reportCell(r, 3, "kind").s == "id");
  CHECK(reportCell(r, 3, "name").s == "1001");
  CHECK(reportCell(r, 3, "kernels").i == 3);
  CHECK(reportCell(r, 3, "memset").i == 1);
  CHECK(reportCell(r, 3, "gpu_total").i == 200 + 300 + 400 + 50);
  CHECK(reportCell(r, 3, "gpu_avg").d == Approx(237.5));
  CHECK(reportCell(r, 3, "api_calls").i == 5);
  CHECK(reportCell(r, 3, "api_total").i == 20 + 30 + 40 + 70 + 110);

  CHECK(reportCell(r, 4, "name").s == "2001");
  CHECK(reportCell(r, 4, "kernels").i == 2);
  CHECK(reportCell(r, 4, "gpu_total").i == 500);
  CHECK(reportCell(r, 4, "api_calls").i == 2);
  CHECK(reportCell(r, 4, "api_total").i == 80 + 90);

  // A scope whose range is not in the trace is named by its id.
  CHECK(reportCell(r, 5, "kind").s == "scope");
  CHECK(reportCell(r, 5, "name").s == "(scope 9)");
  CHECK(reportCell(r, 5, "memset").i == 1);
  CHECK(reportCell(r, 5, "gpu_total").i == 5);

  CHECK(reportNoteContains(
      r, "Of 12 kernels, copies and sets, 3 carry no external id and 5 no scope"));
  CHECK(reportNoteContains(r, "1 attributed GPU record has no valid end"));
  CHECK(reportNoteContains(r, "kernel (correlation 12)"));
}

TEST_CASE("report external_ids: JSON rows as the GPU checks read them", "[report]") {
  Trace t;
  externalTrace(t);
  std::string text;
  renderJson({buildReport(t, "external_ids", {})}, {}, text);
  const auto doc = nlohmann::json::parse(text);
  const auto& rows = doc["reports"][0]["rows"];
  REQUIRE(rows.size() == 6);
  CHECK(rows[3]["kind"] == "id");
  CHECK(rows[3]["name"] == "1001");
  CHECK(rows[3]["kernels"] == 3);
  CHECK(rows[3]["gpu_total_ns"] == 950);
  CHECK(rows[3]["api_total_ns"] == 270);
}

TEST_CASE("report external_ids: a trace without external ids has no rows", "[report]") {
  Trace t;
  fillSampleTrace(t);
  const ReportTable r = buildReport(t, "external_ids", {});
  CHECK(r.rows.empty());
  CHECK(reportNoteContains(r, "cuptitrace_push_scope"));
  std::string text;
  renderText(r, {}, text);
  CHECK_THAT(text,
             Catch::StartsWith("GPU time per external id and scope:") && Catch::Contains("(none)"));
}
