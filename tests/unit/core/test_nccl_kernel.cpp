// NCCL kernel names read into their collective (core/nccl_kernel.h), as
// CUPTI gives them (mangled) and as tools print them (demangled).
#include <catch2/catch.hpp>
#include <string>

#include "core/nccl_kernel.h"

using namespace cuptitrace;

namespace {

NcclKernelInfo parsed(const std::string& name) {
  NcclKernelInfo info;
  REQUIRE(parseNcclKernel(name, info));
  return info;
}

}  // namespace

TEST_CASE("nccl: NCCL 2.19+ names, plain, mangled and demangled", "[nccl]") {
  for (const std::string& name :
       {std::string("ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
        std::string(
            "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"),
        std::string("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)")}) {
    INFO(name);
    const NcclKernelInfo k = parsed(name);
    CHECK(k.collective == "AllReduce");
    CHECK(k.op == "Sum");
    CHECK(k.dtype == "f32");
    CHECK(k.algo == "RING");
    CHECK(k.proto == "LL");
  }
  const NcclKernelInfo bf = parsed("ncclDevKernel_ReduceScatter_Sum_bf16_NVLS_TREE_SIMPLE");
  CHECK(bf.collective == "ReduceScatter");
  CHECK(bf.dtype == "bf16");
  CHECK(bf.algo == "NVLS_TREE");
  CHECK(bf.proto == "SIMPLE");
  const NcclKernelInfo ag = parsed("ncclDevKernel_AllGather_RING_LL128");
  CHECK(ag.collective == "AllGather");
  CHECK(ag.op.empty());
  CHECK(ag.dtype.empty());
  CHECK(ag.algo == "RING");
  CHECK(ag.proto == "LL128");
  const NcclKernelInfo sr = parsed("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)");
  CHECK(sr.collective == "SendRecv");
  CHECK(sr.algo.empty());
  CHECK(parsed("ncclDevKernel_AllReduce_Sum_f16").algo.empty());
  CHECK(parsed("ncclDevKernel_Broadcast_RING_LL").collective == "Broadcast");
  CHECK(parsed("ncclDevKernel_AllReduce_Sum_f32_COLLNET_DIRECT_SIMPLE").algo == "COLLNET_DIRECT");
  CHECK(parsed("ncclDevKernel_Generic_1").collective == "Generic");
}

TEST_CASE("nccl: older names, C element types in the short form", "[nccl]") {
  const NcclKernelInfo k =
      parsed("_Z38ncclKernel_AllReduce_RING_LL_Sum_floatP14ncclDevCommmP8ncclWork");
  CHECK(k.collective == "AllReduce");
  CHECK(k.op == "Sum");
  CHECK(k.dtype == "f32");
  CHECK(k.algo == "RING");
  CHECK(k.proto == "LL");
  CHECK(parsed("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)")
            .dtype == "i8");
  CHECK(parsed("ncclKernel_AllReduce_TREE_LL128_Max___nv_bfloat16").dtype == "bf16");
  CHECK(parsed("ncclKernel_Reduce_RING_LL_Prod_half").op == "Prod");
}

TEST_CASE("nccl: other kernels are not NCCL's", "[nccl]") {
  CHECK_FALSE(isNcclKernel("_Z6kernelPfi"));
  CHECK_FALSE(isNcclKernel(
      "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>"));
  CHECK_FALSE(isNcclKernel("myncclKernel_AllReduce"));
  CHECK_FALSE(isNcclKernel("ncclKernel_"));
  CHECK_FALSE(isNcclKernel(""));
  CHECK(isNcclKernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
}
