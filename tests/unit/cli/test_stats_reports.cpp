// `cuptitrace stats` with the uvm, osrt and external_ids reports: listed in
// the help, selected by name, and read from a saved native trace the way the
// GPU checks read them (tests/gpu/check_depth.py).
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/stats_command.h"
#include "exporters/native/native.h"
#include "memory_fixture.h"
#include "temp_dir.h"

namespace cuptitrace {
namespace {

constexpr uint64_t kBase = 1'000'000'000ull;

// Unified memory, C library calls and a kernel under external id 7 in scope "step".
void fillTrace(Trace& t) {
  t.meta.pid = 77;
  t.meta.baseTimestampNs = kBase;
  t.meta.config = {{"CUPTITRACE_OSRT_THRESHOLD", "1us"}};
  testing::addUvm(t, UvmKind::BytesHtoD, kBase, kBase + 100, 65536, 0);
  testing::addUvm(t, UvmKind::CpuPageFault, kBase + 200, kBase + 200, 0x1234, kUvmNoDevice);
  testing::addUvm(t, UvmKind::CpuPageFault, kBase + 300, kBase + 300, 0x1234, kUvmNoDevice);
  testing::addApi(t, kBase + 1000, kBase + 3000, "fgets", 0, ApiDomain::Osrt);
  testing::addApi(t, kBase + 4000, kBase + 5000, "fgets", 0, ApiDomain::Osrt);
  testing::addApi(t, kBase + 6000, kBase + 6050, "cudaLaunchKernel", 5);
  KernelRecord k{};
  k.start = kBase + 6100;
  k.end = kBase + 6400;
  k.name = t.strings.intern("_Z1kv");
  k.correlationId = 5;
  t.store.add(k);
  for (const auto& [kind, id] :
       {std::pair{ExternalKind::Id, uint64_t{7}}, std::pair{ExternalKind::Scope, uint64_t{1}}}) {
    ExternalIdRecord e{};
    e.correlationId = 5;
    e.externalKind = static_cast<uint8_t>(kind);
    e.externalId = id;
    t.store.add(e);
  }
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::PushPop);
  n.start = kBase + 5900;
  n.end = kBase + 6500;
  n.message = t.strings.intern("step");
  n.domain = t.strings.intern(kScopeNvtxDomain);
  n.payloadType = static_cast<uint8_t>(NvtxPayload::U64);
  n.payload = 1;
  n.threadId = n.endThreadId = 77;
  t.store.add(n);
}

nlohmann::json runJson(const std::string& path, const std::string& reports) {
  std::string out, err;
  const int rc = cli::runStats({path, "--report", reports, "--format", "json"}, out, err);
  INFO(err);
  REQUIRE(rc == 0);
  return nlohmann::json::parse(out)["reports"];
}

}  // namespace

TEST_CASE("stats: the uvm, osrt and external_ids reports are listed and selectable",
          "[report][stats]") {
  const std::string usage = cli::statsUsage();
  for (const char* name : {"  uvm ", "  osrt ", "  external_ids "})
    CHECK_THAT(usage, Catch::Contains(name));

  const testing::TempDir dir;
  const std::string path = dir.path("run.native");
  {
    Trace trace;
    fillTrace(trace);
    std::ofstream out(path, std::ios::binary);
    writeNative(trace, out);
  }
  const auto reports = runJson(path, "uvm,osrt,external_ids");
  REQUIRE(reports.size() == 3);

  CHECK(reports[0]["name"] == "uvm");
  const auto& uvm = reports[0]["rows"];
  REQUIRE(uvm.size() == 2);
  CHECK(uvm[0]["counter"] == "HtoD");
  CHECK(uvm[0]["total_bytes"] == 65536);
  CHECK(uvm[1]["counter"] == "CPU page fault");
  CHECK(uvm[1]["count"] == 2);

  CHECK(reports[1]["name"] == "osrt");
  const auto& osrt = reports[1]["rows"];
  REQUIRE(osrt.size() == 1);
  CHECK(osrt[0]["name"] == "fgets");
  CHECK(osrt[0]["calls"] == 2);
  CHECK(osrt[0]["total_ns"] == 3000);

  CHECK(reports[2]["name"] == "external_ids");
  const auto& ids = reports[2]["rows"];
  REQUIRE(ids.size() == 2);
  CHECK(ids[0]["kind"] == "id");
  CHECK(ids[0]["name"] == "7");
  CHECK(ids[0]["kernels"] == 1);
  CHECK(ids[0]["api_calls"] == 1);
  CHECK(ids[1]["kind"] == "scope");
  CHECK(ids[1]["name"] == "step");
  CHECK(ids[1]["gpu_total_ns"] == 300);
}

}  // namespace cuptitrace
