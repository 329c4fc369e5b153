// gpu_metrics_rate: about SECONDS (default 10) of kernels of 1 to 20 ms, for
// GPU metrics at high rates (tests/gpu/gpu_metrics_rate.sh): each kernel is
// sleep_kernel, every SM filled with warps that sleep until a deadline on the
// GPU's timer (SMs Active near 100 % while it runs, an exact duration), and
// each follows 1 to 4 ms of an idle device, so that its start and end show in
// the samples. The durations follow a fixed pseudo-random sequence.
//   gpu_metrics_rate [SECONDS] [RESET]
// RESET 1: half-way, cudaDeviceReset() destroys the context, and the next
// kernel makes a new one (sampling must start again on it).
// Prints `EXPECT kernels=N` (every kernel, each a sleep_kernel).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "sample_common.h"

__device__ __forceinline__ uint64_t globalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void sleep_kernel(uint64_t ns, int* out) {
  const uint64_t end = globalTimer() + ns;
  int n = 0;
  while (globalTimer() < end) {
    __nanosleep(2000);
    ++n;
  }
  if (n == -1) out[0] = n;
}

int main(int argc, char** argv) {
  sample::requireGpuAndWarmUp(argv[0]);
  const int seconds = sample::positiveArg(argc, argv, 1, 10, 600, "SECONDS");
  const bool reset = argc > 2 && sample::positiveArg(argc, argv, 2, 1, 1, "RESET") == 1;
  cudaDeviceProp p;
  CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
  const int blocks = p.multiProcessorCount * 8;
  int* flag = nullptr;
  CHECK_CUDA(cudaMalloc(&flag, sizeof(int)));
  uint32_t x = 12345;
  auto next = [&x] {
    x = x * 1664525u + 1013904223u;
    return x >> 8;
  };
  const auto began = std::chrono::steady_clock::now();
  const auto until = began + std::chrono::seconds(seconds);
  const auto half = began + std::chrono::milliseconds(500LL * seconds);
  bool wasReset = false;
  int kernels = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (reset && !wasReset && std::chrono::steady_clock::now() >= half) {
      CHECK_CUDA(cudaFree(flag));
      CHECK_CUDA(cudaDeviceReset());
      std::printf("RESET after %d kernels\n", kernels);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      CHECK_CUDA(cudaMalloc(&flag, sizeof(int)));  // a new context
      wasReset = true;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(1000 + next() % 3000));  // the device idle
    const uint64_t ns = 1'000'000 + static_cast<uint64_t>(next() % 19'001) * 1000;  // 1 to 20 ms
    sleep_kernel<<<blocks, 256>>>(ns, flag);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaDeviceSynchronize());
    ++kernels;
  }
  CHECK_CUDA(cudaFree(flag));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::printf("%d kernels in %.1f s\n", kernels, s);
  std::printf("EXPECT kernels=%d\n", kernels);
  return 0;
}
