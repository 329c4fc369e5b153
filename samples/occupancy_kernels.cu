// occupancy_kernels: three kernels whose occupancy each hits a different
// limit, launched a few times each, with CUDA's own occupancy calculator's
// answer printed for each, so a test can hold the tracer's estimate against it
// (tests/gpu/pytorch_views.sh):
//   occ_registers  many live registers per thread: registers bound the blocks per SM
//   occ_shared     a large dynamic shared memory block: shared memory bounds them
//   occ_wide       1024-thread blocks, fewer blocks than SMs: warps bound them,
//                  and the grid leaves SMs idle (SM efficiency below 1)
// Each line: `occupancy NAME regs=R static=S dynamic=D block=B grid=G
// blocks_per_sm=M theoretical_pct=P`, then the EXPECT line.
#include <cstdio>

#include "sample_common.h"

namespace {

constexpr int kLaunches = 5;

__global__ void occ_registers(float* out, int rounds) {
  // Sixty-four accumulators kept live across the loop: many registers a thread.
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = threadIdx.x * 0.001f + i;
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = acc[i] * 1.0001f + acc[(i + 7) & 63];
  }
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < 64; ++i) sum += acc[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void occ_shared(float* out, int rounds) {
  extern __shared__ float tile[];
  __shared__ float fixed[1024];  // 4 KiB of static shared memory
  fixed[threadIdx.x] = threadIdx.x;
  for (int i = threadIdx.x; i < 10 * 1024; i += blockDim.x) tile[i] = i;
  __syncthreads();
  float v = 0.f;
  for (int r = 0; r < rounds; ++r) v += tile[(threadIdx.x * 33 + r) % (10 * 1024)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + fixed[threadIdx.x % 1024];
}

__global__ void occ_wide(float* out, int rounds) {
  float v = threadIdx.x;
  for (int r = 0; r < rounds; ++r) v = v * 0.999f + 1.f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

template <typename Kernel>
void report(const char* name, Kernel kernel, int block, int grid, size_t dynamicBytes, int maxWarps) {
  cudaFuncAttributes attr{};
  CHECK_CUDA(cudaFuncGetAttributes(&attr, kernel));
  int blocksPerSm = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, kernel, block, dynamicBytes));
  const int warps = (block + 31) / 32;
  std::printf("occupancy %s regs=%d static=%zu dynamic=%zu block=%d grid=%d blocks_per_sm=%d "
              "theoretical_pct=%.2f\n",
              name, attr.numRegs, attr.sharedSizeBytes, dynamicBytes, block, grid, blocksPerSm,
              100.0 * blocksPerSm * warps / maxWarps);
}

}  // namespace

int main(int argc, char** argv) {
  sample::requireGpuAndWarmUp(argv[0]);
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  const int maxWarps = prop.maxThreadsPerMultiProcessor / prop.warpSize;
  std::printf("device sms=%d max_threads_per_sm=%d max_blocks_per_sm=%d regs_per_sm=%d "
              "regs_per_block=%d shared_per_sm=%zu shared_per_block_optin=%zu reserved_shared=%zu\n",
              sms, prop.maxThreadsPerMultiProcessor, prop.maxBlocksPerMultiProcessor,
              prop.regsPerMultiprocessor, prop.regsPerBlock, prop.sharedMemPerMultiprocessor,
              prop.sharedMemPerBlockOptin, prop.reservedSharedMemPerBlock);

  const size_t sharedBytes = 10 * 1024 * sizeof(float);  // 40 KiB: with the static 4 KiB, under the 48 KiB default
  float* out = nullptr;
  const int maxGrid = 8 * sms;
  CHECK_CUDA(cudaMalloc(&out, sizeof(float) * maxGrid * 1024));

  const int regGrid = 4 * sms, sharedGrid = 4 * sms, wideGrid = sms / 4;
  report("occ_registers", occ_registers, 256, regGrid, 0, maxWarps);
  report("occ_shared", occ_shared, 128, sharedGrid, sharedBytes, maxWarps);
  report("occ_wide", occ_wide, 1024, wideGrid, 0, maxWarps);
  for (int i = 0; i < kLaunches; ++i) {
    occ_registers<<<regGrid, 256>>>(out, 2000);
    CHECK_LAUNCH();
    occ_shared<<<sharedGrid, 128, sharedBytes>>>(out, 2000);
    CHECK_LAUNCH();
    occ_wide<<<wideGrid, 1024>>>(out, 20000);
    CHECK_LAUNCH();
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(out));
  std::printf("EXPECT kernels=%d\n", 3 * kLaunches);
  return 0;
}
