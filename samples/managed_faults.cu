// managed_faults: managed memory touched by the host, then the GPU, then the
// host again, so that unified memory migrates it both ways on demand (trace
// with CUPTITRACE_ACTIVITIES=default,uvm).
//
// The host writes every page (they live on the host), a kernel reads and
// writes every element (GPU page faults, pages migrate host to device), the
// host reads them back (CPU page faults, pages migrate device to host). No
// prefetch and no advice: every migration is a fault's. At least one of each
// is expected; how many depends on the driver's fault batching.
//
// usage: managed_faults [MiB (default 64)]
#include <cstdio>

#include "sample_common.h"

namespace {

__global__ void incrementAll(int* d, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    d[i] += 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int mib = sample::positiveArg(argc, argv, 1, 64, 4096, "MiB");
  sample::requireGpuAndWarmUp(argv[0]);

  int concurrent = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
  if (!concurrent) {
    // Without demand paging the whole allocation moves at launch: no GPU faults to see.
    std::printf("%s: skipped: the GPU has no concurrent managed access (demand paging)\n", argv[0]);
    return sample::kExitSkip;
  }

  const size_t n = static_cast<size_t>(mib) * (size_t{1} << 20) / sizeof(int);
  int* data = nullptr;
  CHECK_CUDA(cudaMallocManaged(&data, n * sizeof(int)));
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<int>(i & 0xFFFF);

  incrementAll<<<264, 256>>>(data, n);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaDeviceSynchronize());

  long long wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += data[i] != static_cast<int>((i & 0xFFFF) + 1);
  if (wrong != 0) {
    std::fprintf(stderr, "managed_faults: %lld elements wrong\n", wrong);
    return 1;
  }
  CHECK_CUDA(cudaFree(data));

  std::printf("managed_faults: %d MiB of managed memory went host -> GPU -> host ok\n", mib);
  std::printf(
      "EXPECT kernels=1 memcpy=0 memset=0 launch_calls=1 threads=1 "
      "uvm_htod=1 uvm_dtoh=1 uvm_cpu_faults=1 uvm_gpu_faults=1\n");
  return 0;
}
