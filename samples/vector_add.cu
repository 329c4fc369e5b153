// vector_add: the smallest traced program. Two host-to-device copies, one
// kernel, one device-to-host copy, all on the default stream from pageable
// (malloc) memory; the result is checked on the host.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sample_common.h"

__global__ void vectorAdd(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int, char** argv) {
  sample::requireGpuAndWarmUp(argv[0]);

  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 2.0f * static_cast<float>(i);
  }

  float *dA = nullptr, *dB = nullptr, *dC = nullptr;
  CHECK_CUDA(cudaMalloc(&dA, bytes));
  CHECK_CUDA(cudaMalloc(&dB, bytes));
  CHECK_CUDA(cudaMalloc(&dC, bytes));

  CHECK_CUDA(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dB, b.data(), bytes, cudaMemcpyHostToDevice));
  const int block = 256;
  vectorAdd<<<(n + block - 1) / block, block>>>(dA, dB, dC, n);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(c.data(), dC, bytes, cudaMemcpyDeviceToHost));

  for (int i = 0; i < n; ++i) {
    if (c[i] != 3.0f * static_cast<float>(i)) {
      std::fprintf(stderr, "vector_add: wrong result at %d: %f, expected %f\n", i, c[i], 3.0f * i);
      return 1;
    }
  }
  CHECK_CUDA(cudaFree(dA));
  CHECK_CUDA(cudaFree(dB));
  CHECK_CUDA(cudaFree(dC));
  // Destroys the context before exit: its records must still reach the trace
  // (the tracer flushes before a context goes away).
  CHECK_CUDA(cudaDeviceReset());

  std::printf("vector_add: %d elements ok\n", n);
  std::printf(
      "EXPECT kernels=1 memcpy=3 memset=0 launch_calls=4 memcpy_HtoD=2 memcpy_DtoH=1 memcpy_DtoD=0 "
      "memcpy_HtoH=0 memcpy_pageable=3 memcpy_pinned=0 nvtx_pushpop=0 nvtx_startend=0 nvtx_marks=0 "
      "threads=1 streams=1 graph_launches=0\n");
  return 0;
}
