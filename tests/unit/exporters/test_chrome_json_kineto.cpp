// The fields of the PyTorch profiler's trace (Kineto) in our Chrome JSON, as
// the tools written for it (Holistic Trace Analysis, users' scripts) read
// them: the top-level schemaVersion, distributedInfo and deviceProperties;
// the GPU events' stream and device; PyTorch's operators as "cpu_op" and
// torch.profiler's steps as "user_annotation" events named ProfilerStep#N.
#include <regex>

#include "chrome_json_fixture.h"
#include "timeline/track_layout.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;
using namespace cuptitrace::testing::chrome;
using nlohmann::json;

namespace {

// The rank as Holistic Trace Analysis finds it: the first match of its regex in the file's text.
int rankByRegex(const std::string& text) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(R"("rank":\s+(\d+))"))) return -1;
  return std::stoi(m[1]);
}

}  // namespace

TEST_CASE("kineto: schema version, the rank with a space after its colon, the devices", "[json][kineto]") {
  Trace t;
  fillSampleTrace(t);
  Exported plain = exportTrace(t);
  CHECK(plain.doc.at("schemaVersion") == 1);
  CHECK_FALSE(plain.doc.contains("distributedInfo"));  // not started as a rank
  CHECK(rankByRegex(plain.text) == -1);
  const json devices = plain.doc.at("deviceProperties");
  REQUIRE(devices.size() == 1);
  CHECK(devices[0]["id"] == 0);
  CHECK(devices[0]["name"] == "NVIDIA H100 80GB HBM3");
  CHECK(devices[0]["computeMajor"] == 9);
  CHECK(devices[0]["computeMinor"] == 0);
  CHECK(devices[0]["numSms"] == 132);
  CHECK(devices[0]["totalGlobalMem"] == 85ull << 30);
  // Our own metadata still says it all.
  CHECK(plain.meta()["devices"][0]["multiprocessors"] == 132);

  t.meta.rank = 3;
  t.meta.localRank = 1;
  t.meta.worldSize = 4;
  Exported ranked = exportTrace(t);
  CHECK(ranked.doc.at("distributedInfo")["rank"] == 3);
  CHECK(ranked.doc.at("distributedInfo")["world_size"] == 4);
  CHECK(rankByRegex(ranked.text) == 3);
}

TEST_CASE("kineto: GPU events carry their stream and device; categories of the profiler", "[json][kineto]") {
  const Exported e = exportSample();
  for (const char* cat : {"kernel", "gpu_memcpy", "gpu_memset"}) {
    INFO(cat);
    const auto work = slices(e.events(), cat);
    REQUIRE_FALSE(work.empty());
    for (const json& w : work) {
      CHECK(w["args"]["device"] == 0);
      // The stream's track, or one of its lanes (laneTid: the lane above bit 24).
      CHECK(w["args"]["stream"] == (w["tid"].get<uint32_t>() & 0xFFFFFFu));
    }
  }
  CHECK(sliceByCorrelation(e.events(), "gpu_memcpy", 14)["args"]["stream"] == 9);
  CHECK(slices(e.events(), "memcpy").empty());
  CHECK(slices(e.events(), "cuda_sync").size() == 1);
  // Calls keep no stream: a CPU event to the profiler's readers.
  for (const json& call : slices(e.events(), "cuda_runtime")) CHECK_FALSE(call["args"].contains("stream"));
}

TEST_CASE("kineto: PyTorch's operators as cpu_op, its steps as user_annotation", "[json][kineto]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addNvtx(t, NvtxType::PushPop, b + 100, b + 900, "aten::addmm, seq = 12, op_id = 40, sizes = [[64], [64, 128]]");
  addNvtx(t, NvtxType::PushPop, b + 950, b + 990, "aten::odd, op_id = 41, sizes = [[x]]");
  addNvtx(t, NvtxType::PushPop, b + 50, b + 1000, "ProfilerStep#7");
  addNvtx(t, NvtxType::PushPop, b + 1000, b + 1100, "my range");
  const Exported e = exportTrace(t);
  const auto ops = slices(e.events(), "cpu_op");
  REQUIRE(ops.size() == 2);
  const json addmm = ops[0]["name"] == "aten::addmm" ? ops[0] : ops[1];
  CHECK(addmm["name"] == "aten::addmm");
  CHECK(addmm["args"]["External id"] == 40);
  CHECK(addmm["args"]["Sequence number"] == 12);
  CHECK(addmm["args"]["Input Dims"] == json::parse("[[64], [64, 128]]"));
  const json odd = ops[0]["name"] == "aten::odd" ? ops[0] : ops[1];
  CHECK(odd["args"]["Input Dims"] == "[[x]]");  // not a JSON array: kept as text
  CHECK_FALSE(odd["args"].contains("Sequence number"));
  const auto steps = slices(e.events(), "user_annotation");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0]["name"] == "ProfilerStep#7");
  CHECK(slices(e.events(), "nvtx").size() == 1);
  // Steps that are ProfilerStep#N ranges already get no track of their own.
  CHECK(where(e.events(), [](const json& x) { return x.value("tid", 0u) == kStepsTid; }).empty());
}

TEST_CASE("kineto: steps found by other rules drawn as ProfilerStep#N on a track of their own", "[json][kineto]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addNvtx(t, NvtxType::PushPop, b + 100, b + 1000, "step 1");
  addNvtx(t, NvtxType::PushPop, b + 1000, b + 2000, "step 2");
  addNvtx(t, NvtxType::PushPop, b + 1500, b + 2500, "step 3", kSamplePid + 1);  // overlaps step 2
  addApi(t, b + 1100, b + 1200, 5);
  addKernel(t, b + 1300, b + 1400, 5);
  const Exported e = exportTrace(t);
  const auto steps = slices(e.events(), "user_annotation");
  REQUIRE(steps.size() == 2);
  CHECK(steps[0]["name"] == "ProfilerStep#0");
  CHECK(ns(steps[0]["ts"]) == 100);
  CHECK(ns(steps[0]["dur"]) == 900);
  CHECK(steps[1]["name"] == "ProfilerStep#1");
  CHECK(ns(steps[1]["ts"]) == 1000);
  for (const json& s : steps) {
    CHECK(s["pid"] == kHostPid);
    CHECK(s["tid"] == kStepsTid);
  }
  CHECK(nameOf(e.events(), "thread_name", kHostPid, kStepsTid) == "Steps");
  CHECK(slices(e.events(), "nvtx").size() == 3);  // the ranges themselves stay
}
