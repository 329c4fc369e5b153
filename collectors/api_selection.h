// The lean API set: the runtime and driver calls that start, wait for or
// move GPU work and memory, chosen per CUPTI callback id. Recording these as
// activity records (cuptiActivityEnableRuntimeApi / EnableDriverApi, without
// the whole RUNTIME or DRIVER kind) keeps the call behind every arrow to GPU
// work while CUPTI leaves out the queries (cudaGetDevice, cudaGetLastError,
// cudaStreamIsCapturing, ...) that make up most calls of a framework.
#pragma once

#include <cupti.h>

#include <cstddef>

namespace cuptitrace {

struct CallbackIds {
  const CUpti_CallbackId* ids;
  size_t size;
  const CUpti_CallbackId* begin() const { return ids; }
  const CUpti_CallbackId* end() const { return ids + size; }
};

// Runtime API callback ids of the lean set (cupti_runtime_cbid.h).
CallbackIds leanRuntimeCallbacks();
// Driver API callback ids of the lean set (cupti_driver_cbid.h).
CallbackIds leanDriverCallbacks();

}  // namespace cuptitrace
