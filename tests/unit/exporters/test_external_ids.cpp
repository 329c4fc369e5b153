// External ids and scopes (the public API) and osrt calls in every exporter:
// the lookup by correlation id, the CSV tables, the JSON and protobuf
// timelines' arguments and categories.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "exporters/csv/csv.h"
#include "timeline/external_ids.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "csv_table.h"
#include "pftrace_decoder.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;
using nlohmann::json;

namespace {

constexpr uint32_t kPid = 4242;
constexpr uint64_t kBase = 1'000'000'000ull;

void addApi(Trace& t, uint64_t start, uint64_t end, uint32_t correlation, ApiDomain domain = ApiDomain::Runtime,
            const char* name = "cudaLaunchKernel", uint32_t returnValue = 0) {
  ApiRecord r{};
  r.start = kBase + start;
  r.end = kBase + end;
  r.name = t.strings.intern(name);
  r.correlationId = correlation;
  r.threadId = kPid;
  r.returnValue = returnValue;
  r.domain = static_cast<uint8_t>(domain);
  t.store.add(r);
}

void addKernel(Trace& t, uint64_t start, uint64_t end, uint32_t correlation) {
  KernelRecord k{};
  k.start = kBase + start;
  k.end = kBase + end;
  k.name = t.strings.intern("_Z6kernelv");
  k.correlationId = correlation;
  k.contextId = 1;
  k.streamId = 7;
  k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
  t.store.add(k);
}

void addExternal(Trace& t, uint32_t correlation, ExternalKind kind, uint64_t id) {
  ExternalIdRecord r{};
  r.correlationId = correlation;
  r.externalKind = static_cast<uint8_t>(kind);
  r.externalId = id;
  t.store.add(r);
}

// The scope's range, as the library draws it.
void addScopeRange(Trace& t, uint64_t start, uint64_t end, const char* name, uint64_t id,
                   const char* domain = kScopeNvtxDomain) {
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::PushPop);
  n.start = kBase + start;
  n.end = kBase + end;
  n.message = t.strings.intern(name);
  n.domain = t.strings.intern(domain);
  n.payloadType = static_cast<uint8_t>(NvtxPayload::U64);
  n.payload = id;
  n.threadId = n.endThreadId = kPid;
  t.store.add(n);
}

// Three launches: 1 in no scope, 2 in scope "outer" (id 1) with id 500
// pushed, 3 in scope "inner \"q\"" (id 2) inside "outer"; an osrt read.
void fillTrace(Trace& t) {
  t.meta.pid = kPid;
  t.meta.processName = "app";
  t.meta.baseTimestampNs = kBase;
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-1234"});
  t.contexts.push_back({1, 0, 7});
  addApi(t, 100, 200, 1);
  addKernel(t, 300, 400, 1);
  addScopeRange(t, 500, 2000, "outer", 1);
  addApi(t, 600, 700, 2);
  addKernel(t, 800, 900, 2);
  addExternal(t, 2, ExternalKind::Scope, 1);
  addExternal(t, 2, ExternalKind::Id, 500);
  addScopeRange(t, 1000, 1500, "inner \"q\"", 2);
  addApi(t, 1100, 1200, 3);
  addKernel(t, 1300, 1400, 3);
  addExternal(t, 3, ExternalKind::Scope, 2);
  addApi(t, 2100, 2900, 0, ApiDomain::Osrt, "read", 4);
}


}  // namespace

TEST_CASE("external ids: looked up by correlation id, scopes named from their ranges", "[external_ids]") {
  Trace t;
  fillTrace(t);
  addScopeRange(t, 0, 10, "not a scope", 2, "other domain");  // same payload, another domain
  const ExternalIdIndex index(t);
  CHECK_FALSE(index.empty());
  CHECK(index.find(1) == nullptr);
  CHECK(index.find(99) == nullptr);
  const ExternalIdEntry* two = index.find(2);
  REQUIRE(two != nullptr);
  CHECK(two->hasId);
  CHECK(two->id == 500);
  CHECK(two->hasScope);
  CHECK(two->scopeId == 1);
  CHECK(t.strings.get(two->scopeName) == "outer");
  const ExternalIdEntry* three = index.find(3);
  REQUIRE(three != nullptr);
  CHECK_FALSE(three->hasId);
  CHECK(t.strings.get(three->scopeName) == "inner \"q\"");
  CHECK(index.scopeName(7) == kNoString);

  Trace empty;
  CHECK(ExternalIdIndex(empty).empty());
  CHECK(std::string(externalKindName(static_cast<uint8_t>(ExternalKind::Id))) == "id");
  CHECK(std::string(externalKindName(static_cast<uint8_t>(ExternalKind::Scope))) == "scope");
  CHECK(std::string(externalKindName(200)) == "unknown");
}

