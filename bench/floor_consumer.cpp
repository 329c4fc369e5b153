// The floor: what CUPTI itself costs. An injection library that enables the
// same activity kinds as cuptitrace (FLOOR_KINDS: comma list of kernel,
// memcpy, memset, api, runtime, driver; api is cuptitrace's lean set of
// runtime and driver calls, enabled per callback id from the same table)
// and does nothing with the records but count them; buffers are malloc'ed
// and freed. cuptitrace's overhead is
// reported against this, in the same run (scripts/bench.sh).
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

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* env = std::getenv("FLOOR_KINDS");
  const std::string kinds = env ? env : "kernel,memcpy,memset,runtime";
  cuptiActivityRegisterCallbacks(requested, completed);
  if (wants(kinds, "kernel")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (wants(kinds, "memcpy")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  if (wants(kinds, "memset")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  if (wants(kinds, "runtime")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
  if (wants(kinds, "driver")) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
  // As cuptitrace does: per callback id, for an API whose whole kind is off.
  if (wants(kinds, "api") && !wants(kinds, "runtime"))
    for (const CUpti_CallbackId cbid : cuptitrace::leanRuntimeCallbacks()) cuptiActivityEnableRuntimeApi(cbid, 1);
  if (wants(kinds, "api") && !wants(kinds, "driver"))
    for (const CUpti_CallbackId cbid : cuptitrace::leanDriverCallbacks()) cuptiActivityEnableDriverApi(cbid, 1);
  std::atexit(atExit);
  return 1;
}
