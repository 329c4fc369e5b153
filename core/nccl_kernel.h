// NCCL's kernels told apart from compute by their names, and what a name says.
//
// NCCL names its device kernels after the collective they run:
//   NCCL >= 2.19: ncclDevKernel_<Coll>[_<Op>_<dtype>][_<ALGO>_<PROTO>]
//                 "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclDevKernel_SendRecv",
//                 "ncclDevKernel_AllGather_RING_LL", "ncclDevKernel_Generic_1"
//   older 2.x:    ncclKernel_<Coll>_<ALGO>_<PROTO>_<Op>_<type>
//                 "ncclKernel_AllReduce_RING_LL_Sum_float"
// CUPTI gives the mangled name ("_Z40ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDev..."),
// a demangled one may carry parameters ("...(ncclDevKernelArgsStorage<4096ul>)"): only the
// function's own name is read. Parts are recognized by their spelling, not their position,
// so a part a version leaves out stays empty instead of shifting the others. Element types
// of the older names are written in the newer, short form ("float" -> "f32").
#pragma once

#include <string>
#include <string_view>

namespace cuptitrace {

struct NcclKernelInfo {
  std::string collective;  // "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
                           // "SendRecv", "Send", "Recv", "AllToAll", "Generic", ...
  std::string op;          // "Sum", "Prod", "Max", "Min", "PreMulSum", "SumPostDiv"; or empty
  std::string dtype;       // "f32", "bf16", "i8", ...; or empty
  std::string algo;   // "RING", "TREE", "NVLS", "NVLS_TREE", "COLLNET_DIRECT", "PAT"...; or empty
  std::string proto;  // "LL", "LL128", "SIMPLE"; or empty
};

// True when `name` (mangled or not) is an NCCL kernel; fills `info`.
bool parseNcclKernel(std::string_view name, NcclKernelInfo& info);
// Only whether it is one.
bool isNcclKernel(std::string_view name);

}  // namespace cuptitrace
