// What a kernel record says about how a kernel used the GPU, without
// counters: its theoretical occupancy (CUDA's occupancy calculator's rules,
// from the launch's block size, registers and shared memory and the device's
// limits), the PyTorch profiler's estimates of SM efficiency and achieved
// occupancy, and whether it runs on Tensor Cores (by its name).
//
//   warps per block       ceil(threads / warp size)
//   blocks by warps       floor(max warps per SM / warps per block)
//   blocks by registers   registers a warp = registers a thread x warp size, rounded up to 256;
//                         warps by registers = floor(registers per SM / registers a warp), rounded
//                         down to a multiple of 4 (the SM's four partitions); then / warps per block
//   blocks by shared mem  shared memory a block = static + dynamic + the 1 KiB CUDA reserves per
//                         block (compute capability 8.0 on), rounded up to 128 bytes;
//                         floor(shared memory per SM / that)
//   blocks per SM         the least of those and the device's most blocks per SM
//   theoretical occupancy blocks per SM x warps per block / max warps per SM
//   est. SM efficiency    min(grid blocks / SMs, 1)                       (the PyTorch profiler's)
//   est. achieved occ.    min(blocks per SM, grid blocks / SMs) x threads per block / max threads
//                         per SM                                          (the PyTorch profiler's)
#pragma once

#include <cstdint>
#include <string_view>

#include "core/records.h"
#include "core/trace.h"

namespace cuptitrace::reports {

enum class OccupancyLimit : uint8_t { Unknown, Warps, Registers, SharedMemory, Blocks };
const char* occupancyLimitName(OccupancyLimit limit);  // "warps", "registers", ...

struct KernelOccupancy {
  bool known = false;          // the device's limits and the launch's shape are known
  uint32_t blocksPerSm = 0;    // the calculator's active blocks per SM
  OccupancyLimit limit = OccupancyLimit::Unknown;
  double theoretical = 0;      // 0..1
  double gridBlocksPerSm = 0;  // grid blocks / SMs
  double smEfficiency = 0;     // 0..1
  double achieved = 0;         // 0..1, estimated
};

// Whether the device's limits for the calculator are known (traces of CUPTI's device records).
bool hasOccupancyLimits(const DeviceInfo& d);

KernelOccupancy kernelOccupancy(const KernelRecord& k, const DeviceInfo& d);

// kernelOccupancy of a stream of kernel records, worked out again only when
// the launch's shape or the device changes: a loop launches the same shape
// over and over, and the reports ask for every record.
class OccupancyCache {
 public:
  const KernelOccupancy& get(const KernelRecord& k, const DeviceInfo& d) {
    if (!valid_ || device_ != &d || !sameShape(k)) {
      last_ = kernelOccupancy(k, d);
      shape_ = k;
      device_ = &d;
      valid_ = true;
    }
    return last_;
  }

 private:
  bool sameShape(const KernelRecord& k) const {
    return k.gridX == shape_.gridX && k.gridY == shape_.gridY && k.gridZ == shape_.gridZ &&
           k.blockX == shape_.blockX && k.blockY == shape_.blockY && k.blockZ == shape_.blockZ &&
           k.staticSharedMemory == shape_.staticSharedMemory &&
           k.dynamicSharedMemory == shape_.dynamicSharedMemory && k.registersPerThread == shape_.registersPerThread;
  }

  bool valid_ = false;
  const DeviceInfo* device_ = nullptr;
  KernelRecord shape_{};
  KernelOccupancy last_;
};

// The calculator alone: blocks per SM for a block of `threads` threads, `registers` registers a
// thread and `sharedBytes` of shared memory (static + dynamic).
KernelOccupancy theoreticalOccupancy(uint32_t threads, uint32_t registers, uint64_t sharedBytes,
                                     const DeviceInfo& d);

// Whether a kernel runs on Tensor Cores, by its (demangled) name, read as parts between
// non-alphanumerics: cuBLAS, cuDNN and CUTLASS kernels name their matrix instruction as a whole
// part (hmma, imma, gmma, wgmma, tensorop, tensor16x8x16) or the MMA shape fused with the routine
// (s16816gemm, h884gemm, h1688cudnn), or name their data types (xmma, cutlass, gemm and nvjet
// kernels: f16, bf16, tf32, fp8); FlashAttention's are flash_fwd_* and flash_bwd_*, and fused
// multi-head attention fmha*. A number alone is never a shape. Triton's and Inductor's kernels
// (triton_*) do not say: they count as not.
bool usesTensorCores(std::string_view name);

// Whether a PyTorch operator could run on Tensor Cores, by its name: the
// matrix products, convolutions, linear layers, attention and recurrent
// layers (the PyTorch profiler's "tc_eligible"). Element-wise operators,
// reductions and copies cannot.
bool tensorCoreEligible(std::string_view opName);

}  // namespace cuptitrace::reports
