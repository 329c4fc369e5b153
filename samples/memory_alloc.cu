// memory_alloc: one of each way CUDA allocates memory, with sizes that make the
// peak and the leak known exactly (trace with CUPTITRACE_ACTIVITIES=default,memory).
//
//   cudaMalloc        A = 8 MiB   never freed: the leak
//   cudaMalloc        B = 4 MiB   freed with cudaFree
//   cudaMallocHost    C = 2 MiB   pinned, freed with cudaFreeHost
//   cudaMallocManaged D = 1 MiB   managed, freed with cudaFree
//   cudaMallocAsync   E = 16 MiB  from the device's default pool, freed with cudaFreeAsync
//
// All five are allocated before any is freed, so the peak is A+B+C+D+E =
// 31 MiB; one kernel writes the pool memory between its allocation and free.
// Expected records: allocations Device 3 (A, B, E), Pinned 1, Managed 1; frees
// Device 2 (B, E), Pinned 1, Managed 1; 8 MiB never freed.
#include <cstdio>

#include "sample_common.h"

namespace {

constexpr size_t kMiB = size_t{1} << 20;

__global__ void fill(int* d, int n, int value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = value;
}

}  // namespace

int main(int argc, char** argv) {
  (void)argc;
  sample::requireGpuAndWarmUp(argv[0]);

  const size_t a = 8 * kMiB, b = 4 * kMiB, c = 2 * kMiB, d = 1 * kMiB, e = 16 * kMiB;
  void* leaked = nullptr;
  void* device = nullptr;
  void* pinned = nullptr;
  void* managed = nullptr;
  int* pooled = nullptr;
  CHECK_CUDA(cudaMalloc(&leaked, a));
  CHECK_CUDA(cudaMalloc(&device, b));
  CHECK_CUDA(cudaMallocHost(&pinned, c));
  CHECK_CUDA(cudaMallocManaged(&managed, d));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&pooled), e, stream));
  const int n = static_cast<int>(e / sizeof(int));
  fill<<<(n + 255) / 256, 256, 0, stream>>>(pooled, n, 7);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaFreeAsync(pooled, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  CHECK_CUDA(cudaFree(device));
  CHECK_CUDA(cudaFreeHost(pinned));
  CHECK_CUDA(cudaFree(managed));
  CHECK_CUDA(cudaStreamDestroy(stream));
  // `leaked` is left allocated on purpose.

  const size_t peak = a + b + c + d + e;
  std::printf("memory_alloc: 5 allocations (peak %zu bytes), 4 frees, %zu bytes left allocated\n", peak, a);
  std::printf(
      "EXPECT kernels=1 memcpy=0 memset=0 launch_calls=1 threads=1 "
      "mem_allocs=Device:3,Pinned:1,Managed:1 mem_frees=Device:2,Pinned:1,Managed:1 "
      "mem_peak_bytes=%zu mem_leak_bytes=%zu\n",
      peak, a);
  return 0;
}
