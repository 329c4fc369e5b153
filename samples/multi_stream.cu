// multi_stream: 4 non-blocking streams, each running `iterations` rounds of
//   async HtoD (pinned) -> kernel -> kernel -> async DtoH (pinned).
// Kernels use only a few blocks each, so kernels of different streams run at
// the same time. Also the workload of the overhead measurement in
// scripts/gpu-test.sh (traced vs untraced wall time), sized to run ~0.3-1 s.
//
// usage: multi_stream [iterations (default 50)] [work per element (default 4000)]
#include <chrono>
#include <cmath>
#include <cstdio>

#include "sample_common.h"

namespace {

constexpr int kStreams = 4;
constexpr int kElements = 1 << 20;  // per stream: 4 MiB per copy
constexpr int kBlocks = 32;         // few blocks: 4 streams x 2 kernels fit on the GPU together
constexpr int kThreads = 256;

__host__ __device__ inline float work(float v, int steps, float a, float b) {
  for (int k = 0; k < steps; ++k) v = fmaf(v, a, b);
  return v;
}

__global__ void churn(const float* in, float* out, int n, int steps, float a, float b) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = work(in[i], steps, a, b);
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = sample::positiveArg(argc, argv, 1, 50, 1000000, "iterations");
  const int steps = sample::positiveArg(argc, argv, 2, 4000, 1000000, "work per element");
  sample::requireGpuAndWarmUp(argv[0]);

  const size_t bytes = kElements * sizeof(float);
  const float a1 = 0.999f, b1 = 0.001f, a2 = 0.998f, b2 = 0.002f;
  cudaStream_t streams[kStreams];
  float *hIn[kStreams], *hOut[kStreams], *dIn[kStreams], *dTmp[kStreams], *dOut[kStreams];
  for (int s = 0; s < kStreams; ++s) {
    CHECK_CUDA(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CHECK_CUDA(cudaMallocHost(&hIn[s], bytes));
    CHECK_CUDA(cudaMallocHost(&hOut[s], bytes));
    CHECK_CUDA(cudaMalloc(&dIn[s], bytes));
    CHECK_CUDA(cudaMalloc(&dTmp[s], bytes));
    CHECK_CUDA(cudaMalloc(&dOut[s], bytes));
    for (int i = 0; i < kElements; ++i) {
      hIn[s][i] = static_cast<float>((i + s) % 1000) / 1000.0f;
      hOut[s][i] = -1.0f;
    }
  }

  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it) {
    for (int s = 0; s < kStreams; ++s) {
      CHECK_CUDA(cudaMemcpyAsync(dIn[s], hIn[s], bytes, cudaMemcpyHostToDevice, streams[s]));
      churn<<<kBlocks, kThreads, 0, streams[s]>>>(dIn[s], dTmp[s], kElements, steps, a1, b1);
      CHECK_LAUNCH();
      churn<<<kBlocks, kThreads, 0, streams[s]>>>(dTmp[s], dOut[s], kElements, steps, a2, b2);
      CHECK_LAUNCH();
      CHECK_CUDA(cudaMemcpyAsync(hOut[s], dOut[s], bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
  }
  for (int s = 0; s < kStreams; ++s) CHECK_CUDA(cudaStreamSynchronize(streams[s]));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Check a spread of elements against the same fmaf chain on the host.
  for (int s = 0; s < kStreams; ++s) {
    for (int i = 0; i < kElements; i += 4099) {
      const float expected = work(work(hIn[s][i], steps, a1, b1), steps, a2, b2);
      if (!(std::fabs(hOut[s][i] - expected) <= 1e-5f * (1.0f + std::fabs(expected)))) {
        std::fprintf(stderr, "multi_stream: stream %d element %d: %f, expected %f\n", s, i, hOut[s][i],
                     expected);
        return 1;
      }
    }
  }
  for (int s = 0; s < kStreams; ++s) {
    CHECK_CUDA(cudaFreeHost(hIn[s]));
    CHECK_CUDA(cudaFreeHost(hOut[s]));
    CHECK_CUDA(cudaFree(dIn[s]));
    CHECK_CUDA(cudaFree(dTmp[s]));
    CHECK_CUDA(cudaFree(dOut[s]));
    CHECK_CUDA(cudaStreamDestroy(streams[s]));
  }

  const int rounds = kStreams * iterations;
  std::printf("multi_stream: %d streams x %d iterations (work %d) ok, GPU part %.3f s\n", kStreams,
              iterations, steps, seconds);
  std::printf(
      "EXPECT kernels=%d memcpy=%d memset=0 launch_calls=%d memcpy_HtoD=%d memcpy_DtoH=%d "
      "memcpy_DtoD=0 memcpy_HtoH=0 memcpy_pageable=0 memcpy_pinned=%d nvtx_pushpop=0 "
      "nvtx_startend=0 nvtx_marks=0 threads=1 streams=%d graph_launches=0\n",
      2 * rounds, 2 * rounds, 4 * rounds, rounds, rounds, 2 * rounds, kStreams);
  return 0;
}
