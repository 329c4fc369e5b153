// A small synthetic trace for exporter tests: every record kind, two streams,
// two threads, nested NVTX ranges, and names that break naive escaping.
#pragma once

#include <string>

#include "core/trace.h"

namespace cuptitrace::testing {

// Names that exporters must escape correctly.
inline const std::string kHostileKernelName =
    "_Z6kernelIN4math6VectorIfLi3EEEEvPKT_\"quoted\"\\back\nslash";
inline const std::string kUtf8Message = "r\xC3\xA9gion \xE2\x9C\x93 \"q\" \\ ,comma\nline";

// The pid fillSampleTrace and initTrace give the traced process.
inline constexpr uint32_t kSamplePid = 4242;

inline std::string longTemplateName() {
  std::string name = "void gemm<";
  for (int i = 0; i < 200; ++i) name += "cutlass::layout::RowMajor<" + std::to_string(i) + ">, ";
  return name + "float>(int)";
}

// Fills `t` (which must be fresh) with a trace of known contents:
// 3 kernels (2 on stream 7, 1 on stream 9), 2 memcpy, 1 memset, 6 API calls
// (launches + copies + one driver call), 3 NVTX records (outer/inner push-pop
// ranges and a mark) and 1 start/end range, 1 sync and 1 overhead record.
inline void fillSampleTrace(Trace& t) {
  t.meta.toolVersion = "test";
  t.meta.hostName = "testhost";
  t.meta.pid = kSamplePid;
  t.meta.processName = "sample_app";
  t.meta.commandLine = "./sample_app --flag \"x\"";
  t.meta.baseTimestampNs = 1'000'000'000ull;
  t.meta.startTimestampNs = 1'000'000'000ull;
  t.meta.endTimestampNs = 1'000'100'000ull;
  t.meta.cuptiVersion = 130001;
  t.meta.driverVersion = 13000;
  t.meta.config = {{"CUPTITRACE_ACTIVITIES", "kernel,memcpy"}, {"CUPTITRACE_FORMAT", "json"}};
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-1234"});
  t.contexts.push_back({1, 0, 7});
  t.streamNames[9] = "copy \"stream\"";
  t.threadNames[4243] = "worker";
  t.counters["dropped.cupti"] = 0;

  const uint64_t b = t.meta.baseTimestampNs;
  const StringId k1 = t.strings.intern(kHostileKernelName);
  const StringId k2 = t.strings.intern(longTemplateName());
  const StringId k3 = t.strings.intern("_Z3addPfS_S_i");

  auto api = [&](uint64_t s, uint64_t e, const char* name, uint32_t corr, uint32_t tid,
                 ApiDomain domain) {
    ApiRecord r{};
    r.start = b + s; r.end = b + e; r.name = t.strings.intern(name); r.correlationId = corr;
    r.threadId = tid; r.cbid = 211; r.returnValue = 0; r.domain = static_cast<uint8_t>(domain);
    t.store.add(r);
  };
  api(1000, 5000, "cudaLaunchKernel", 11, 4242, ApiDomain::Runtime);
  api(1500, 4500, "cuLaunchKernel", 11, 4242, ApiDomain::Driver);
  api(6000, 9000, "cudaLaunchKernel", 12, 4242, ApiDomain::Runtime);
  api(6500, 9500, "cudaLaunchKernel", 13, 4243, ApiDomain::Runtime);
  api(10000, 30000, "cudaMemcpyAsync", 14, 4242, ApiDomain::Runtime);
  api(31000, 32000, "cudaMemsetAsync", 15, 4243, ApiDomain::Runtime);
  api(33000, 34000, "cudaMemcpy", 16, 4242, ApiDomain::Runtime);

  auto kernel = [&](uint64_t s, uint64_t e, StringId name, uint32_t corr, uint32_t stream) {
    KernelRecord k{};
    k.start = b + s; k.end = b + e; k.name = name; k.correlationId = corr; k.deviceId = 0;
    k.contextId = 1; k.streamId = stream; k.gridX = 128; k.gridY = 1; k.gridZ = 1;
    k.blockX = 256; k.blockY = 1; k.blockZ = 1; k.registersPerThread = 32;
    k.staticSharedMemory = 1024; k.dynamicSharedMemory = 0;
    t.store.add(k);
  };
  kernel(8000, 20000, k1, 11, 7);
  kernel(20000, 26000, k2, 12, 7);
  kernel(9000, 15000, k3, 13, 9);

  MemcpyRecord m{};
  m.start = b + 30000; m.end = b + 40000; m.bytes = 1 << 20; m.correlationId = 14; m.deviceId = 0;
  m.contextId = 1; m.streamId = 9; m.srcDeviceId = 0; m.dstDeviceId = 0;
  m.copyKind = static_cast<uint8_t>(CopyKind::HtoD); m.srcKind = static_cast<uint8_t>(MemoryKind::Pinned);
  m.dstKind = static_cast<uint8_t>(MemoryKind::Device); m.flags = kCopyFlagAsync;
  t.store.add(m);
  m.start = b + 41000; m.end = b + 45000; m.bytes = 4096; m.correlationId = 16; m.streamId = 7;
  m.copyKind = static_cast<uint8_t>(CopyKind::DtoH); m.srcKind = static_cast<uint8_t>(MemoryKind::Device);
  m.dstKind = static_cast<uint8_t>(MemoryKind::Pageable); m.flags = 0;
  t.store.add(m);

  MemsetRecord ms{};
  ms.start = b + 32500; ms.end = b + 33500; ms.bytes = 4096; ms.value = 0; ms.correlationId = 15;
  ms.deviceId = 0; ms.contextId = 1; ms.streamId = 9; ms.memoryKind = static_cast<uint8_t>(MemoryKind::Device);
  ms.flags = kCopyFlagAsync;
  t.store.add(ms);

  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::PushPop); n.threadId = 4242; n.endThreadId = 4242;
  n.start = b + 500; n.end = b + 50000; n.message = t.strings.intern("outer"); n.depth = 0;
  n.color = 0xFF00FF00; n.flags = kNvtxHasColor;
  t.store.add(n);
  n.start = b + 900; n.end = b + 9600; n.message = t.strings.intern(kUtf8Message); n.depth = 1;
  n.domain = t.strings.intern("my domain"); n.category = 3; n.flags = 0;
  t.store.add(n);
  NvtxRecord mark{};
  mark.type = static_cast<uint8_t>(NvtxType::Mark); mark.threadId = 4243; mark.endThreadId = 4243;
  mark.start = mark.end = b + 7000; mark.message = t.strings.intern("checkpoint");
  t.store.add(mark);
  NvtxRecord se{};
  se.type = static_cast<uint8_t>(NvtxType::StartEnd); se.threadId = 4242; se.endThreadId = 4243;
  se.start = b + 2000; se.end = b + 35000; se.id = 77; se.message = t.strings.intern("async range");
  t.store.add(se);

