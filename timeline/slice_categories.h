// The category ("cat") of each kind of event on the timeline, said once for
// every format. The names are those of the PyTorch profiler's trace (Kineto),
// so that tools written for its JSON read ours: GPU copies and sets are
// "gpu_memcpy" and "gpu_memset", synchronization "cuda_sync", PyTorch's
// operators (NVTX ranges that PyTorch names: torch_ops.h) "cpu_op" and
// torch.profiler's steps "user_annotation". Kinds Kineto does not have keep
// names of our own ("nvtx", "osrt", "graph", "openacc", "overhead").
#pragma once

#include <cstdint>

namespace cuptitrace {

enum SliceCategory : uint8_t {
  kCatNone = 0,
  kCatKernel,
  kCatMemcpy,
  kCatMemset,
  kCatRuntime,
  kCatDriver,
  kCatNvtx,
  kCatSync,
  kCatOverhead,
  kCatMetadata,
  kCatOsrt,
  kCatGraph,
  kCatOpenAcc,
  kCatCpuOp,
  kCatUserAnnotation,
  kCategoryCount
};
inline constexpr const char* kCategoryNames[kCategoryCount] = {
    "",          "kernel",   "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver",
    "nvtx",      "cuda_sync", "overhead",  "metadata",   "osrt",         "graph",
    "openacc",   "cpu_op",   "user_annotation"};

inline const char* categoryName(SliceCategory c) { return kCategoryNames[c]; }

}  // namespace cuptitrace
