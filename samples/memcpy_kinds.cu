// memcpy_kinds: one of every copy the CUDA runtime makes, so the trace can be
// checked per copy kind (HtoD, DtoH, DtoD, HtoH) and per host memory kind
// (pageable = malloc'd, pinned = cudaMallocHost), synchronous and async, plus
// a synchronous and an asynchronous memset. Each copy's result is checked.
//
// Whether CUPTI records a host-to-host cudaMemcpy (cudaMemcpyHostToHost) as a
// memcpy activity is not documented; the GPU test (tests/gpu) finds out: this
// sample counts it as one HtoH memcpy.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sample_common.h"

namespace {

constexpr size_t kBytes = 1 << 20;

// Exits 1 unless every byte of `p` equals the pattern byte for its index.
void expectPattern(const unsigned char* p, unsigned char seed, const char* what) {
  for (size_t i = 0; i < kBytes; ++i) {
    const unsigned char want = static_cast<unsigned char>(seed + i * 7);
    if (p[i] != want) {
      std::fprintf(stderr, "memcpy_kinds: %s: byte %zu is %u, expected %u\n", what, i, p[i], want);
      std::exit(1);
    }
  }
}

void expectFill(const unsigned char* p, unsigned char value, const char* what) {
  for (size_t i = 0; i < kBytes; ++i) {
    if (p[i] != value) {
      std::fprintf(stderr, "memcpy_kinds: %s: byte %zu is %u, expected %u\n", what, i, p[i], value);
      std::exit(1);
    }
  }
}

void fillPattern(unsigned char* p, unsigned char seed) {
  for (size_t i = 0; i < kBytes; ++i) p[i] = static_cast<unsigned char>(seed + i * 7);
}

}  // namespace

int main(int, char** argv) {
  sample::requireGpuAndWarmUp(argv[0]);

  // A and P are two byte patterns; pageableA/pinnedP hold them as sources.
  const unsigned char A = 11, P = 99;
  auto* pageableA = static_cast<unsigned char*>(std::malloc(kBytes));
  auto* pageableOut = static_cast<unsigned char*>(std::malloc(kBytes));
  if (!pageableA || !pageableOut) {
    std::fprintf(stderr, "memcpy_kinds: out of host memory\n");
    return 1;
  }
  unsigned char *pinnedP = nullptr, *pinnedOut = nullptr, *dA = nullptr, *dB = nullptr;
  CHECK_CUDA(cudaMallocHost(&pinnedP, kBytes));
  CHECK_CUDA(cudaMallocHost(&pinnedOut, kBytes));
  CHECK_CUDA(cudaMalloc(&dA, kBytes));
  CHECK_CUDA(cudaMalloc(&dB, kBytes));
  fillPattern(pageableA, A);
  fillPattern(pinnedP, P);
  // A blocking stream: it orders with the synchronous calls on the default stream.
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  // Synchronous copies.
  CHECK_CUDA(cudaMemcpy(dA, pageableA, kBytes, cudaMemcpyHostToDevice));     //  1 HtoD pageable
  CHECK_CUDA(cudaMemcpy(dB, pinnedP, kBytes, cudaMemcpyHostToDevice));       //  2 HtoD pinned
  CHECK_CUDA(cudaMemcpy(pageableOut, dA, kBytes, cudaMemcpyDeviceToHost));   //  3 DtoH pageable
  expectPattern(pageableOut, A, "DtoH to pageable");
  CHECK_CUDA(cudaMemcpy(pinnedOut, dB, kBytes, cudaMemcpyDeviceToHost));     //  4 DtoH pinned
  expectPattern(pinnedOut, P, "DtoH to pinned");
  CHECK_CUDA(cudaMemcpy(dB, dA, kBytes, cudaMemcpyDeviceToDevice));          //  5 DtoD
  std::memset(pageableOut, 0, kBytes);
  CHECK_CUDA(cudaMemcpy(pageableOut, pageableA, kBytes, cudaMemcpyHostToHost));  // 6 HtoH pageable
  expectPattern(pageableOut, A, "HtoH");

  // Memsets, then asynchronous copies on `stream`.
  CHECK_CUDA(cudaMemset(dA, 0x5a, kBytes));                                  // memset 1
  CHECK_CUDA(cudaMemsetAsync(dB, 0xa5, kBytes, stream));                     // memset 2
  CHECK_CUDA(cudaMemcpyAsync(dA, dB, kBytes, cudaMemcpyDeviceToDevice, stream));       //  7 DtoD
  CHECK_CUDA(cudaMemcpyAsync(pinnedOut, dA, kBytes, cudaMemcpyDeviceToHost, stream));  //  8 DtoH pinned
  CHECK_CUDA(cudaStreamSynchronize(stream));
  expectFill(pinnedOut, 0xa5, "memset + async DtoD + async DtoH to pinned");
  CHECK_CUDA(cudaMemcpyAsync(dA, pinnedP, kBytes, cudaMemcpyHostToDevice, stream));    //  9 HtoD pinned
  CHECK_CUDA(cudaMemcpyAsync(dB, pageableA, kBytes, cudaMemcpyHostToDevice, stream));  // 10 HtoD pageable
  CHECK_CUDA(cudaMemcpyAsync(pageableOut, dA, kBytes, cudaMemcpyDeviceToHost, stream));  // 11 DtoH pageable
  CHECK_CUDA(cudaStreamSynchronize(stream));
  expectPattern(pageableOut, P, "async HtoD from pinned + async DtoH to pageable");
  std::memset(pageableOut, 0, kBytes);
  CHECK_CUDA(cudaMemcpy(pageableOut, dB, kBytes, cudaMemcpyDeviceToHost));   // 12 DtoH pageable
  expectPattern(pageableOut, A, "async HtoD from pageable");

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(dA));
  CHECK_CUDA(cudaFree(dB));
  CHECK_CUDA(cudaFreeHost(pinnedP));
  CHECK_CUDA(cudaFreeHost(pinnedOut));
  std::free(pageableA);
  std::free(pageableOut);

  // HtoD: 1 2 9 10   DtoH: 3 4 8 11 12   DtoD: 5 7   HtoH: 6
  // pageable (either side): 1 3 6 10 11 12   pinned: 2 4 8 9
  std::printf("memcpy_kinds: every copy checked ok\n");
  std::printf(
      "EXPECT kernels=0 memcpy=12 memset=2 launch_calls=14 memcpy_HtoD=4 memcpy_DtoH=5 "
      "memcpy_DtoD=2 memcpy_HtoH=1 memcpy_pageable=6 memcpy_pinned=4 "
      "nvtx_pushpop=0 nvtx_startend=0 nvtx_marks=0 threads=1 graph_launches=0\n");
  return 0;
}