  SyncRecord sy{};
  sy.start = b + 34000; sy.end = b + 45500; sy.correlationId = 16; sy.contextId = 1; sy.streamId = 7;
  sy.eventId = 0xffffffff; sy.type = static_cast<uint8_t>(SyncType::StreamSynchronize);
  t.store.add(sy);

  OverheadRecord o{};
  o.start = b + 46000; o.end = b + 47000; o.name = t.strings.intern("CUPTI buffer flush");
  o.threadId = 4242; o.deviceId = 0xffffffff;
  t.store.add(o);
}

// A trace with just what a test adds, on the sample's pid and base.
inline void initTrace(Trace& t) {
  t.meta.pid = kSamplePid;
  t.meta.processName = "app";
  t.meta.baseTimestampNs = 1'000'000'000ull;
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-1234"});
}
inline void addApi(Trace& t, uint64_t start, uint64_t end, uint32_t correlation, uint32_t tid = kSamplePid,
                   ApiDomain domain = ApiDomain::Runtime, const char* name = "cudaLaunchKernel") {
  ApiRecord r{};
  r.start = start;
  r.end = end;
  r.name = t.strings.intern(name);
  r.correlationId = correlation;
  r.threadId = tid;
  r.domain = static_cast<uint8_t>(domain);
  t.store.add(r);
}
inline void addKernel(Trace& t, uint64_t start, uint64_t end, uint32_t correlation, uint32_t stream = 7,
                      const std::string& name = "_Z3addPfS_S_i") {
  KernelRecord k{};
  k.start = start;
  k.end = end;
  k.name = t.strings.intern(name);
  k.correlationId = correlation;
  k.contextId = 1;
  k.streamId = stream;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = k.blockY = k.blockZ = 1;
  t.store.add(k);
}
inline void addNvtx(Trace& t, NvtxType type, uint64_t start, uint64_t end, const std::string& message,
                    uint32_t tid = kSamplePid) {
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(type);
  n.start = start;
  n.end = end;
  n.message = t.strings.intern(message);
  n.threadId = n.endThreadId = tid;
  t.store.add(n);
}

// Two launches for the arguments written only when unusual: correlation 1 is
// a plain call and kernel; correlation 2 a call that failed (719) and a
// cooperative, device-launched kernel that is node 44 of graph 3.
inline void addUsualAndUnusualLaunch(Trace& t) {
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 100, b + 200, 1);
  addKernel(t, b + 300, b + 400, 1);
  ApiRecord failed = t.store.records<ApiRecord>()[0];
  failed.start = b + 500;
  failed.end = b + 600;
  failed.correlationId = 2;
  failed.returnValue = 719;  // cudaErrorLaunchFailure
  t.store.add(failed);
  KernelRecord k = t.store.records<KernelRecord>()[0];
  k.start = b + 700;
  k.end = b + 800;
  k.correlationId = 2;
  k.launchType = static_cast<uint8_t>(KernelLaunchType::CooperativeSingle);
  k.isDeviceLaunched = 1;
  k.graphId = 3;
  k.graphNodeId = 44;
  t.store.add(k);
}


// 12 graph branches of different lengths, replayed 3 times on stream 7; each
// replay's kernels share the correlation id (100 + replay) of its
// cudaGraphLaunch at base + 10000 * replay. Branch k runs from +10 + k to
// +1000 + 300 * k of its replay.
inline void addGraphBranchReplays(Trace& t) {
  const uint64_t b = t.meta.baseTimestampNs;
  for (uint32_t replay = 0; replay < 3; ++replay) {
    const uint64_t at = b + 10000 * replay;
    addApi(t, at, at + 5, 100 + replay, kSamplePid, ApiDomain::Runtime, "cudaGraphLaunch");
    for (uint64_t branch = 0; branch < 12; ++branch)
      addKernel(t, at + 10 + branch, at + 1000 + 300 * branch, 100 + replay);
  }
}

// Launches and kernels of which no pair may be linked by an arrow: one end of
// each is missing or unusable.
inline void addLaunchesMissingAnEnd(Trace& t) {
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 100, b + 200, 1);  // its kernel was not collected (end 0)
  addKernel(t, b + 300, 0, 1);
  addApi(t, b + 400, b + 500, 2);     // launched nothing that was recorded
  addKernel(t, b + 600, b + 700, 3);  // its launch call was not recorded
  addApi(t, 0, b + 750, 4);           // launch call without a start
  addKernel(t, b + 800, b + 900, 4);
}

}  // namespace cuptitrace::testing
