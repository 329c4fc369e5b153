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

  // The optimizer's calls: a step ends where an iteration's calls end; before the first end,
  // from the first operator, is the warm-up.
  Trace o;
  range(o, "aten::empty, op_id = 1", 10, 20);
  range(o, "Optimizer.zero_grad#SGD.zero_grad, op_id = 2", 30, 40);
  range(o, "Optimizer.step#SGD.step, op_id = 3", 80, 100);
  range(o, "aten::mm, op_id = 4", 120, 150);
  range(o, "Optimizer.step#SGD.step, op_id = 9", 180, 200);
  range(o, "aten::mm, op_id = 10", 220, 250);
  range(o, "Optimizer.step#SGD.step, op_id = 11", 280, 300);
  auto opt = findSteps(o, "");
  REQUIRE(opt.warmup.has_value());
  CHECK(opt.warmup->start == 10);
  CHECK(opt.warmup->end == 100);
  REQUIRE(opt.steps.size() == 2);
  CHECK(opt.steps[0].start == 100);
  CHECK(opt.steps[0].end == 200);
  CHECK(opt.steps[1].start == 200);
  CHECK(opt.steps[1].end == 300);
  CHECK(opt.rule.find("optimizer") != std::string::npos);
  // Ranges of the Python lines and of scopes are not steps.
  Trace p;
  range(p, "step 3", 0, 10, NvtxType::PushPop, kPythonNvtxDomain);
  CHECK(findSteps(p, "").steps.empty());
}

