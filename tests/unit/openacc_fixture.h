// An OpenACC program's events, built by hand: a data region's uploads, a
// compute construct with its launch and wait, the download at its end, and
// the CUDA calls and kernel they made (tied by external correlation ids).
#pragma once

#include "core/trace.h"

namespace cuptitrace::testing {

inline constexpr uint32_t kAccPid = 4000;
inline constexpr uint32_t kAccTid = 4001;

inline void addOpenAcc(Trace& t, OpenAccEvent event, uint64_t start, uint64_t end, uint32_t line,
                       const char* var = nullptr, const char* kernel = nullptr, uint32_t externalId = 0,
                       uint8_t implicit = 0, uint32_t tid = kAccTid) {
  OpenAccRecord r{};
  r.type = static_cast<uint8_t>(kernel != nullptr ? OpenAccType::Launch
                                : var != nullptr  ? OpenAccType::Data
                                                  : OpenAccType::Other);
  r.eventKind = static_cast<uint8_t>(event);
  r.start = start;
  r.end = end;
  r.lineNo = line;
  r.srcFile = t.strings.intern("/home/me/src/layers_acc.c");
  r.funcName = t.strings.intern("conv_forward");
  if (var != nullptr) r.varName = t.strings.intern(var);
  if (kernel != nullptr) r.kernelName = t.strings.intern(kernel);
  r.externalId = externalId;
  r.cuProcessId = kAccPid;
  r.cuThreadId = tid;
  r.cuDeviceId = 0;
  r.cuContextId = 1;
  r.cuStreamId = 13;
  r.implicit = implicit;
  t.store.add(r);
}

// Times in ns from 1'000'000. Exclusive times: enter_data 100 - 30 - 20 = 50;
// compute_construct 300 - 50 - 200 = 50; exit_data 100 - 40 = 60.
inline void openAccTrace(Trace& t) {
  constexpr uint64_t b = 1'000'000;
  t.meta.pid = kAccPid;
  t.meta.baseTimestampNs = b;
  addOpenAcc(t, OpenAccEvent::EnterData, b + 0, b + 100, 50);
  addOpenAcc(t, OpenAccEvent::Create, b + 5, b + 5, 50, "x[:n]");
  addOpenAcc(t, OpenAccEvent::EnqueueUpload, b + 10, b + 40, 50, "x[:n]", nullptr, 1);
  addOpenAcc(t, OpenAccEvent::EnqueueUpload, b + 50, b + 70, 50, "y[:n]", nullptr, 2);
  addOpenAcc(t, OpenAccEvent::ComputeConstruct, b + 200, b + 500, 52);
  addOpenAcc(t, OpenAccEvent::EnqueueLaunch, b + 210, b + 260, 53, nullptr, "saxpy$_omp_fn$0", 3);
  addOpenAcc(t, OpenAccEvent::Wait, b + 280, b + 480, 53, nullptr, nullptr, 0, 1);
  addOpenAcc(t, OpenAccEvent::ExitData, b + 600, b + 700, 50);
  addOpenAcc(t, OpenAccEvent::EnqueueDownload, b + 610, b + 650, 50, "y[:n]", nullptr, 4);
  // The CUDA side: the launch call inside the enqueue launch, its kernel, and the id tying them.
  ApiRecord api{};
  api.start = b + 220;
  api.end = b + 250;
  api.name = t.strings.intern("cuLaunchKernel");
  api.correlationId = 90;
  api.threadId = kAccTid;
  api.domain = static_cast<uint8_t>(ApiDomain::Driver);
  t.store.add(api);
  KernelRecord k{};
  k.start = b + 300;
  k.end = b + 450;
  k.name = t.strings.intern("saxpy$_omp_fn$0");
  k.correlationId = 90;
  k.contextId = 1;
  k.streamId = 13;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = k.blockY = k.blockZ = 1;
  t.store.add(k);
  ExternalIdRecord e{};
  e.externalId = 3;
  e.correlationId = 90;
  e.externalKind = static_cast<uint8_t>(ExternalKind::OpenAcc);
  t.store.add(e);
}

}  // namespace cuptitrace::testing
