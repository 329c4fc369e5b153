// nvtx_unique_ranges: N NVTX push/pop ranges whose messages all differ (a step
// counter and a shape, as torch.autograd.profiler.emit_nvtx and
// record_function make them), with a kernel inside every 100000th range.
// The tracer must keep them all within its memory cap (tests/gpu/nvtx_memory.sh).
//   nvtx_unique_ranges [N]     N ranges (default 10000000)
#include <nvtx3/nvToolsExt.h>

#include <cstdio>

#include "sample_common.h"

namespace {

constexpr int kKernelEvery = 100000;

__global__ void tick(int* counter) { atomicAdd(counter, 1); }

// The message of range i; nvtx_memory.sh checks every one with the same format.
int message(char* out, size_t size, long i) {
  return std::snprintf(out, size, "aten::linear step=%ld input=[%ld, 4096] weight=[4096, 4096]", i, i % 512 + 1);
}

}  // namespace

int main(int argc, char** argv) {
  const int ranges = sample::positiveArg(argc, argv, 1, 10000000, 100000000, "ranges");
  sample::requireGpuAndWarmUp("nvtx_unique_ranges");
  int* counter = nullptr;
  CHECK_CUDA(cudaMalloc(&counter, sizeof(int)));
  CHECK_CUDA(cudaMemset(counter, 0, sizeof(int)));
  char text[128];
  long kernels = 0;
  for (long i = 0; i < ranges; ++i) {
    message(text, sizeof text, i);
    nvtxRangePushA(text);
    if (i % kKernelEvery == 0) {
      tick<<<1, 1>>>(counter);
      CHECK_LAUNCH();
      ++kernels;
    }
    nvtxRangePop();
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  int done = 0;
  CHECK_CUDA(cudaMemcpy(&done, counter, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(counter));
  if (done != kernels) {
    std::fprintf(stderr, "nvtx_unique_ranges: %d kernels ran, %ld launched\n", done, kernels);
    return 1;
  }
  std::printf("EXPECT pushpop=%d kernels=%ld\n", ranges, kernels);
  return 0;
}