TEST_CASE("steps: the optimizer's calls of one iteration are one step; the warm-up apart", "[report][pytorch]") {
  // Per-module optimizers, stepped one after the other (zero_grad's own operators between them
  // are the optimizer's): 3 iterations, the first after a long start-up.
  Trace m;
  range(m, "aten::empty, op_id = 1", 0, 10);
  for (uint64_t i = 0; i < 3; ++i) {
    const uint64_t b = 10000 + 1000 * i;
    range(m, "aten::linear, op_id = 2", b, b + 500);
    range(m, "Optimizer.step#Adam.step, op_id = 3", b + 600, b + 700);
    range(m, "Optimizer.zero_grad#Adam.zero_grad, op_id = 4", b + 700, b + 750);
    range(m, "aten::zero_, op_id = 5", b + 710, b + 740);
    range(m, "Optimizer.step#Adam.step, op_id = 6", b + 800, b + 900);
  }
  auto per = findSteps(m, "");
  REQUIRE(per.warmup.has_value());
  CHECK(per.warmup->start == 0);
  CHECK(per.warmup->end == 10900);
  REQUIRE(per.steps.size() == 2);
  CHECK(per.steps[0].start == 10900);
  CHECK(per.steps[0].end == 11900);
  CHECK(per.steps[1].end == 12900);
  CHECK(per.rule.find("other operator") != std::string::npos);

  // A GAN: the discriminator's and the generator's steps, with forward and backward work between
  // them, in one iteration a batch; the data loader's __next__ starts each.
  Trace g;
  for (uint64_t i = 0; i < 4; ++i) {
    const uint64_t b = 1000 * i;
    range(g, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__, op_id = 1", b, b + 100);
    range(g, "aten::conv2d, op_id = 2", b + 100, b + 300);
    range(g, "Optimizer.step#Adam.step, op_id = 3", b + 300, b + 400);
    range(g, "aten::conv2d, op_id = 4", b + 400, b + 800);
    range(g, "Optimizer.step#Adam.step, op_id = 5", b + 800, b + 900);
  }
  auto gan = findSteps(g, "");
  REQUIRE(gan.steps.size() == 3);
  CHECK(gan.warmup->end == 900);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(gan.steps[i].start == 900 + 1000 * i);
    CHECK(gan.steps[i].end == 1900 + 1000 * i);
  }
  CHECK(gan.rule.find("data loader") != std::string::npos);

  // The breakdown shows the warm-up in a row of its own, in no average; the GPU summary's span
  // starts at the first step.
  kernel(m, "k", 11000, 11400);
  kernel(m, "k", 12000, 12200);
  const ReportTable b = report(m, "breakdown");
  REQUIRE(b.rows.size() == 4);  // warm-up, 2 steps, their average
  CHECK(b.rows[0][col(b, "range")].s == "warm-up");
  CHECK(b.rows[0][col(b, "step")].kind == Cell::Kind::Empty);
  CHECK(intAt(b, b.rows[0], "total") == 10900);
  CHECK(b.rows[3][col(b, "range")].s == "Average");
  CHECK(intAt(b, b.rows[3], "total") == 1000);
  CHECK(anyNoteContains(b, "Warm-up"));
  const ReportTable gpu = report(m, "gpu_summary");
  REQUIRE(gpu.rows.size() == 1);
  CHECK(intAt(gpu, gpu.rows[0], "span") == 2000);
  CHECK(numAt(gpu, gpu.rows[0], "utilization_pct") == Approx(30.0));
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

TEST_CASE("operators: an only child of its own name is one call with it, as PyTorch counts", "[report][pytorch]") {
  Trace t;
  // aten::set_ of a tensor calls aten::set_ of its storage (emit_nvtx gives each a range): 3 times,
  // once with the inner call running an operator of its own.
  range(t, "aten::set_, op_id = 1", 0, 100);
  range(t, "aten::set_, op_id = 2", 10, 90);
  range(t, "aten::set_, op_id = 3", 200, 300);
  range(t, "aten::set_, op_id = 4", 210, 290);
  range(t, "aten::set_, op_id = 5", 400, 500);
  range(t, "aten::set_, op_id = 6", 410, 490);
  range(t, "aten::empty, op_id = 7", 420, 440);
  launch(t, "fill", 430, 1000, 1050);  // inside the inner set_, inside aten::empty
  // A set_ with two same-named children is three calls (PyTorch merges only an only child).
  range(t, "aten::set_, op_id = 8", 600, 700);
  range(t, "aten::set_, op_id = 9", 610, 640);
  range(t, "aten::set_, op_id = 10", 650, 690);
  // A chain of three folds into one.
  range(t, "aten::copy_, op_id = 11", 800, 900);
  range(t, "aten::copy_, op_id = 12", 810, 890);
  range(t, "aten::copy_, op_id = 13", 820, 880);
  launch(t, "copy", 830, 1100, 1120);
  const ReportTable table = report(t, "operators");
  const auto& set = row(table, "aten::set_");
  CHECK(intAt(table, set, "calls") == 6);
  // Host total: the outer calls' times; self: less what ran inside other than set_.
  CHECK(intAt(table, set, "host_total") == 100 + 100 + 100 + 100 + 30 + 40);
  CHECK(intAt(table, set, "host_self") == 100 + 100 + 80 + (100 - 30 - 40) + 30 + 40);
  const auto& copy = row(table, "aten::copy_");
  CHECK(intAt(table, copy, "calls") == 1);
  CHECK(intAt(table, copy, "host_self") == 100);
  CHECK(intAt(table, copy, "device_self") == 20);
  CHECK(intAt(table, copy, "kernels") == 1);
  CHECK(intAt(table, row(table, "aten::empty"), "device_self") == 50);
  CHECK(anyNoteContains(table, "5 operators were the only child of one of their name"));
}

TEST_CASE("operators: backward nodes link by the forward thread's sequence numbers", "[report][pytorch]") {
  Trace t;
  // Two threads train, each numbering its nodes from 4. Thread 1 runs forward, then waits in
  // backward(); thread 3 runs its forward later and is still running operators when thread 1's
  // node runs on the autograd engine's thread 2.
  range(t, "aten::linear, seq = 4, op_id = 1", 100, 500);
  range(t, "aten::relu, seq = 4, op_id = 2", 600, 700, NvtxType::PushPop, "", 0, 3);
  range(t, "aten::mul, seq = 5, op_id = 3", 1900, 2500, NvtxType::PushPop, "", 0, 3);
  range(t, "AddmmBackward0, seq = 4, op_id = 9", 2000, 2100, NvtxType::PushPop, "", 0, 2);
  // Backward on the CPU: the node runs on the thread that made it, which wins over a later one.
  range(t, "aten::sigmoid, seq = 7, op_id = 20", 3000, 3100, NvtxType::PushPop, "", 0, 5);
  range(t, "aten::tanh, seq = 7, op_id = 21", 3200, 3300, NvtxType::PushPop, "", 0, 6);
  range(t, "SigmoidBackward0, seq = 7, op_id = 22", 3400, 3500, NvtxType::PushPop, "", 0, 5);
  const ReportTable table = report(t, "operators");
  CHECK(row(table, "AddmmBackward0")[col(table, "forward_op")].s == "aten::linear");
  CHECK(row(table, "SigmoidBackward0")[col(table, "forward_op")].s == "aten::sigmoid");
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

TEST_CASE("operators: Tensor Core eligibility and the share of kernel time on Tensor Cores", "[report][pytorch]") {
  Trace t;
  // aten::linear -> aten::addmm launches a Tensor Core GEMM (300 ns); linear then a bias kernel (100 ns)
  // and a copy (which is no kernel: left out of both shares).
  range(t, "aten::linear, seq = 1", 100, 900);
  range(t, "aten::addmm, seq = 1", 150, 450, NvtxType::PushPop, "", 0, 1, 1);
  launch(t, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_kernel", 200, 1000, 1300);
  launch(t, "void at::native::bias_kernel<float>(float*)", 500, 1300, 1400);
  api(t, "cudaMemcpyAsync", 600, 610, 1);
  --gCorrelation;  // the copy takes the call's correlation id
  memcpy(t, CopyKind::DtoD, MemoryKind::Device, MemoryKind::Device, 64, 1400, 1900);
  range(t, "aten::relu", 1000, 1100);
  launch(t, "void at::native::relu_kernel<float>(float*)", 1010, 2000, 2050);
  range(t, "aten::empty", 1200, 1210);
  const ReportTable table = report(t, "operators");
  const auto& linear = row(table, "aten::linear");
  CHECK(linear[col(table, "tc_eligible")].s == "yes");
  CHECK(numAt(table, linear, "tc_self_ratio") == Approx(0.0));           // its own kernel is the bias
  CHECK(numAt(table, linear, "tc_total_ratio") == Approx(75.0));         // 300 of 400 ns of kernels
  CHECK(intAt(table, linear, "device_total") == 900);                   // the copy is device time
  const auto& addmm = row(table, "aten::addmm");
  CHECK(addmm[col(table, "tc_eligible")].s == "yes");
  CHECK(numAt(table, addmm, "tc_self_ratio") == Approx(100.0));
  const auto& relu = row(table, "aten::relu");
  CHECK(relu[col(table, "tc_eligible")].s == "no");
  CHECK(numAt(table, relu, "tc_total_ratio") == Approx(0.0));
  // Without kernels there is no share to give.
  const auto& empty = row(table, "aten::empty");
  CHECK(empty[col(table, "tc_self_ratio")].kind == Cell::Kind::Empty);
  CHECK(reports::tensorCoreEligible("aten::convolution"));
  CHECK(reports::tensorCoreEligible("autograd::engine::evaluate_function: MmBackward0"));
  CHECK(reports::tensorCoreEligible("aten::scaled_dot_product_attention"));
  CHECK_FALSE(reports::tensorCoreEligible("aten::add_"));
  CHECK_FALSE(reports::tensorCoreEligible("aten::sum"));
}

TEST_CASE("operators: by name alone, whatever the shapes, on request", "[report][pytorch]") {
  Trace t;
  range(t, "aten::mm, op_id = 1, sizes = [[2, 3], [3, 4]]", 0, 10);
  range(t, "aten::mm, op_id = 3, sizes = [[8, 8], [8, 8]]", 40, 65);
  ReportOptions byName;
  byName.operatorsByShapes = false;
  const ReportTable table = report(t, "operators", byName);
  REQUIRE(table.rows.size() == 1);
  CHECK(intAt(table, table.rows[0], "calls") == 2);
  CHECK(intAt(table, table.rows[0], "host_total") == 35);
  CHECK(col(table, "name") < table.columns.size());
  for (const Column& c : table.columns) CHECK(c.key != "input_shapes");
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

TEST_CASE("Tensor Cores: whole name parts, never a Triton kernel's digits", "[report][pytorch]") {
  for (const char* yes : {"sm80_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16",
                          "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_nn", "turing_h1688cudnn_128x128_ldg8_relu_exp_small_nhwc_tn_v1",
                          "ampere_s16832gemm_bf16_128x64_ldg8_f2f_nn", "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_void_f16",
                          "void cutlass::Kernel<cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_128x2_nn_align8>(Params)",
                          "sm90_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas_wgmma",
                          "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits>(Flash_bwd_params)",
                          "fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel::Params)",
                          "void hmma_kernel<half>(half const*)"})
    CHECK(reports::usesTensorCores(yes));
  for (const char* no : {"triton_poi_fused__to_copy_add_mul_16832", "triton_red_fused_native_layer_norm_1688",
                         "triton_per_fused_sum_16816", "triton_tem_fused_mm_flash_fwd_0", "kernel_16816",
                         "void reduce_kernel<512, 1>(float*, unsigned long, 16832)", "flash_memory_copy_kernel",
                         "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize16832x64x8"})
    CHECK_FALSE(reports::usesTensorCores(no));
}

TEST_CASE("gpu_summary: SM efficiency of overlapping kernels is capped at 1 in each moment", "[report][pytorch]") {
  Trace t;
  t.devices.push_back(h100());
  range(t, "step 0", 0, 1000);
  KernelRecord k{};
  k.gridX = 264, k.gridY = k.gridZ = 1;  // 2 blocks an SM: efficiency 1
  k.blockX = 128, k.blockY = k.blockZ = 1;
  k.registersPerThread = 32;
  k.name = t.strings.intern("full");
  for (uint32_t s = 0; s < 3; ++s) {  // three full-grid kernels side by side on three streams, 0..800
    k.start = 0, k.end = 800;
    k.streamId = 7 + s;
    k.correlationId = 1 + s;
    t.store.add(k);
  }
  k.gridX = 33;  // a quarter of the SMs, 800..1000, beside another quarter 900..1000
  k.name = t.strings.intern("quarter");
  k.start = 800, k.end = 1000, k.streamId = 7, k.correlationId = 4;
  t.store.add(k);
  k.start = 900, k.end = 1000, k.streamId = 8, k.correlationId = 5;
  t.store.add(k);
  const ReportTable summary = report(t, "gpu_summary");
  REQUIRE(summary.rows.size() == 1);
  // (800 x min(3, 1) + 100 x 0.25 + 100 x min(0.5, 1)) / 1000: not (3 x 800 + ...) / 1000 = 247.5 %.
  CHECK(numAt(summary, summary.rows[0], "sm_efficiency_pct") == Approx(87.5));
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
