// Hand-made traces of the ranks of a data-parallel job: each step, a compute
// kernel, then an NCCL all-reduce that ends on every rank at the same time
// (when the last rank has arrived), then a copy.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/trace.h"

namespace cuptitrace::testing {

inline constexpr uint64_t kStepNs = 1'000'000;  // steps start 1 ms apart
inline constexpr uint64_t kAllReduceTailNs =
    100'000;  // the all-reduce's own work, once all arrived
inline constexpr uint64_t kCopyNs = 50'000;
inline constexpr uint64_t kRankBase = 5'000'000'000ull;
inline const std::string kAllReduceKernel = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

// Rank `rank` of `worldSize`, whose compute takes computeNs[rank][step], all
// ranks' compute given so the all-reduce ends when the slowest is done.
inline void fillRank(Trace& t, int64_t rank, uint32_t worldSize,
                     const std::vector<std::vector<uint64_t>>& computeNs, uint32_t pid) {
  t.meta.toolVersion = "test";
  t.meta.hostName = "node1";
  t.meta.pid = pid;
  t.meta.processName = "python";
  t.meta.rank = rank;
  t.meta.localRank = rank;
  t.meta.worldSize = worldSize;
  t.meta.rankSource = "RANK";
  t.meta.baseTimestampNs = kRankBase;
  t.meta.startTimestampNs = kRankBase;
  t.meta.startRealtimeNs = kRankBase;
  const uint32_t device = static_cast<uint32_t>(rank);
  t.devices.push_back({device, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-r"});
  const StringId compute = t.strings.intern("_Z4gemmPfS_S_");
  const StringId allReduce = t.strings.intern(kAllReduceKernel);
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  uint32_t corr = 1;
  auto kernel = [&](uint64_t start, uint64_t end, StringId name, uint32_t stream) {
    ApiRecord a{};
    a.start = start - 5000;
    a.end = start - 1000;
    a.name = launch;
    a.correlationId = corr;
    a.threadId = pid;
    a.domain = static_cast<uint8_t>(ApiDomain::Runtime);
    t.store.add(a);
    KernelRecord k{};
    k.start = start;
    k.end = end;
    k.name = name;
    k.correlationId = corr++;
    k.deviceId = device;
    k.contextId = 1;
    k.streamId = stream;
    k.gridX = k.gridY = k.gridZ = 1;
    k.blockX = k.blockY = k.blockZ = 1;
    t.store.add(k);
  };
  const auto& mine = computeNs[static_cast<size_t>(rank)];
  for (size_t step = 0; step < mine.size(); ++step) {
    const uint64_t at = kRankBase + 10'000 + step * kStepNs;
    uint64_t slowest = 0;
    for (const auto& other : computeNs) slowest = std::max(slowest, other[step]);
    kernel(at, at + mine[step], compute, 7);
    kernel(at + mine[step], at + slowest + kAllReduceTailNs, allReduce, 13);
    MemcpyRecord m{};
    m.start = at + slowest + kAllReduceTailNs;
    m.end = m.start + kCopyNs;
    m.bytes = 4096;
    m.correlationId = corr++;
    m.deviceId = device;
    m.srcDeviceId = m.dstDeviceId = device;
    m.contextId = 1;
    m.streamId = 7;
    m.copyKind = static_cast<uint8_t>(CopyKind::DtoH);
    t.store.add(m);
  }
  t.meta.endTimestampNs = kRankBase + mine.size() * kStepNs + kStepNs;
}

// A launcher: one API call, no GPU work.
inline void fillLauncher(Trace& t, uint32_t pid) {
  t.meta.toolVersion = "test";
  t.meta.hostName = "node1";
  t.meta.pid = pid;
  t.meta.processName = "torchrun";
  t.meta.baseTimestampNs = kRankBase;
  t.meta.startTimestampNs = kRankBase;
  ApiRecord a{};
  a.start = kRankBase + 100;
  a.end = kRankBase + 200;
  a.name = t.strings.intern("cudaGetDeviceCount");
  a.threadId = pid;
  t.store.add(a);
}

}  // namespace cuptitrace::testing
