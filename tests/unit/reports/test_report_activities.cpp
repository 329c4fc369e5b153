// Summary reports of GPU activities, API calls, kernels, memory copies and NVTX
// ranges: hand-computed expectations on small synthetic traces.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "report_fixture.h"
#include "reports/report_table.h"
#include "reports/reports.h"
#include "trace_fixture.h"

namespace cuptitrace {

using namespace testing::reports;

// ---- GPU activities and API calls -------------------------------------------------

TEST_CASE("report gpu_activities: kernels and memory operations of the sample trace", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  const ReportTable table = report(t, "gpu_activities");
  REQUIRE(table.rows.size() == 6);
  // Sorted by total: 12 us kernel, 10 us HtoD, two 6 us kernels by name, 4 us DtoH, 1 us memset.
  const auto n = names(table);
  CHECK(n[0] == testing::kHostileKernelName);
  CHECK(n[1] == "[CUDA memcpy HtoD]");
  CHECK(n[2] ==
        "add(float*, float*, float*, int)");  // demangled, and before "void gemm<..." on the tie
  CHECK(n[3].rfind("void gemm<", 0) == 0);
  CHECK(n[4] == "[CUDA memcpy DtoH]");
  CHECK(n[5] == "[CUDA memset]");
  const auto& htod = row(table, "[CUDA memcpy HtoD]");
  CHECK(intAt(table, htod, "total") == 10000);
  CHECK(intAt(table, htod, "calls") == 1);
  CHECK(numAt(table, htod, "time_pct") == Approx(100.0 * 10 / 39));
  double pct = 0;
  for (const auto& r : table.rows) pct += r[col(table, "time_pct")].number();
  CHECK(pct == Approx(100.0));
  CHECK(table.notes.empty());
}

TEST_CASE("report api_calls: per name statistics of the sample trace", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  const ReportTable table = report(t, "api_calls");
  // cuLaunchKernel (correlation 11) ran inside a cudaLaunchKernel: counted there.
  CHECK(names(table) == std::vector<std::string>{"cudaMemcpyAsync", "cudaLaunchKernel", "cudaMemcpy",
                                                 "cudaMemsetAsync"});
  REQUIRE(table.notes.size() == 1);
  CHECK(table.notes[0].rfind("1 driver calls made inside runtime calls are left out", 0) == 0);
  const auto& launch = row(table, "cudaLaunchKernel");
  CHECK(intAt(table, launch, "calls") == 3);
  CHECK(intAt(table, launch, "total") == 10000);
  CHECK(numAt(table, launch, "avg") == Approx(10000.0 / 3));
  CHECK(numAt(table, launch, "med") == 3000.0);
  CHECK(intAt(table, launch, "min") == 3000);
  CHECK(intAt(table, launch, "max") == 4000);
  CHECK(numAt(table, launch, "stddev") == Approx(std::sqrt((2 * 1e6 / 9 + 4e6 / 9) / 2)));
  CHECK(numAt(table, launch, "time_pct") == Approx(100.0 * 10 / 32));
}

TEST_CASE("report: ties sort by name whatever the record order, a single call has StdDev 0",
          "[report]") {
  for (const bool reversed : {false, true}) {
    Trace t;
    const std::vector<std::string> order = reversed
                                               ? std::vector<std::string>{"zeta", "alpha", "mid"}
                                               : std::vector<std::string>{"mid", "alpha", "zeta"};
    for (const auto& name : order) kernel(t, name, 1000, 1500);
    kernel(t, "big", 0, 5000);
    const ReportTable table = report(t, "gpu_activities");
    CHECK(names(table) == std::vector<std::string>{"big", "alpha", "mid", "zeta"});
    const auto& one = row(table, "alpha");
    CHECK(intAt(table, one, "calls") == 1);
    CHECK(numAt(table, one, "avg") == 500.0);
    CHECK(numAt(table, one, "med") == 500.0);
    CHECK(intAt(table, one, "min") == 500);
    CHECK(intAt(table, one, "max") == 500);
    CHECK(numAt(table, one, "stddev") == 0.0);
  }
}

TEST_CASE("report: kernels without an end are counted and named, not timed", "[report]") {
  Trace t;
  kernel(t, "k", 100, 300);
  kernel(t, "k", 400, 0);    // end never collected
  kernel(t, "k", 900, 800);  // end before start
  kernel(t, "z", 0, 0);      // only untimed records: a row with no times
  const uint32_t lastCorrelation = gCorrelation;
  const ReportTable table = report(t, "gpu_activities");
  const auto& k = row(table, "k");
  CHECK(intAt(table, k, "calls") == 3);
  CHECK(intAt(table, k, "total") == 200);
  CHECK(numAt(table, k, "avg") == 200.0);
  CHECK(numAt(table, k, "stddev") == 0.0);
  const auto& z = row(table, "z");
  CHECK(intAt(table, z, "calls") == 1);
  CHECK(z[col(table, "avg")].kind == Cell::Kind::Empty);
  REQUIRE(table.notes.size() == 1);
  CHECK_THAT(table.notes[0], Catch::Contains("3 kernel records have no valid end"));
  CHECK_THAT(table.notes[0],
             Catch::Contains("correlation " + std::to_string(lastCorrelation)) ||
                 Catch::Contains("correlation " + std::to_string(lastCorrelation - 1)));
  // Rendered, the note is under the table.
  std::string text;
  renderText(table, {}, text);
  CHECK_THAT(text, Catch::Contains("no valid end"));
  CHECK_THAT(text, Catch::Contains(" -  "));  // the empty cells of "z"
}

TEST_CASE("report: zero-length records are timed with 0 and change no busy time", "[report]") {
  Trace t;
  kernel(t, "zero", 500, 500);
  kernel(t, "work", 0, 1000);
  api(t, "cudaGetLastError", 10, 10);
  const ReportTable gpu = report(t, "gpu_activities");
  const auto& zero = row(gpu, "zero");
  CHECK(intAt(gpu, zero, "calls") == 1);
  CHECK(intAt(gpu, zero, "total") == 0);
  CHECK(intAt(gpu, zero, "min") == 0);
  CHECK(numAt(gpu, zero, "time_pct") == 0.0);
  CHECK(gpu.notes.empty());
  const ReportTable apiTable = report(t, "api_calls");
  CHECK(intAt(apiTable, row(apiTable, "cudaGetLastError"), "calls") == 1);
  const ReportTable util = report(t, "utilization");
  REQUIRE(util.rows.size() == 1);
  CHECK(intAt(util, util.rows[0], "kernel_busy") == 1000);
  CHECK(intAt(util, util.rows[0], "idle_gaps") == 0);
}

// ---- kernels and memory --------------------------------------------------------------

TEST_CASE("report kernels: per name, and per launch configuration", "[report]") {
  Trace t;
  kernel(t, "_Z4gemmv", 0, 100, 7, 0, 64, 128);
  kernel(t, "_Z4gemmv", 100, 400, 7, 0, 64, 128);
  kernel(t, "_Z4gemmv", 400, 450, 7, 0, 32, 256);
  const ReportTable plain = report(t, "kernels");
  REQUIRE(plain.rows.size() == 1);
  CHECK(plain.rows[0][col(plain, "name")].s == "gemm()");
  CHECK(intAt(plain, plain.rows[0], "instances") == 3);
  CHECK(numAt(plain, plain.rows[0], "med") == 100.0);

  ReportOptions options;
  options.kernelsByLaunchConfig = true;
  const ReportTable split = report(t, "kernels", options);
  REQUIRE(split.rows.size() == 2);
  CHECK(split.rows[0][col(split, "grid")].s == "64x1x1");
  CHECK(split.rows[0][col(split, "block")].s == "128x1x1");
  CHECK(intAt(split, split.rows[0], "instances") == 2);
  CHECK(intAt(split, split.rows[0], "total") == 400);
  CHECK(split.rows[1][col(split, "grid")].s == "32x1x1");
  CHECK(intAt(split, split.rows[1], "total") == 50);
}

TEST_CASE("report memory: pageable and pinned copies apart, sizes and throughput", "[report]") {
  Trace t;
  memcpy(t, CopyKind::HtoD, MemoryKind::Pageable, MemoryKind::Device, 1000, 0, 100);
  memcpy(t, CopyKind::HtoD, MemoryKind::Pageable, MemoryKind::Device, 3000, 200, 300);
  memcpy(t, CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, 8000, 400, 500);
  memcpy(t, CopyKind::DtoH, MemoryKind::Device, MemoryKind::Pinned, 500, 600, 0);  // no end
  memset(t, 4096, 700, 800);

  const ReportTable gpu = report(t, "gpu_activities");
  CHECK(intAt(gpu, row(gpu, "[CUDA memcpy HtoD]"), "calls") == 3);
  CHECK(intAt(gpu, row(gpu, "[CUDA memcpy DtoH]"), "calls") == 1);
  CHECK(intAt(gpu, row(gpu, "[CUDA memset]"), "calls") == 1);
  CHECK(anyNoteContains(gpu, "1 memcpy record has no valid end"));

  const ReportTable time = report(t, "memory_time");
  CHECK(intAt(time, row(time, "[CUDA memcpy HtoD] Pageable -> Device"), "count") == 2);
  CHECK(intAt(time, row(time, "[CUDA memcpy HtoD] Pageable -> Device"), "total") == 200);
  CHECK(intAt(time, row(time, "[CUDA memcpy HtoD] Pinned -> Device"), "count") == 1);
  CHECK(intAt(time, row(time, "[CUDA memset] Device"), "total") == 100);

  const ReportTable size = report(t, "memory_size");
  CHECK(names(size).front() == "[CUDA memcpy HtoD] Pinned -> Device");  // most bytes first
  const auto& pageable = row(size, "[CUDA memcpy HtoD] Pageable -> Device");
  CHECK(intAt(size, pageable, "total_bytes") == 4000);
  CHECK(intAt(size, pageable, "count") == 2);
  CHECK(numAt(size, pageable, "avg_bytes") == 2000.0);
  CHECK(numAt(size, pageable, "med_bytes") == 2000.0);
  CHECK(intAt(size, pageable, "min_bytes") == 1000);
  CHECK(intAt(size, pageable, "max_bytes") == 3000);
  CHECK(numAt(size, pageable, "throughput_gbps") == Approx(20.0));  // 4000 B / 200 ns
  const auto& dtoh = row(size, "[CUDA memcpy DtoH] Device -> Pinned");
  CHECK(intAt(size, dtoh, "total_bytes") == 500);  // a size without a time still counts
  CHECK(dtoh[col(size, "throughput_gbps")].kind == Cell::Kind::Empty);
}

// ---- NVTX -----------------------------------------------------------------------

TEST_CASE("report nvtx: nested and interleaved ranges, domains and styles apart", "[report]") {
  Trace t;
  range(t, "outer", 0, 1000, NvtxType::PushPop, "", 0, 1, 0);
  range(t, "inner", 100, 200, NvtxType::PushPop, "", 0, 1, 1);
  range(t, "inner", 300, 600, NvtxType::PushPop, "", 0, 1, 1);
  range(t, "inner", 400, 500, NvtxType::PushPop, "", 0, 1, 2);  // nested in itself
  // Start/end ranges interleaved across threads.
  range(t, "load", 50, 650, NvtxType::StartEnd, "", 0, 1);
  range(t, "load", 600, 700, NvtxType::StartEnd, "", 0, 2);
  range(t, "inner", 0, 10, NvtxType::PushPop, "io");  // same message, other domain
  range(t, "inner", 0, 20, NvtxType::StartEnd, "");   // same message, other style
  range(t, "mark", 5, 5, NvtxType::Mark, "");
  const ReportTable table = report(t, "nvtx");
  REQUIRE(table.rows.size() == 5);
  CHECK(names(table, "range") ==
        std::vector<std::string>{"outer", "load", "inner", "inner", "io:inner"});
  CHECK(table.rows[2][col(table, "style")].s == "PushPop");
  CHECK(table.rows[3][col(table, "style")].s == "StartEnd");
  const auto& inner = table.rows[2];
  CHECK(intAt(table, inner, "instances") == 3);
  CHECK(intAt(table, inner, "total") == 500);
  CHECK(numAt(table, inner, "med") == 100.0);
  CHECK(intAt(table, inner, "max") == 300);
  const auto& load = row(table, "load");
  CHECK(intAt(table, load, "instances") == 2);
  CHECK(intAt(table, load, "total") == 700);
  CHECK(load[col(table, "style")].s == "StartEnd");
  CHECK(numAt(table, row(table, "outer"), "time_pct") ==
        Approx(100.0 * 1000 / (1000 + 700 + 500 + 20 + 10)));
  CHECK(anyNoteContains(table, "1 mark"));
}

TEST_CASE("report nvtx: ranges still open at exit are counted, timed and named", "[report]") {
  Trace t;
  range(t, "main", 0, 5000, NvtxType::PushPop, "", kNvtxOpen, 9);
  range(t, "step", 100, 200);
  range(t, "bad", 300, 100);  // end before start
  const ReportTable table = report(t, "nvtx");
  const auto& main = row(table, "main");
  CHECK(intAt(table, main, "instances") == 1);
  CHECK(intAt(table, main, "total") == 5000);
  CHECK(anyNoteContains(table, "1 range was still open at exit"));
  CHECK(anyNoteContains(table, "'main' (PushPop, thread 9)"));
  CHECK(intAt(table, row(table, "bad"), "instances") == 1);
  CHECK(anyNoteContains(table, "1 NVTX range record has no valid end"));
}

}  // namespace cuptitrace
