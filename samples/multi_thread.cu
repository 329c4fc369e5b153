// multi_thread: T host threads (std::thread), each with its own non-blocking
// stream, launching K kernels and one device-to-host copy. Only the worker
// threads launch GPU work, so the trace must show launches from exactly T threads.
//
// usage: multi_thread [threads (default 4)] [kernels per thread (default 8)]
#include <cstdio>
#include <thread>
#include <vector>

#include "sample_common.h"

namespace {

// d[i] = (reset ? 0 : d[i]) + 1: after k launches every element equals k.
__global__ void bump(int* d, int n, int reset) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = (reset ? 0 : d[i]) + 1;
}

// One worker's whole job; returns false (after printing why) on any error.
bool worker(int index, int kernels) {
  const int n = 1 << 16;
  const int block = 256, grid = (n + block - 1) / block;
  if (!CUDA_OK(cudaSetDevice(0))) return false;
  cudaStream_t stream;
  if (!CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking))) return false;
  int* d = nullptr;
  int* h = nullptr;
  if (!CUDA_OK(cudaMalloc(&d, n * sizeof(int))) || !CUDA_OK(cudaMallocHost(&h, n * sizeof(int))))
    return false;
  for (int k = 0; k < kernels; ++k) {
    bump<<<grid, block, 0, stream>>>(d, n, k == 0);
    if (!CUDA_OK(cudaGetLastError())) return false;
  }
  if (!CUDA_OK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, stream)) ||
      !CUDA_OK(cudaStreamSynchronize(stream)))
    return false;
  for (int i = 0; i < n; ++i) {
    if (h[i] != kernels) {
      std::fprintf(stderr, "multi_thread: thread %d element %d is %d, expected %d\n", index, i, h[i],
                   kernels);
      return false;
    }
  }
  return CUDA_OK(cudaFreeHost(h)) && CUDA_OK(cudaFree(d)) && CUDA_OK(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = sample::positiveArg(argc, argv, 1, 4, 256, "threads");
  const int kernels = sample::positiveArg(argc, argv, 2, 8, 100000, "kernels per thread");
  sample::requireGpuAndWarmUp(argv[0]);

  // std::vector<bool> is not safe to write from several threads; use char.
  std::vector<char> succeeded(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([t, kernels, &succeeded] { succeeded[t] = worker(t, kernels) ? 1 : 0; });
  for (auto& thread : pool) thread.join();
  for (int t = 0; t < threads; ++t) {
    if (!succeeded[t]) {
      std::fprintf(stderr, "multi_thread: thread %d failed\n", t);
      return 1;
    }
  }

  std::printf("multi_thread: %d threads x %d kernels ok\n", threads, kernels);
  std::printf(
      "EXPECT kernels=%d memcpy=%d memset=0 launch_calls=%d memcpy_HtoD=0 memcpy_DtoH=%d "
      "memcpy_DtoD=0 memcpy_HtoH=0 memcpy_pageable=0 memcpy_pinned=%d nvtx_pushpop=0 "
      "nvtx_startend=0 nvtx_marks=0 threads=%d streams=%d graph_launches=0\n",
      threads * kernels, threads, threads * (kernels + 1), threads, threads, threads, threads);
  return 0;
}
