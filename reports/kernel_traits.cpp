#include "reports/kernel_traits.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace cuptitrace::reports {
namespace {

constexpr uint32_t kRegisterUnit = 256;      // registers are given to a warp in units of this many
constexpr uint32_t kWarpGranularity = 4;     // warps by registers: a multiple of the SM's partitions
constexpr uint64_t kSharedUnit = 128;        // shared memory is given to a block in units of this
constexpr uint64_t kReservedShared = 1024;   // shared memory CUDA reserves per block, 8.0 on

uint64_t roundUp(uint64_t v, uint64_t unit) { return (v + unit - 1) / unit * unit; }

std::vector<std::string> tokens(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

bool allLetters(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

// A whole name part that names a matrix (Tensor Core) instruction, as cuBLAS, cuDNN and CUTLASS
// spell them: the instruction ("hmma", "wgmma", "tensorop"), the MMA shape between the types and
// the routine ("s16816gemm", "h884gemm", "h1688cudnn", "i8816gemm"), or CUTLASS's and cuDNN's
// "tensor16x8x16". A shape alone ("16832") is a number, not one.
bool isMatrixInstruction(const std::string& t) {
  for (const std::string_view mark : {"hmma", "imma", "gmma", "hgmma", "wgmma", "wmma", "mma", "tensorop", "fmha"})
    if (t == mark) return true;
  if (t.compare(0, 4, "fmha") == 0) return true;  // fmha_cutlassF_..., fmha_v2_...
  if (t.size() > 6 && t.compare(0, 6, "tensor") == 0 && std::isdigit(static_cast<unsigned char>(t[6]))) return true;
  for (const std::string_view shape : {"884", "1688", "8816", "8832", "16816", "16832", "16864"}) {
    const size_t at = t.find(shape);
    if (at == std::string::npos) continue;
    // A type's letter or two (or none) before, a routine's letters after: s16816gemm, h1688cudnn.
    const std::string_view before(t.data(), at), after(t.data() + at + shape.size(), t.size() - at - shape.size());
    if (before.size() <= 2 && allLetters(before) && !after.empty() && allLetters(after)) return true;
  }
  return false;
}

}  // namespace

const char* occupancyLimitName(OccupancyLimit limit) {
  switch (limit) {
    case OccupancyLimit::Warps: return "warps";
    case OccupancyLimit::Registers: return "registers";
    case OccupancyLimit::SharedMemory: return "shared memory";
    case OccupancyLimit::Blocks: return "blocks";
    case OccupancyLimit::Unknown: break;
  }
  return "unknown";
}

bool hasOccupancyLimits(const DeviceInfo& d) {
  return d.threadsPerWarp != 0 && d.maxWarpsPerSm != 0 && d.maxBlocksPerSm != 0 && d.registersPerSm != 0 &&
         d.sharedMemoryPerSm != 0 && d.multiprocessors != 0;
}

KernelOccupancy theoreticalOccupancy(uint32_t threads, uint32_t registers, uint64_t sharedBytes,
                                     const DeviceInfo& d) {
  KernelOccupancy o;
  if (!hasOccupancyLimits(d) || threads == 0) return o;
  o.known = true;
  const uint32_t warps = (threads + d.threadsPerWarp - 1) / d.threadsPerWarp;
  uint32_t blocks = d.maxBlocksPerSm;
  o.limit = OccupancyLimit::Blocks;
  auto bound = [&](uint32_t b, OccupancyLimit why) {
    if (b < blocks) blocks = b, o.limit = why;
  };
  bound(d.maxWarpsPerSm / warps, OccupancyLimit::Warps);
  if (registers != 0) {
    const uint64_t perWarp = roundUp(uint64_t{registers} * d.threadsPerWarp, kRegisterUnit);
    if (d.registersPerBlock != 0 && uint64_t{registers} * threads > d.registersPerBlock) {
      bound(0, OccupancyLimit::Registers);
    } else {
      const uint64_t warpsByRegs = d.registersPerSm / perWarp / kWarpGranularity * kWarpGranularity;
      bound(static_cast<uint32_t>(warpsByRegs / warps), OccupancyLimit::Registers);
    }
  }
  const uint64_t reserved = d.computeMajor >= 8 ? kReservedShared : 0;
  const uint64_t perBlock = roundUp(sharedBytes + reserved, kSharedUnit);
  if (perBlock != 0) bound(static_cast<uint32_t>(d.sharedMemoryPerSm / perBlock), OccupancyLimit::SharedMemory);
  o.blocksPerSm = blocks;
  o.theoretical = static_cast<double>(blocks) * warps / d.maxWarpsPerSm;
  return o;
}

KernelOccupancy kernelOccupancy(const KernelRecord& k, const DeviceInfo& d) {
  const uint64_t threads = uint64_t{k.blockX} * k.blockY * k.blockZ;
  const int64_t shared = int64_t{std::max(k.staticSharedMemory, 0)} + std::max(k.dynamicSharedMemory, 0);
  KernelOccupancy o = theoreticalOccupancy(static_cast<uint32_t>(std::min<uint64_t>(threads, UINT32_MAX)),
                                           k.registersPerThread, static_cast<uint64_t>(shared), d);
  if (!o.known || k.gridX <= 0 || k.gridY <= 0 || k.gridZ <= 0) {
    o.known = false;
    return o;
  }
  const double grid = static_cast<double>(k.gridX) * k.gridY * k.gridZ;
  o.gridBlocksPerSm = grid / d.multiprocessors;
  o.smEfficiency = std::min(o.gridBlocksPerSm, 1.0);
  const double maxThreads = static_cast<double>(d.maxWarpsPerSm) * d.threadsPerWarp;
  o.achieved = std::min(static_cast<double>(o.blocksPerSm), o.gridBlocksPerSm) * static_cast<double>(threads) /
               maxThreads;
  return o;
}

bool usesTensorCores(std::string_view name) {
  const std::vector<std::string> ts = tokens(name);
  // Triton's and Inductor's kernels ("triton_poi_fused_add_16832") name what they fuse; their
  // digits are sizes and counters, never matrix instructions.
  if (!ts.empty() && ts.front() == "triton") return false;
  bool typed = false;     // a GEMM family that names its data types
  bool lowPrecision = false;
  for (size_t i = 0; i < ts.size(); ++i) {
    const std::string& t = ts[i];
    if (isMatrixInstruction(t)) return true;
    // FlashAttention's kernels: flash_fwd_kernel, flash_bwd_dq_dk_dv_loop_kernel, flash_fwd_splitkv_kernel.
    if (t == "flash" && i + 1 < ts.size() && (ts[i + 1] == "fwd" || ts[i + 1] == "bwd")) return true;
    if (contains(t, "xmma") || contains(t, "cutlass") || contains(t, "gemm")) typed = true;
    if (t == "nvjet") {
      // cuBLAS's nvjet kernels ("nvjet_sm90_hsh_..."): past the architecture, the next part's
      // first letter is the input type (h, b, t, e: Tensor Cores; s, d: not).
      size_t j = i + 1;
      while (j < ts.size() && ts[j].size() > 2 && ts[j].compare(0, 2, "sm") == 0 &&
             std::isdigit(static_cast<unsigned char>(ts[j][2])))
        ++j;
      if (j < ts.size() && !ts[j].empty()) {
        const char c = ts[j][0];
        if (c == 'h' || c == 'b' || c == 't' || c == 'e' || c == 'q') return true;
      }
    }
    for (const std::string_view type : {"f16", "bf16", "tf32", "fp16", "fp8", "e4m3", "e5m2", "half", "bfloat16"})
      if (contains(t, type)) lowPrecision = true;
  }
  return typed && lowPrecision;
}

bool tensorCoreEligible(std::string_view opName) {
  // "aten::addmm" -> "addmm"; "autograd::engine::evaluate_function: MmBackward0" -> "mmbackward0".
  std::string n;
  const size_t colon = opName.rfind(':');
  for (const char c : opName.substr(colon == std::string_view::npos ? 0 : colon + 1))
    if (c != ' ') n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string_view exact : {"mm", "bmm", "addmm", "baddbmm", "addbmm", "matmul", "linear", "einsum",
                                       "addmv", "mv", "dot", "tensordot", "_scaled_mm", "_int_mm"})
    if (n == exact) return true;
  for (const std::string_view part : {"conv", "linear", "matmul", "gemm", "attention", "flash", "lstm", "gru",
                                      "rnn", "mmbackward", "bmmbackward", "addmmbackward"})
    if (contains(n, part)) return true;
  return false;
}

}  // namespace cuptitrace::reports
