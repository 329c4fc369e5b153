// The floor: what CUPTI itself costs. An injection library that enables the
// same activity kinds as cuptitrace (FLOOR_KINDS: comma list of kernel,
// memcpy, memset, api, runtime, driver; api is cuptitrace's lean set of
// runtime and driver calls, enabled per callback id from the same table)
// and does nothing with the records but count them; buffers are malloc'ed
// and freed. cuptitrace's overhead is
// reported against this, in the same run (scripts/bench.sh).
// FLOOR_CAPTURE=profiler records only between cudaProfilerStart and
// cudaProfilerStop, as cuptitrace's CUPTITRACE_CAPTURE=profiler does, for the
// in-process comparison (bench/torch_step.py --alternate): the activity kinds
// are switched on and off there; the lean API set stays on throughout, as
// cuptitrace keeps it (CUPTI records nothing of it once switched off and on).
#include <cupti.h>

#include "collectors/api_selection.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr size_t kBufferSize = 8u << 20;
std::atomic<unsigned long long> gRecords{0};
std::atomic<unsigned long long> gDropped{0};

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferSize));
  *size = *buffer ? kBufferSize : 0;
  *maxRecords = 0;
}

void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  unsigned long long n = 0;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) ++n;
  gRecords += n;
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS) gDropped += dropped;
  std::free(buffer);
}

void atExit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::fprintf(stderr, "floor: %llu records, %llu dropped\n", gRecords.load(), gDropped.load());
}

bool wants(const std::string& kinds, const char* kind) {
  return ("," + kinds + ",").find(std::string(",") + kind + ",") != std::string::npos;
}

std::string gKinds;

// The activity kinds of FLOOR_KINDS on or off (not the lean API set).
void setKinds(bool on) {
  auto set = [on](CUpti_ActivityKind kind) { on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind); };
  if (wants(gKinds, "kernel")) set(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (wants(gKinds, "memcpy")) set(CUPTI_ACTIVITY_KIND_MEMCPY);
  if (wants(gKinds, "memset")) set(CUPTI_ACTIVITY_KIND_MEMSET);
  if (wants(gKinds, "runtime")) set(CUPTI_ACTIVITY_KIND_RUNTIME);
  if (wants(gKinds, "driver")) set(CUPTI_ACTIVITY_KIND_DRIVER);
}

// FLOOR_CAPTURE=profiler: on from the end of a profiler start call to the start of a stop call.
void CUPTIAPI profilerCall(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  const bool start = (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
                     (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  if (start && info->callbackSite == CUPTI_API_EXIT) setKinds(true);
  if (!start && info->callbackSite == CUPTI_API_ENTER) {
    setKinds(false);
    cuptiActivityFlushAll(0);
  }
}

bool subscribeProfilerCalls() {
  CUpti_SubscriberHandle handle = nullptr;
  if (cuptiSubscribe(&handle, profilerCall, nullptr) != CUPTI_SUCCESS) return false;
  cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
  cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
  cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  cuptiEnableCallback(1, handle, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* env = std::getenv("FLOOR_KINDS");
  gKinds = env ? env : "kernel,memcpy,memset,runtime";
  const std::string& kinds = gKinds;
  cuptiActivityRegisterCallbacks(requested, completed);
  const char* capture = std::getenv("FLOOR_CAPTURE");
  const bool windows = capture != nullptr && std::strcmp(capture, "profiler") == 0;
  if (!windows || !subscribeProfilerCalls()) setKinds(true);
  // As cuptitrace does: per callback id, for an API whose whole kind is off.
  if (wants(kinds, "api") && !wants(kinds, "runtime"))
    for (const CUpti_CallbackId cbid : cuptitrace::leanRuntimeCallbacks()) cuptiActivityEnableRuntimeApi(cbid, 1);
  if (wants(kinds, "api") && !wants(kinds, "driver"))
    for (const CUpti_CallbackId cbid : cuptitrace::leanDriverCallbacks()) cuptiActivityEnableDriverApi(cbid, 1);
  std::atexit(atExit);
  return 1;
}
