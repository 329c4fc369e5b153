// The PyTorch views on hand-built traces: operator ranges as PyTorch writes
// them, steps found by themselves, the breakdown's categories, occupancy and
// Tensor Cores, and the training-loop findings.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "report_fixture.h"
#include "reports/kernel_traits.h"
#include "timeline/steps.h"
#include "timeline/torch_ops.h"

namespace cuptitrace {

using namespace testing::reports;

namespace {

// A launching call on `thread` at `call`, and the kernel it launched (same correlation id).
void launch(Trace& t, const std::string& name, uint64_t call, uint64_t start, uint64_t end,
            uint32_t thread = 1, uint32_t stream = 7) {
  api(t, "cudaLaunchKernel", call, call + 5, thread);
  KernelRecord k{};
  k.start = start;
  k.end = end;
  k.name = t.strings.intern(name);
  k.correlationId = gCorrelation;
  k.streamId = stream;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = 32;
  k.blockY = k.blockZ = 1;
  t.store.add(k);
}

// Whether any cell of any row holds `text`.
bool anyRowContains(const ReportTable& table, const std::string& text) {
  for (const auto& r : table.rows)
    for (const Cell& c : r)
      if (c.s.find(text) != std::string::npos) return true;
  return false;
}

DeviceInfo h100() {
  DeviceInfo d;
  d.id = 0;
  d.name = "H100";
  d.computeMajor = 9;
  d.multiprocessors = 132;
  d.threadsPerWarp = 32;
  d.maxWarpsPerSm = 64;
  d.maxBlocksPerSm = 32;
  d.registersPerSm = 65536;
  d.registersPerBlock = 65536;
  d.sharedMemoryPerSm = 233472;
  d.sharedMemoryPerBlock = 49152;
  d.maxThreadsPerBlock = 1024;
  return d;
}

}  // namespace

TEST_CASE("PyTorch's range texts: operators, backward nodes, scopes and the program's own", "[report][pytorch]") {
  auto fwd = parseTorchRange("aten::addmm, seq = 12, op_id = 40, sizes = [[64], [64, 128], []], "
                                      "input_op_ids = [(3,0)]");
  CHECK(fwd.role == RangeRole::Operator);
  CHECK(fwd.name == "aten::addmm");
  CHECK(fwd.seq == 12);
  CHECK(fwd.opId == 40);
  CHECK(fwd.shapes == "[[64], [64, 128], []]");
  CHECK_FALSE(fwd.backward);
  auto bwd = parseTorchRange("AddmmBackward0, seq = 12, op_id = 98");
  CHECK(bwd.role == RangeRole::Operator);
  CHECK(bwd.backward);
  CHECK(bwd.opId == 98);
  CHECK(parseTorchRange("aten::empty").opId == -1);
  CHECK(bwd.seq == 12);
  CHECK(parseTorchRange("autograd::engine::evaluate_function: AddmmBackward0, op_id = 97").backward);
  CHECK(parseTorchRange("detach, op_id = 12").role == RangeRole::Operator);
  CHECK(parseTorchRange("aten::empty").role == RangeRole::Operator);
  CHECK(parseTorchRange("aten::empty").seq == -1);
  CHECK(parseTorchRange("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__, op_id = 5").role ==
        RangeRole::DataLoader);
  CHECK(parseTorchRange("Optimizer.step#SGD.step, op_id = 152").role == RangeRole::Optimizer);
  CHECK(parseTorchRange("ProfilerStep#3").role == RangeRole::ProfilerStep);
  CHECK(parseTorchRange("step 3").role == RangeRole::None);
  CHECK(parseTorchRange("forward").role == RangeRole::None);
}

TEST_CASE("steps: names that read like a step", "[report][pytorch]") {
  for (const char* yes : {"step 3", "Step_12", "iteration: 4", "ITER 7", "train_step", "step#0", "training_step"})
    CHECK(looksLikeStep(yes));
  for (const char* no : {"step", "steps 3", "stepper", "forward", "Optimizer.step#SGD.step", "step 3b", ""})
    CHECK_FALSE(looksLikeStep(no));
}

TEST_CASE("steps: the first rule that finds steps wins, and says so", "[report][pytorch]") {
  Trace t;
  range(t, "step 0", 0, 100);
  range(t, "step 1", 100, 200);
  range(t, "ProfilerStep#0", 0, 150);
  auto steps = findSteps(t, "");
  REQUIRE(steps.steps.size() == 1);
  CHECK(steps.rule.find("ProfilerStep") != std::string::npos);
  // A given range wins; one that names nothing is said and the rest are tried.
  CHECK(findSteps(t, "step").steps.size() == 2);
  auto missed = findSteps(t, "epoch");
  CHECK(missed.missed == "epoch");
  CHECK(missed.steps.size() == 1);

  // The optimizer's calls: a step ends where each ends, the first begins at the first operator.
  Trace o;
  range(o, "aten::empty, op_id = 1", 10, 20);
  range(o, "Optimizer.zero_grad#SGD.zero_grad, op_id = 2", 30, 40);
  range(o, "Optimizer.step#SGD.step, op_id = 3", 80, 100);
  range(o, "Optimizer.step#SGD.step, op_id = 9", 180, 200);
  auto opt = findSteps(o, "");
  REQUIRE(opt.steps.size() == 2);
  CHECK(opt.steps[0].start == 10);
  CHECK(opt.steps[0].end == 100);
  CHECK(opt.steps[1].start == 100);
  CHECK(opt.steps[1].end == 200);
  CHECK(opt.rule.find("optimizer") != std::string::npos);
  // Ranges of the Python lines and of scopes are not steps.
  Trace p;
  range(p, "step 3", 0, 10, NvtxType::PushPop, kPythonNvtxDomain);
  CHECK(findSteps(p, "").steps.empty());
}

TEST_CASE("operators: host and device self and total times, backward linked to forward", "[report][pytorch]") {
  Trace t;
  // Thread 1, forward: aten::t (seq 4) runs before the node is made; aten::linear (seq 4) makes it.
  range(t, "aten::t, seq = 4, op_id = 1", 50, 60);
  range(t, "aten::linear, seq = 4, op_id = 2", 100, 500);
  range(t, "aten::addmm, seq = 4, op_id = 3", 150, 450, NvtxType::PushPop, "", 0, 1, 1);
  launch(t, "gemm", 200, 1000, 1100);   // inside addmm: its self, linear's total
  launch(t, "bias", 460, 1100, 1150);   // inside linear only
  // Thread 2, backward.
  range(t, "AddmmBackward0, seq = 4, op_id = 9", 2000, 2600, NvtxType::PushPop, "", 0, 2);
  range(t, "aten::mm, op_id = 10", 2100, 2500, NvtxType::PushPop, "", 0, 2, 1);
  launch(t, "gemm", 2200, 3000, 3300, 2);
  launch(t, "outside", 5000, 5100, 5200, 3);  // no operator on thread 3
  const ReportTable table = report(t, "operators");
  const auto& linear = row(table, "aten::linear");
  CHECK(intAt(table, linear, "calls") == 1);
  CHECK(intAt(table, linear, "host_total") == 400);
  CHECK(intAt(table, linear, "host_self") == 100);
  CHECK(intAt(table, linear, "device_total") == 150);
  CHECK(intAt(table, linear, "device_self") == 50);
  const auto& addmm = row(table, "aten::addmm");
  CHECK(intAt(table, addmm, "device_self") == 100);
  CHECK(intAt(table, addmm, "kernels") == 1);
  const auto& node = row(table, "AddmmBackward0");
  CHECK(intAt(table, node, "device_total") == 300);
  CHECK(intAt(table, node, "device_self") == 0);
  CHECK(node[col(table, "forward_op")].s == "aten::linear");
  CHECK(intAt(table, row(table, "aten::mm"), "device_self") == 300);
  CHECK(table.rows.front()[col(table, "name")].s == "AddmmBackward0");  // by device total
  CHECK(anyNoteContains(table, "1 GPU records were launched outside every operator (100 ns"));
  // No operators: the report says how to get them.
  Trace none;
  kernel(none, "k", 0, 10);
  CHECK(anyNoteContains(report(none, "operators"), "--pytorch ops"));
}

TEST_CASE("operators: one row per input shapes when they were recorded", "[report][pytorch]") {
  Trace t;
  range(t, "aten::mm, op_id = 1, sizes = [[2, 3], [3, 4]]", 0, 10);
  range(t, "aten::mm, op_id = 2, sizes = [[2, 3], [3, 4]]", 20, 30);
  range(t, "aten::mm, op_id = 3, sizes = [[8, 8], [8, 8]]", 40, 65);
  const ReportTable table = report(t, "operators");
  REQUIRE(table.rows.size() == 2);
  CHECK(table.rows[0][col(table, "input_shapes")].s == "[[8, 8], [8, 8]]");  // by host total, 25 ns
  CHECK(intAt(table, table.rows[1], "calls") == 2);
}

TEST_CASE("breakdown: Communication, DataLoader and CPU Exec", "[report][pytorch]") {
  Trace t;
  range(t, "ProfilerStep#0", 0, 1000);
  range(t, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__, op_id = 1", 0, 200);
  range(t, "aten::add, op_id = 2", 300, 400);
  kernel(t, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 500, 700, 9);
  kernel(t, "compute", 600, 650);
  const ReportTable table = report(t, "breakdown");
  REQUIRE(table.rows.size() == 1);
  const auto& s = table.rows[0];
  CHECK(intAt(table, s, "dataloader") == 200);
  CHECK(intAt(table, s, "cpu_exec") == 100);
  CHECK(intAt(table, s, "kernel") == 50);
  CHECK(intAt(table, s, "communication") == 150);
  CHECK(intAt(table, s, "other") == 500);
}

TEST_CASE("occupancy: CUDA's calculator's rules on an H100", "[report][pytorch]") {
  const DeviceInfo d = h100();
  // The values cudaOccupancyMaxActiveBlocksPerMultiprocessor gave on an H100 (samples/occupancy_kernels).
  auto regs = reports::theoreticalOccupancy(256, 69, 0, d);
  CHECK(regs.blocksPerSm == 3);
  CHECK(regs.limit == reports::OccupancyLimit::Registers);
  CHECK(regs.theoretical == Approx(0.375));
  auto shared = reports::theoreticalOccupancy(128, 32, 4096 + 40960, d);
  CHECK(shared.blocksPerSm == 5);
  CHECK(shared.limit == reports::OccupancyLimit::SharedMemory);
  CHECK(shared.theoretical == Approx(0.3125));
  auto wide = reports::theoreticalOccupancy(1024, 10, 0, d);
  CHECK(wide.blocksPerSm == 2);
  CHECK(wide.limit == reports::OccupancyLimit::Warps);
  CHECK(wide.theoretical == Approx(1.0));
  CHECK(reports::theoreticalOccupancy(1024, 255, 0, d).blocksPerSm == 0);  // more registers than a block may have
  CHECK(reports::theoreticalOccupancy(32, 16, 0, d).limit == reports::OccupancyLimit::Blocks);
  CHECK_FALSE(reports::theoreticalOccupancy(256, 32, 0, DeviceInfo{}).known);

  KernelRecord k{};
  k.gridX = 33, k.gridY = k.gridZ = 1;
  k.blockX = 1024, k.blockY = k.blockZ = 1;
  k.registersPerThread = 10;
  auto o = reports::kernelOccupancy(k, d);
  CHECK(o.gridBlocksPerSm == Approx(0.25));
  CHECK(o.smEfficiency == Approx(0.25));
  CHECK(o.achieved == Approx(0.125));  // min(2, 0.25) blocks x 1024 threads / 2048
}

TEST_CASE("Tensor Cores by kernel name", "[report][pytorch]") {
  for (const char* yes : {"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64", "volta_h884gemm_64x64_ldg8_nn",
                          "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT", "nvjet_tst_128x64_64x8_1x1_v_bz_TNN",
                          "cutlass_80_tensorop_f16_s16816gemm_f16_128x128_32x4_nn_align8",
                          "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
                          "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc",
                          "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>(Flash_fwd_params)"})
    CHECK(reports::usesTensorCores(yes));
  for (const char* no : {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8", "ampere_sgemm_128x64_tn",
                         "nvjet_sm90_sss_128x64_64x8_1x1_v_bz_TNN",
                         "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
                         "void implicit_convolve_sgemm<float, float, 128, 5, 5>", "triton_tem_fused_mm_0"})
    CHECK_FALSE(reports::usesTensorCores(no));
}

TEST_CASE("gpu_summary and gpu_kernels: utilization over the steps, occupancy, Tensor Cores", "[report][pytorch]") {
  Trace t;
  t.devices.push_back(h100());
  range(t, "step 0", 0, 1000);
  KernelRecord k{};
  k.start = 100, k.end = 400;  // 300 ns on Tensor Cores
  k.name = t.strings.intern("volta_h884gemm_64x64_ldg8_nn");
  k.gridX = 264, k.gridY = k.gridZ = 1;
  k.blockX = 256, k.blockY = k.blockZ = 1;
  k.registersPerThread = 69;
  k.correlationId = 1;
  t.store.add(k);
  k.start = 500, k.end = 600;  // 100 ns not
  k.name = t.strings.intern("elementwise");
  k.gridX = 33;
  k.blockX = 1024;
  k.registersPerThread = 10;
  k.correlationId = 2;
  t.store.add(k);
  const ReportTable summary = report(t, "gpu_summary");
  REQUIRE(summary.rows.size() == 1);
  const auto& s = summary.rows[0];
  CHECK(intAt(summary, s, "span") == 1000);
  CHECK(intAt(summary, s, "kernel_busy") == 400);
  CHECK(numAt(summary, s, "utilization_pct") == Approx(40.0));
  CHECK(numAt(summary, s, "tensor_core_pct") == Approx(75.0));
  // SM efficiency: (300 x 1 + 100 x 0.25) / 1000; achieved occupancy: the gemm's grid gives 2 blocks
  // an SM (of the 3 it could hold): (300 x 2 x 256 / 2048 + 100 x 0.125) / 400.
  CHECK(numAt(summary, s, "sm_efficiency_pct") == Approx(32.5));
  CHECK(numAt(summary, s, "achieved_occupancy_pct") == Approx(21.875));
  const ReportTable kernels = report(t, "gpu_kernels");
  const auto& gemm = row(kernels, "volta_h884gemm_64x64_ldg8_nn");
  CHECK(gemm[col(kernels, "tensor_cores")].s == "Yes");
  CHECK(numAt(kernels, gemm, "theoretical_occupancy_pct") == Approx(37.5));
  CHECK(gemm[col(kernels, "limited_by")].s == "registers");
  CHECK(gemm[col(kernels, "blocks_per_sm")].s == "2.00");
  CHECK(row(kernels, "elementwise")[col(kernels, "tensor_cores")].s == "No");
  CHECK(anyNoteContains(kernels, "Kernel time on Tensor Cores: 75.00%"));
}

TEST_CASE("findings: NCCL's time is communication, never a busy stream", "[report][pytorch]") {
  Trace t;
  kernel(t, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 800, 1);
  kernel(t, "compute", 800, 900, 2);
  const ReportTable f = report(t, "findings");
  CHECK(anyRowContains(f, "Communication takes 88.9% of GPU 0's kernel time"));
  CHECK_FALSE(anyRowContains(f, "One stream busy"));
  // With compute on two streams beside it, the busy-stream finding leaves NCCL out and says so.
  kernel(t, "compute", 900, 1900, 3);
  const ReportTable g = report(t, "findings");
  CHECK(anyRowContains(g, "stream 3 carries 90.9% of the GPU work time"));
  CHECK(anyRowContains(g, "NCCL's kernels (1) are left out"));
}

TEST_CASE("findings: steps bound by the data loader or by launches, matrices without Tensor Cores",
          "[report][pytorch]") {
  Trace t;
  for (uint64_t s = 0; s < 3; ++s) {
    const uint64_t b = s * 1000;
    range(t, "ProfilerStep#" + std::to_string(s), b, b + 1000);
    range(t, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", b, b + 300);
    range(t, "aten::linear", b + 300, b + 900);
    for (uint64_t j = 0; j < 4; ++j) kernel(t, "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n", b + 900 + 12 * j, b + 912 + 12 * j);
  }
  const ReportTable f = report(t, "findings");
  CHECK(anyRowContains(f, "Steps wait for the data loader (30.0% of step time)"));
  CHECK(anyRowContains(f, "3 of 3 steps are launch-bound"));
  CHECK(anyRowContains(f, "Matrix kernels without Tensor Cores take 100.0% of kernel time"));
  CHECK(anyRowContains(f, "GPU 0 busy only 4.8% of the steps"));
}

}  // namespace cuptitrace
