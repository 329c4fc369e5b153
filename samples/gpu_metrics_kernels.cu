// gpu_metrics_kernels: four kernels of known character, each run long enough
// (about MS milliseconds, default 100) for hundreds of GPU metric samples,
// with the device idle for 20 ms before each and after the last:
//   stream_copy   a float4 copy of 512 MiB, repeated: DRAM bandwidth near its peak
//   fma_loop      eight independent FMA chains on registers: SM issue high, DRAM near zero
//   mma_loop      half-precision tensor-core MMAs (mma.sync through WMMA) on fragments
//                 held in registers: Tensor active high
//   sleep_kernel  every thread in __nanosleep until a deadline: SMs active (warps
//                 resident), issue near zero
// Each kernel is first run briefly (twice, but the sleep), to learn how much
// work fills MS.
// With "windows", each of the four measured runs is inside a capture window
// of its own (cudaProfilerStart/Stop), the calibration runs outside them.
//   gpu_metrics_kernels [MS [windows]]
// Prints each kernel's duration (and the copy's bandwidth), then
// `EXPECT kernels=11` (the seven calibration runs and the four measured ones).
#include <cuda_fp16.h>
#include <cuda_profiler_api.h>
#include <mma.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

#include "sample_common.h"

// The kernels at global scope: their names are plain in the trace and the reports.
__device__ __forceinline__ uint64_t globalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void stream_copy(const float4* __restrict__ src, float4* __restrict__ dst, size_t n, int reps) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (int r = 0; r < reps; ++r)
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
      float4 v = src[i];
      v.x += static_cast<float>(r);
      dst[i] = v;
    }
}

__global__ void fma_loop(float* out, long iters, float seed) {
  float a0 = seed + threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
  float a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  const float m = 0.999999f, c = 1e-7f;
  for (long i = 0; i < iters; ++i) {
    a0 = fmaf(a0, m, c); a1 = fmaf(a1, m, c); a2 = fmaf(a2, m, c); a3 = fmaf(a3, m, c);
    a4 = fmaf(a4, m, c); a5 = fmaf(a5, m, c); a6 = fmaf(a6, m, c); a7 = fmaf(a7, m, c);
  }
  const float s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  if (s == 12345.678f) out[threadIdx.x] = s;  // keeps the chains alive
}

__global__ void mma_loop(const half* a, const half* b, float* out, long iters) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c0, c1, c2, c3;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::fill_fragment(c0, 0.f);
  wmma::fill_fragment(c1, 0.f);
  wmma::fill_fragment(c2, 0.f);
  wmma::fill_fragment(c3, 0.f);
  for (long i = 0; i < iters; ++i) {
    wmma::mma_sync(c0, fa, fb, c0);
    wmma::mma_sync(c1, fa, fb, c1);
    wmma::mma_sync(c2, fa, fb, c2);
    wmma::mma_sync(c3, fa, fb, c3);
  }
  for (int i = 0; i < c0.num_elements; ++i) c0.x[i] += c1.x[i] + c2.x[i] + c3.x[i];
  if (c0.x[0] == 12345.f) wmma::store_matrix_sync(out, c0, 16, wmma::mem_row_major);
}

__global__ void sleep_kernel(uint64_t ns, int* out) {
  const uint64_t end = globalTimer() + ns;
  int n = 0;
  while (globalTimer() < end) {
    __nanosleep(20000);
    ++n;
  }
  if (n == -1) out[0] = n;
}

namespace {

struct Work {
  float4 *src = nullptr, *dst = nullptr;
  size_t n = 0;
  float* out = nullptr;
  half *a = nullptr, *b = nullptr;
  int* flag = nullptr;
  int blocks = 0;

  void init() {
    cudaDeviceProp p;
    CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
    blocks = p.multiProcessorCount * 8;
    n = (size_t{256} << 20) / sizeof(float4);  // 256 MiB each way: far past the L2
    CHECK_CUDA(cudaMalloc(&src, n * sizeof(float4)));
    CHECK_CUDA(cudaMalloc(&dst, n * sizeof(float4)));
    CHECK_CUDA(cudaMemset(src, 0, n * sizeof(float4)));
    CHECK_CUDA(cudaMalloc(&out, 1 << 20));
    CHECK_CUDA(cudaMalloc(&a, 4096));
    CHECK_CUDA(cudaMalloc(&b, 4096));
    CHECK_CUDA(cudaMemset(a, 0, 4096));
    CHECK_CUDA(cudaMemset(b, 0, 4096));
    CHECK_CUDA(cudaMalloc(&flag, sizeof(int)));
    CHECK_CUDA(cudaDeviceSynchronize());
  }
  void launch(int which, long p) {
    switch (which) {
      case 0: stream_copy<<<blocks, 256>>>(src, dst, n, static_cast<int>(p)); break;
      case 1: fma_loop<<<blocks, 256>>>(out, p, 1.0f); break;
      case 2: mma_loop<<<blocks, 128>>>(a, b, out, p); break;
      default: sleep_kernel<<<blocks, 256>>>(static_cast<uint64_t>(p), flag); break;
    }
    CHECK_LAUNCH();
  }
  float timed(int which, long p) {
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    CHECK_CUDA(cudaEventRecord(e0));
    launch(which, p);
    CHECK_CUDA(cudaEventRecord(e1));
    CHECK_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    CHECK_CUDA(cudaEventDestroy(e0));
    CHECK_CUDA(cudaEventDestroy(e1));
    return ms;
  }
};

const char* const kNames[] = {"stream_copy", "fma_loop", "mma_loop", "sleep_kernel"};

}  // namespace

int main(int argc, char** argv) {
  sample::requireGpuAndWarmUp(argv[0]);
  const int ms = sample::positiveArg(argc, argv, 1, 100, 10000, "MS");
  const bool windows = argc > 2 && std::strcmp(argv[2], "windows") == 0;
  if (argc > 3 || (argc == 3 && !windows)) {
    std::fprintf(stderr, "usage: %s [MS [windows]]\n", argv[0]);
    return 2;
  }
  Work w;
  w.init();
  int kernels = 0;
  for (int k = 0; k < 4; ++k) {
    // The amount of work that fills `ms`, from one short run (a sleep needs none).
    long p = ms * 1'000'000L;
    if (k != 3) {
      const long trial = k == 0 ? 4 : 20000;
      w.timed(k, trial);  // the first run pays for first touches: timed again
      const float t = w.timed(k, trial);
      kernels += 2;
      p = static_cast<long>(static_cast<double>(trial) * ms / (t > 0.01f ? t : 0.01f));
      if (p < 1) p = 1;
    } else {
      w.timed(k, 1'000'000);  // 1 ms, so that every kernel has a short run too
      ++kernels;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the device idle
    if (windows) CHECK_CUDA(cudaProfilerStart());
    const float t = w.timed(k, p);
    if (windows) CHECK_CUDA(cudaProfilerStop());
    ++kernels;
    if (k == 0) {
      const double bytes = 2.0 * static_cast<double>(w.n) * sizeof(float4) * static_cast<double>(p);
      std::printf("%s: %.1f ms, %.0f GB/s copied (read + write)\n", kNames[k], t, bytes / (t * 1e6));
    } else {
      std::printf("%s: %.1f ms\n", kNames[k], t);
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("EXPECT kernels=%d\n", windows ? 4 : kernels);
  return 0;
}
