// One process driving two GPUs: each device's work in its own GPU process,
// a peer copy on the stream of the device that ran it with both devices
// named, and an arrow from each launching call to its work on either device.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "exporters/csv/csv.h"
#include "timeline/track_layout.h"

using namespace cuptitrace;
using nlohmann::json;

namespace {

constexpr uint32_t kPid = 700;
constexpr uint64_t kBase = 2'000'000'000ull;

// Kernels on devices 0 and 1 (streams 13 and 14), a copy 0 -> 1 run by device 0
// and one 1 -> 0 run by device 1, each launched from the main thread.
void fillTwoGpus(Trace& t) {
  t.meta.toolVersion = "test";
  t.meta.hostName = "node1";
  t.meta.pid = kPid;
  t.meta.processName = "peer_copy";
  t.meta.baseTimestampNs = kBase;
  t.meta.startTimestampNs = kBase;
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 80ull << 30, 1980000, "GPU-a"});
  t.devices.push_back({1, "NVIDIA H100 80GB HBM3", 9, 0, 132, 80ull << 30, 1980000, "GPU-b"});
  t.contexts.push_back({1, 0, 7});
  t.contexts.push_back({2, 1, 8});
  uint32_t corr = 1;
  auto api = [&](uint64_t at, const char* name) {
    ApiRecord a{};
    a.start = kBase + at;
    a.end = kBase + at + 500;
    a.name = t.strings.intern(name);
    a.correlationId = corr;
    a.threadId = kPid;
    a.domain = static_cast<uint8_t>(ApiDomain::Runtime);
    t.store.add(a);
  };
  auto kernel = [&](uint64_t at, uint32_t device, uint32_t context, uint32_t stream) {
    api(at, "cudaLaunchKernel");
    KernelRecord k{};
    k.start = kBase + at + 2000;
    k.end = k.start + 10000;
    k.name = t.strings.intern("_Z5scalePfi");
    k.correlationId = corr++;
    k.deviceId = device;
    k.contextId = context;
    k.streamId = stream;
    k.gridX = k.gridY = k.gridZ = 1;
    k.blockX = k.blockY = k.blockZ = 1;
    t.store.add(k);
  };
  auto peer = [&](uint64_t at, uint32_t device, uint32_t context, uint32_t stream, uint32_t src,
                  uint32_t dst) {
    api(at, "cudaMemcpyPeerAsync");
    MemcpyRecord m{};
    m.start = kBase + at + 2000;
    m.end = m.start + 20000;
    m.bytes = 1 << 20;
    m.correlationId = corr++;
    m.deviceId = device;
    m.contextId = context;
    m.streamId = stream;
    m.srcDeviceId = src;
    m.dstDeviceId = dst;
    m.copyKind = static_cast<uint8_t>(CopyKind::PtoP);
    m.srcKind = m.dstKind = static_cast<uint8_t>(MemoryKind::Device);
    m.flags = kCopyFlagAsync;
    t.store.add(m);
  };
  kernel(1000, 0, 1, 13);
  kernel(2000, 1, 2, 14);
  peer(40000, 0, 1, 13, 0, 1);
  peer(41000, 1, 2, 14, 1, 0);
}

}  // namespace

TEST_CASE("multi-GPU: each device its process, peer copies with both ends, arrows to either",
          "[multigpu]") {
  Trace t;
  fillTwoGpus(t);
  std::ostringstream out;
  writeChromeJson(t, out);
  const json doc = json::parse(out.str());
  const int64_t gpu0 = gpuProcessId(kPid, 0), gpu1 = gpuProcessId(kPid, 1);
  std::map<int64_t, std::string> names;
  std::map<std::pair<int64_t, int64_t>, std::string> threads;
  std::map<uint64_t, json> flowOut, flowIn;
  std::vector<json> copies;
  std::map<int64_t, int> kernels;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") names[e["pid"]] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "thread_name")
      threads[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["ph"] != "X") continue;
    if (e.contains("flow_out")) flowOut[e["bind_id"].get<uint64_t>()] = e;
    if (e.contains("flow_in")) flowIn[e["bind_id"].get<uint64_t>()] = e;
    if (e["cat"] == "gpu_memcpy") copies.push_back(e);
    if (e["cat"] == "kernel") ++kernels[e["pid"]];
  }
  CHECK(names.at(gpu0).rfind("GPU 0: NVIDIA H100", 0) == 0);
  CHECK(names.at(gpu1).rfind("GPU 1: NVIDIA H100", 0) == 0);
  CHECK(kernels[gpu0] == 1);
  CHECK(kernels[gpu1] == 1);
  CHECK(threads.count({gpu0, 13}) == 1);
  CHECK(threads.count({gpu1, 14}) == 1);
  REQUIRE(copies.size() == 2);
  for (const json& c : copies) {
    CHECK(c["args"]["copy_kind"] == "PtoP");
    const uint64_t src = c["args"]["src_device"], dst = c["args"]["dst_device"];
    CHECK(src != dst);
    // On the stream of the device that ran it.
    CHECK(c["pid"] == (src == 0 ? gpu0 : gpu1));
    CHECK(c["tid"] == (src == 0 ? 13 : 14));
  }
  // An arrow from each of the 4 calls to its work, on whichever device.
  REQUIRE(flowOut.size() == 4);
  std::set<int64_t> targets;
  for (const auto& [id, from] : flowOut) {
    REQUIRE(flowIn.count(id) == 1);
    CHECK(from["pid"] == kPid);
    CHECK(from["args"]["correlation"] == flowIn[id]["args"]["correlation"]);
    targets.insert(flowIn[id]["pid"].get<int64_t>());
  }
  CHECK(targets == std::set<int64_t>{gpu0, gpu1});

  // The CSV names both ends of each peer copy.
  std::ostringstream csv;
  writeCsvTable(t, RecordKind::Memcpy, csv);
  const std::string text = csv.str();
  CHECK(text.find(",PtoP,Device,Device,1,0,1,") != std::string::npos);
  CHECK(text.find(",PtoP,Device,Device,1,1,0,") != std::string::npos);
}