TEST_CASE("external ids: the external_ids table and the kernels' columns", "[external_ids][csv]") {
  Trace t;
  fillTrace(t);
  const auto ids = csvTableRows(t, RecordKind::ExternalId);
  REQUIRE(ids.size() == 4);  // header and three records
  CHECK(ids[0] == std::vector<std::string>{"correlation_id", "kind", "external_id", "scope"});
  CHECK(ids[1] == std::vector<std::string>{"2", "scope", "1", "outer"});
  CHECK(ids[2] == std::vector<std::string>{"2", "id", "500", ""});
  CHECK(ids[3] == std::vector<std::string>{"3", "scope", "2", "inner \"q\""});

  const auto kernels = csvTableRows(t, RecordKind::Kernel);
  REQUIRE(kernels.size() == 4);
  const size_t corr = csvColumn(kernels[0], "correlation_id");
  const size_t ext = csvColumn(kernels[0], "external_id");
  const size_t scope = csvColumn(kernels[0], "scope");
  for (size_t i = 1; i < kernels.size(); ++i) {
    const std::string& c = kernels[i][corr];
    INFO("kernel of call " << c);
    CHECK(kernels[i][ext] == (c == "2" ? "500" : ""));
    CHECK(kernels[i][scope] == (c == "2" ? "outer" : c == "3" ? "inner \"q\"" : ""));
  }

  const auto api = csvTableRows(t, RecordKind::Api);
  const size_t domain = csvColumn(api[0], "domain");
  const size_t rv = csvColumn(api[0], "return_value");
  CHECK(api.back()[domain] == "osrt");
  CHECK(api.back()[rv] == "4");
}

TEST_CASE("external ids: JSON arguments on calls and GPU work, osrt calls in their category", "[external_ids][json]") {
  Trace t;
  fillTrace(t);
  std::ostringstream out;
  writeChromeJson(t, out);
  const json doc = json::parse(out.str());
  int kernels = 0, calls = 0, osrt = 0;
  for (const json& e : doc.at("traceEvents")) {
    if (e.value("ph", "") != "X") continue;
    const std::string cat = e.value("cat", "");
    const json args = e.value("args", json::object());
    if (cat == "kernel" || cat == "cuda_runtime") {
      (cat == "kernel" ? kernels : calls)++;
      const uint64_t corr = args.at("correlation").get<uint64_t>();
      INFO(cat << " correlation " << corr);
      if (corr == 2) {
        CHECK(args.at("External id") == 500);
        CHECK(args.at("scope") == "outer");
        CHECK(args.at("scope_id") == 1);
      } else if (corr == 3) {
        CHECK_FALSE(args.contains("External id"));
        CHECK(args.at("scope") == "inner \"q\"");
        CHECK(args.at("scope_id") == 2);
      } else {
        CHECK_FALSE(args.contains("External id"));
        CHECK_FALSE(args.contains("scope"));
      }
    } else if (cat == "osrt") {
      ++osrt;
      CHECK(e.at("name") == "read");
      CHECK(e.at("tid") == kPid);
      CHECK(args.at("errno") == 4);
      CHECK_FALSE(args.contains("correlation"));
      CHECK_FALSE(e.contains("bind_id"));  // no arrow from a C library call
    } else if (cat == "nvtx") {
      CHECK(e.at("tid") == kPid);  // the scopes, on their thread's track
    }
  }
  CHECK(kernels == 3);
  CHECK(calls == 3);
  CHECK(osrt == 1);
}

