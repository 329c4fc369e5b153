// The gpu_metrics report: each kernel's metrics averaged over its own time,
// and its verdict by the written rule; the findings it gives.
#include <catch2/catch.hpp>

#include "gpu_metrics_fixture.h"
#include "report_cells.h"
#include "reports/report_gpu_metrics.h"
#include "reports/reports.h"

using namespace cuptitrace;
using namespace cuptitrace::reports;
using namespace cuptitrace::testing;

namespace {

size_t rowOf(const ReportTable& t, const std::string& name) {
  const size_t c = reportColumn(t, "name");
  for (size_t r = 0; r < t.rows.size(); ++r)
    if (t.rows[r][c].s == name) return r;
  FAIL("no row " << name);
  return 0;
}

}  // namespace

TEST_CASE("gpu_metrics report: each test kernel lands in its class") {
  Trace t;
  gpuMetricsTrace(t);
  const ReportTable table = buildReport(t, "gpu_metrics", {});
  REQUIRE(table.rows.size() == 4);
  const auto verdict = [&](const char* k) {
    return reportCell(table, rowOf(table, k), "verdict").s;
  };
  CHECK(verdict("stream_copy") == "memory-bound");
  CHECK(verdict("fma_loop") == "compute-bound");
  CHECK(verdict("mma_loop") == "compute-bound");
  CHECK(verdict("sleep_kernel") == "latency-bound");
  // Averages over the kernel's own time: its 499 full samples and the two
  // halves it shares with the idle device, weighted by the half they overlap.
  const size_t copy = rowOf(table, "stream_copy");
  const double expectSm = (499 * 99.0 + 0.5 * 49.5 * 2) / 500.0;
  CHECK(reportCell(table, copy, "sm_active_pct").number() == Approx(expectSm).epsilon(1e-4));
  CHECK(reportCell(table, copy, "dram_pct").number() == Approx(89).epsilon(0.01));
  CHECK(reportCell(table, copy, "dram_read_rate").number() == Approx(1.5e12 / 1e9).epsilon(0.01));
  CHECK(reportCell(table, rowOf(table, "mma_loop"), "tensor_active_pct").number() ==
        Approx(85).epsilon(0.01));
  // Every kernel fills its samples but the two it shares: 500 of 501 samples' time.
  CHECK(reportCell(table, copy, "sampled_pct").number() == Approx(100.0 * 500 / 501).epsilon(1e-3));
  CHECK(reportNoteContains(table, "latency-bound"));
  CHECK(reportNoteContains(table, "device-wide"));
}

TEST_CASE("gpu_metrics report: the rule, case by case") {
  MetricShares m;
  m.smActive = 90;
  m.smIssue = 12;
  m.tensor = 0;
  m.dram = 8;
  CHECK(classifyKernel(m) == Boundness::LatencyBound);
  m.dram = 70;
  CHECK(classifyKernel(m) == Boundness::MemoryBound);
  m.smIssue = 80;
  CHECK(classifyKernel(m) == Boundness::ComputeBound);  // issue above DRAM
  m.smIssue = 60;
  CHECK(classifyKernel(m) == Boundness::MemoryBound);  // DRAM above issue
  m.smActive = 30;
  CHECK(classifyKernel(m) == Boundness::IdleSms);
  m.smActive = 90;
  m.occupancy = 0.3;
  CHECK(classifyKernel(m) == Boundness::TooShort);
  m.occupancy = 1;
  m.dram = -1;  // not sampled
  CHECK(classifyKernel(m) == Boundness::Unknown);
  CHECK_THAT(boundnessRule(), Catch::Contains("50%"));
}

TEST_CASE("gpu_metrics report: a kernel shorter than the sampling period is not judged") {
  Trace t;
  gpuMetricsTrace(t);
  // 20 us kernels inside the idle stretch at the start: each shares a 100 us sample with idle time.
  for (int i = 0; i < 10; ++i)
    addKernel(t, "tiny", kMetricBase + 100'000 * static_cast<uint64_t>(i) + 10'000,
              kMetricBase + 100'000 * static_cast<uint64_t>(i) + 30'000, 100 + i);
  const ReportTable table = buildReport(t, "gpu_metrics", {});
  const size_t tiny = rowOf(table, "tiny");
  CHECK(reportCell(table, tiny, "verdict").s == "too short to judge");
  CHECK(reportCell(table, tiny, "sampled_pct").number() == Approx(20));
}

TEST_CASE("gpu_metrics report: without samples, a note says how to get them") {
  Trace t;
  addKernel(t, "k", 1000, 2000, 1);
  const ReportTable table = buildReport(t, "gpu_metrics", {});
  CHECK(table.rows.empty());
  CHECK(reportNoteContains(table, "--gpu-metrics"));
}

TEST_CASE("gpu_metrics findings: the top kernels' verdicts, in words, and lost samples") {
  Trace t;
  gpuMetricsTrace(t);
  t.counters["gpu_metrics.samples_lost"] = 12;
  const ReportTable findings = buildReport(t, "findings", {});
  std::string all;
  for (const auto& row : findings.rows)
    for (const auto& c : row) all += c.s + "\n";
  CHECK_THAT(all, Catch::Contains("Kernel sleep_kernel (25 % of kernel time) is latency-bound"));
  CHECK_THAT(all, Catch::Contains("it uses 0.2 % of DRAM bandwidth and 0.5 % of SM issue slots"));
  CHECK_THAT(all, Catch::Contains("Kernel mma_loop (25 % of kernel time) is compute-bound"));
  CHECK_THAT(all, Catch::Contains("of tensor pipe time"));
  CHECK_THAT(all, Catch::Contains("12 GPU metric samples were lost"));
}

TEST_CASE("gpu_metrics report: DRAM is the bytes moved against the device's peak bandwidth when known") {
  Trace t;
  gpuMetricsTrace(t);
  t.devices[0].memoryBandwidthKBps = 3'352'000'000;  // an H100 SXM: 3.35 TB/s
  const ReportTable table = buildReport(t, "gpu_metrics", {});
  const size_t copy = rowOf(table, "stream_copy");
  // 3 TB/s of 3.35 over 499 full samples, the two halves at (3 TB/s + 6 GB/s) / 2.
  const double full = 100.0 * 3e12 / 3.352e12, half = 100.0 * (3e12 + 6e9) / 2 / 3.352e12;
  CHECK(reportCell(table, copy, "dram_pct").number() == Approx((499 * full + half) / 500).epsilon(1e-3));
  CHECK(reportCell(table, copy, "verdict").s == "memory-bound");
  CHECK(reportCell(table, rowOf(table, "fma_loop"), "dram_pct").number() < 1);
}
