// profiler_window: 10 iterations of 3 kernels each, with cudaProfilerStart
// before iteration 4 and cudaProfilerStop after iteration 6. Traced with
// CUPTITRACE_CAPTURE=profiler, the trace holds exactly those 9 kernels.
// Each iteration's kernels are told apart by name (iteration_kernel<I>) and
// by grid (I blocks). With "repeat", a second window (cuProfilerStart/Stop,
// the driver calls) covers iteration 9.
//   profiler_window [repeat]
#include <cuda.h>
#include <cudaProfiler.h>
#include <cuda_profiler_api.h>

#include <cstdio>
#include <cstring>

#include "sample_common.h"

namespace {

constexpr int kIterations = 10;
constexpr int kKernelsPerIteration = 3;

template <int Iteration>
__global__ void iteration_kernel(int* d) {
  if (threadIdx.x == 0) atomicAdd(&d[blockIdx.x], Iteration);
}

template <int Iteration>
void launchIteration(int* d) {
  for (int k = 0; k < kKernelsPerIteration; ++k) iteration_kernel<Iteration><<<Iteration, 32>>>(d);
}

using Launch = void (*)(int*);
constexpr Launch kLaunches[kIterations] = {launchIteration<1>, launchIteration<2>, launchIteration<3>,
                                           launchIteration<4>, launchIteration<5>, launchIteration<6>,
                                           launchIteration<7>, launchIteration<8>, launchIteration<9>,
                                           launchIteration<10>};

void checkDriver(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  std::fprintf(stderr, "profiler_window: %s failed: %d\n", what, static_cast<int>(r));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const bool repeat = argc > 1 && std::strcmp(argv[1], "repeat") == 0;
  if (argc > 2 || (argc == 2 && !repeat)) {
    std::fprintf(stderr, "usage: %s [repeat]\n", argv[0]);
    return 2;
  }
  sample::requireGpuAndWarmUp(argv[0]);
  int* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, kIterations * sizeof(int)));
  // A memset outside any window: it must not appear either.
  CHECK_CUDA(cudaMemset(d, 0, kIterations * sizeof(int)));
  CHECK_CUDA(cudaDeviceSynchronize());

  for (int i = 1; i <= kIterations; ++i) {
    if (i == 4) CHECK_CUDA(cudaProfilerStart());
    if (repeat && i == 9) checkDriver(cuProfilerStart(), "cuProfilerStart");
    kLaunches[i - 1](d);
    CHECK_LAUNCH();
    // Every kernel of the window has ended before the window does.
    CHECK_CUDA(cudaDeviceSynchronize());
    if (i == 6) CHECK_CUDA(cudaProfilerStop());
    if (repeat && i == 9) checkDriver(cuProfilerStop(), "cuProfilerStop");
  }

  int h[kIterations] = {};
  CHECK_CUDA(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  // Block b got kKernelsPerIteration * I from every iteration I > b.
  for (int b = 0; b < kIterations; ++b) {
    int want = 0;
    for (int i = b + 1; i <= kIterations; ++i) want += kKernelsPerIteration * i;
    if (h[b] != want) {
      std::fprintf(stderr, "profiler_window: wrong result in block %d: %d, expected %d\n", b, h[b], want);
      return 1;
    }
  }
  CHECK_CUDA(cudaFree(d));
  std::printf("profiler_window: %d iterations of %d kernels; windows: iterations 4-6%s\n", kIterations,
              kKernelsPerIteration, repeat ? " and 9" : "");
  std::printf("EXPECT kernels=%d memcpy=1 memset=1 launch_calls=%d threads=1 streams=1 graph_launches=0\n",
              kIterations * kKernelsPerIteration, kIterations * kKernelsPerIteration + 2);
  return 0;
}