TEST_CASE("external ids: protobuf arguments, osrt calls in their category", "[external_ids][pftrace]") {
  Trace t;
  fillTrace(t);
  std::ostringstream out;
  writePerfettoProto(t, out);
  const auto d = cuptitrace::testing::perfetto::decodePerfetto(out.str());
  CHECK(d.problemText().empty());
  int withScope = 0;
  for (const auto& s : d.slices) {
    if (s.begin.categories != std::vector<std::string>{"kernel"} &&
        s.begin.categories != std::vector<std::string>{"cuda_runtime"})
      continue;
    const auto& args = s.begin.args;
    const uint64_t corr = args.at("correlation").u;
    INFO("correlation " << corr);
    if (corr == 2) {
      CHECK(args.at("External id").u == 500);
      CHECK(args.at("scope").s == "outer");
      CHECK(args.at("scope_id").u == 1);
      ++withScope;
    } else if (corr == 3) {
      CHECK_FALSE(args.count("External id"));
      CHECK(args.at("scope").s == "inner \"q\"");
      ++withScope;
    } else {
      CHECK_FALSE(args.count("scope"));
    }
  }
  CHECK(withScope == 4);  // the calls and the kernels of launches 2 and 3
  const auto osrt = d.slicesOf("osrt");
  REQUIRE(osrt.size() == 1);
  CHECK(osrt[0].begin.name == "read");
  CHECK(osrt[0].begin.args.at("errno").u == 4);
  CHECK(osrt[0].end - osrt[0].begin.ts == 800);
}

// ---- Python lines (--python-backtrace) -------------------------------------------

namespace {

// Launch 1 made inside the Python line "train.py:42 forward" (nested in an
// outer line: the innermost counts), launch 2 after it, launch 3 on another thread.
void fillPythonTrace(Trace& t) {
  t.meta.pid = kPid;
  t.meta.baseTimestampNs = kBase;
  t.contexts.push_back({1, 0, 7});
  addScopeRange(t, 0, 5000, "train.py:90 main", 0, kPythonNvtxDomain);
  addScopeRange(t, 100, 1000, "train.py:42 forward <- train.py:90 main", 0, kPythonNvtxDomain);
  addApi(t, 200, 300, 1);
  addKernel(t, 400, 500, 1);
  addApi(t, 1100, 1200, 2);
  addKernel(t, 1300, 1400, 2);
  ApiRecord other{};
  other.start = kBase + 150, other.end = kBase + 160;
  other.name = t.strings.intern("cudaLaunchKernel");
  other.correlationId = 3;
  other.threadId = kPid + 1;
  t.store.add(other);
  addExternal(t, 2, ExternalKind::Id, 77);  // an external id beside a line
}

}  // namespace

TEST_CASE("Python lines: the innermost line on the call's thread, by correlation id", "[external_ids][python]") {
  Trace t;
  fillPythonTrace(t);
  const ExternalIdIndex index(t);
  const ExternalIdEntry* e1 = index.find(1);
  REQUIRE(e1 != nullptr);
  CHECK(t.strings.get(e1->python) == "train.py:42 forward <- train.py:90 main");
  const ExternalIdEntry* e2 = index.find(2);
  REQUIRE(e2 != nullptr);
  CHECK(t.strings.get(e2->python) == "train.py:90 main");
  CHECK(e2->hasId);
  CHECK(e2->id == 77);
  CHECK(index.find(3) == nullptr);  // another thread: no line

  std::ostringstream out;
  writeChromeJson(t, out);
  const json doc = json::parse(out.str());
  int carried = 0;
  for (const json& e : doc.at("traceEvents")) {
    const std::string cat = e.value("cat", "");
    if (cat != "kernel" && cat != "cuda_runtime") continue;
    const json args = e.value("args", json::object());
    if (args.value("correlation", 0) == 1) {
      CHECK(args.at("python") == "train.py:42 forward <- train.py:90 main");
      ++carried;
    }
  }
  CHECK(carried == 2);  // the call and its kernel

  std::ostringstream proto;
  writePerfettoProto(t, proto);
  const auto d = cuptitrace::testing::perfetto::decodePerfetto(proto.str());
  CHECK(d.problemText().empty());
  int inProto = 0;
  for (const auto& s : d.slices)
    if (s.begin.args.count("python") && s.begin.args.at("python").s == "train.py:90 main") ++inProto;
  CHECK(inProto == 2);
}
