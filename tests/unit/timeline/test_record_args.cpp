// record_args.h: each record kind's arguments, listed once for every
// timeline format, through a sink that records what it is given.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "timeline/record_args.h"

using namespace cuptitrace;

namespace {

struct ListSink {
  std::vector<std::string> names;
  std::vector<std::string> values;
  void add(Arg a, std::string v) {
    names.push_back(argName(a));
    values.push_back(std::move(v));
  }
  void u(Arg a, uint64_t v) { add(a, std::to_string(v)); }
  void i(Arg a, int64_t v) { add(a, std::to_string(v)); }
  void b(Arg a, bool v) { add(a, v ? "true" : "false"); }
  void real(Arg a, double v, int digits) { add(a, std::to_string(v) + "/" + std::to_string(digits)); }
  void single(Arg a, float v) { add(a, std::to_string(v) + "f"); }
  void string(Arg a, StringId id) { add(a, "#" + std::to_string(id)); }
  void text(Arg a, std::string_view v) { add(a, std::string(v)); }
  void label(Arg a, Label, uint8_t, const char* name) { add(a, name); }
  void dim3(Arg a, int64_t x, int64_t y, int64_t z) {
    add(a, std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z));
  }
  void where(Arg a, uint64_t v) { add(a, "where " + std::to_string(v)); }
  void json(Arg a, std::string_view v) { add(a, "json " + std::string(v)); }
  void nccl(StringId) { names.push_back("<nccl>"); values.emplace_back(); }
  void externalIds(uint32_t id) {
    names.push_back("<external ids>");
    values.push_back(std::to_string(id));
  }
};

}  // namespace

TEST_CASE("record args: every name is distinct and none is empty") {
  for (uint32_t i = 1; i < kArgCount; ++i) {
    INFO(i);
    CHECK(std::string(kArgNames[i]).size() > 0);
    for (uint32_t j = i + 1; j < kArgCount; ++j) CHECK(std::string(kArgNames[i]) != kArgNames[j]);
  }
}

TEST_CASE("record args: a kernel's arguments in order, the optional ones only when set") {
  KernelRecord k{};
  k.correlationId = 7;
  k.deviceId = 1;
  k.streamId = 13;
  k.gridX = 4, k.gridY = 2, k.gridZ = 1;
  k.blockX = 128, k.blockY = 1, k.blockZ = 1;
  k.registersPerThread = 32;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 0;
  k.launchType = static_cast<uint8_t>(KernelLaunchType::Regular);
  ListSink plain;
  kernelArgs(k, plain);
  CHECK(plain.names == std::vector<std::string>{"device", "stream", "correlation", "grid", "block", "registers",
                                                "static_smem", "dynamic_smem", "<nccl>", "<external ids>"});
  CHECK(plain.values[0] == "where 1");
  CHECK(plain.values[1] == "where 13");
  CHECK(plain.values[3] == "4,2,1");
  CHECK(plain.values[9] == "7");

  k.graphId = 3;
  k.graphNodeId = 9;
  k.isDeviceLaunched = 1;
  ListSink graph;
  kernelArgs(k, graph);
  CHECK(graph.names == std::vector<std::string>{"device", "stream", "correlation", "grid", "block", "registers", "static_smem",
                                                "dynamic_smem", "graph_id", "graph_node_id", "device_launched",
                                                "<nccl>", "<external ids>"});
}

TEST_CASE("record args: a copy's bandwidth only when it has a duration, peers only for peer copies") {
  MemcpyRecord m{};
  m.bytes = 2000;
  m.copyKind = static_cast<uint8_t>(CopyKind::HtoD);
  m.srcKind = static_cast<uint8_t>(MemoryKind::Pinned);
  m.dstKind = static_cast<uint8_t>(MemoryKind::Device);
  m.start = 100;
  m.end = 100;
  ListSink instant;
  memcpyArgs(m, instant);
  CHECK(instant.names == std::vector<std::string>{"device", "stream", "bytes", "copy_kind", "src_kind",
                                                  "dst_kind", "async", "correlation", "<external ids>"});
  CHECK(instant.values[3] == "HtoD");
  CHECK(instant.values[4] == "Pinned");

  m.end = 1100;
  m.copyKind = static_cast<uint8_t>(CopyKind::PtoP);
  m.srcDeviceId = 0;
  m.dstDeviceId = 1;
  ListSink peer;
  memcpyArgs(m, peer);
  CHECK(peer.names == std::vector<std::string>{"device", "stream", "bytes", "copy_kind", "src_kind",
                                               "dst_kind", "async", "bandwidth_GBps", "correlation",
                                               "src_device", "dst_device", "<external ids>"});
  CHECK(peer.values[7] == std::to_string(2.0) + "/6");  // 2000 bytes in 1000 ns: 2 GB/s
}

TEST_CASE("record args: C library calls carry only their errno") {
  ApiRecord r{};
  r.domain = static_cast<uint8_t>(ApiDomain::Osrt);
  r.correlationId = 5;
  ListSink ok;
  apiArgs(r, ok);
  CHECK(ok.names.empty());
  r.returnValue = 11;
  ListSink failed;
  apiArgs(r, failed);
  CHECK(failed.names == std::vector<std::string>{"errno"});
  r.domain = static_cast<uint8_t>(ApiDomain::Runtime);
  ListSink call;
  apiArgs(r, call);
  CHECK(call.names == std::vector<std::string>{"correlation", "return_value", "<external ids>"});
}

TEST_CASE("record args: NVTX payloads keep their type; start/end ranges say their threads") {
  NvtxRecord r{};
  r.type = static_cast<uint8_t>(NvtxType::PushPop);
  r.domain = kNoString;
  r.category = 2;
  r.flags = kNvtxHasColor;
  r.color = 0xFF00FF00u;
  r.payloadType = static_cast<uint8_t>(NvtxPayload::I32);
  r.payload = static_cast<uint32_t>(-5);
  r.depth = 1;
  ListSink range;
  nvtxArgs(r, true, range);
  CHECK(range.names == std::vector<std::string>{"category", "color", "payload", "depth"});
  CHECK(range.values[1] == "#FF00FF00");
  CHECK(range.values[2] == "-5");

  ListSink mark;
  r.type = static_cast<uint8_t>(NvtxType::Mark);
  nvtxArgs(r, false, mark);
  CHECK(mark.names == std::vector<std::string>{"category", "color", "payload"});

  r.type = static_cast<uint8_t>(NvtxType::StartEnd);
  r.flags = 0;
  r.payloadType = static_cast<uint8_t>(NvtxPayload::None);
  r.id = 42;
  r.threadId = 100;
  r.endThreadId = 200;
  ListSink startEnd;
  nvtxArgs(r, true, startEnd);
  CHECK(startEnd.names == std::vector<std::string>{"category", "range_id", "thread", "end_thread"});
}

TEST_CASE("record args: a PyTorch operator's id, sequence number and sizes, under the profiler's names") {
  ListSink op;
  torchOpArgs(parseTorchRange("aten::addmm, seq = 12, op_id = 40, sizes = [[64], [64, 128]]"), op);
  CHECK(op.names == std::vector<std::string>{"External id", "Sequence number", "Input Dims"});
  CHECK(op.values == std::vector<std::string>{"40", "12", "json [[64], [64, 128]]"});
  ListSink plain;
  torchOpArgs(parseTorchRange("aten::empty"), plain);
  CHECK(plain.names.empty());
}
