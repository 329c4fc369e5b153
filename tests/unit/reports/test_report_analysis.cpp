// Summary reports that analyse a run: utilization, breakdown per step,
// coverage and findings, on small synthetic traces.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "report_fixture.h"
#include "reports/report_table.h"
#include "reports/reports.h"

namespace cuptitrace {

using namespace testing::reports;

// ---- utilization and breakdown ------------------------------------------------------

TEST_CASE("report utilization: overlapping kernels on several streams, per device", "[report]") {
  Trace t;
  t.devices.push_back({0, "GPU zero", 9, 0, 1, 1, 1, ""});
  kernel(t, "a", 0, 100, 1);
  kernel(t, "b", 50, 150, 2);  // overlaps a on another stream
  kernel(t, "c", 60, 90, 3);   // inside both
  kernel(t, "d", 300, 400, 1);
  memcpy(t, CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, 10, 150, 200, true, 4);
  kernel(t, "e", 1000, 1100, 1, 1);  // device 1
  kernel(t, "f", 1300, 1400, 2, 1);
  kernel(t, "g", 1350, 1500, 1, 1);
  const ReportTable table = report(t, "utilization");
  REQUIRE(table.rows.size() == 2);
  const auto& d0 = table.rows[0];
  CHECK(intAt(table, d0, "device") == 0);
  CHECK(intAt(table, d0, "span") == 400);
  CHECK(intAt(table, d0, "kernel_busy") == 250);  // [0,150) + [300,400)
  CHECK(numAt(table, d0, "kernel_pct") == Approx(62.5));
  CHECK(intAt(table, d0, "gpu_busy") == 300);  // the copy fills [150,200)
  CHECK(numAt(table, d0, "gpu_pct") == Approx(75.0));
  CHECK(intAt(table, d0, "idle_gaps") == 1);
  CHECK(intAt(table, d0, "idle") == 100);
  CHECK(intAt(table, d0, "largest_gap") == 100);
  CHECK(d0[col(table, "name")].s == "GPU zero");
  const auto& d1 = table.rows[1];
  CHECK(intAt(table, d1, "device") == 1);
  CHECK(intAt(table, d1, "span") == 500);
  CHECK(intAt(table, d1, "kernel_busy") == 300);  // [1000,1100) + [1300,1500)
  CHECK(intAt(table, d1, "idle") == 200);
}

TEST_CASE("report breakdown: per step when a range marks steps, else the whole run", "[report]") {
  Trace t;
  range(t, "ProfilerStep#1", 0, 1000);
  range(t, "ProfilerStep#2", 1000, 2000);
  range(t, "other", 0, 2000);
  kernel(t, "k", 100, 400);  // step 1: Kernel 300
  memcpy(t, CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, 1, 300,
         500);                                  // Memcpy 100 (300-400 is Kernel)
  memset(t, 1, 500, 550);                       // Memset 50
  api(t, "cudaLaunchKernel", 0, 150);           // Runtime API 100
  api(t, "cudaDeviceSynchronize", 550, 700);    // Sync 150
  kernel(t, "k", 1000, 1500);                   // step 2: Kernel 500
  api(t, "cudaStreamSynchronize", 1400, 1600);  // Sync 100
  api(t, "cudaMalloc", 1550, 1800);             // Runtime API 200
  ReportOptions options;
  options.stepRange = "ProfilerStep";
  const ReportTable table = report(t, "breakdown", options);
  REQUIRE(table.rows.size() == 3);
  const auto& s1 = table.rows[0];
  CHECK(intAt(table, s1, "step") == 0);
  CHECK(s1[col(table, "range")].s == "ProfilerStep#1");
  CHECK(intAt(table, s1, "total") == 1000);
  CHECK(intAt(table, s1, "kernel") == 300);
  CHECK(intAt(table, s1, "memcpy") == 100);
  CHECK(intAt(table, s1, "memset") == 50);
  CHECK(intAt(table, s1, "runtime_api") == 100);
  CHECK(intAt(table, s1, "sync") == 150);
  CHECK(intAt(table, s1, "other") == 300);
  CHECK(numAt(table, s1, "kernel_pct") == Approx(30.0));
  const auto& s2 = table.rows[1];
  CHECK(intAt(table, s2, "kernel") == 500);
  CHECK(intAt(table, s2, "sync") == 100);
  CHECK(intAt(table, s2, "runtime_api") == 200);
  CHECK(intAt(table, s2, "other") == 200);
  const auto& avg = table.rows[2];
  CHECK(avg[col(table, "range")].s == "Average");
  CHECK(avg[col(table, "step")].kind == Cell::Kind::Empty);
  CHECK(numAt(table, avg, "kernel") == Approx(400.0));
  CHECK(numAt(table, avg, "kernel_pct") == Approx(40.0));
  CHECK(numAt(table, avg, "other_pct") == Approx(25.0));

  // No step range: torch.profiler's steps are found by themselves, and the note says how.
  const ReportTable found = report(t, "breakdown");
  REQUIRE(found.rows.size() == 3);
  CHECK(intAt(found, found.rows[1], "kernel") == 500);
  CHECK(anyNoteContains(found, "Steps: torch.profiler's ProfilerStep#N ranges"));
  // A step range that names nothing says so, and the steps found otherwise are used.
  options.stepRange = "NoSuchStep";
  const ReportTable missing = report(t, "breakdown", options);
  REQUIRE(missing.rows.size() == 3);
  CHECK(anyNoteContains(missing, "no NVTX range is named 'NoSuchStep'"));

  // Without any steps: one row over the whole run (first start to last end of any record).
  Trace plain;
  range(plain, "other", 0, 2000);
  kernel(plain, "k", 100, 400);
  kernel(plain, "k", 1000, 1500);
  const ReportTable whole = report(plain, "breakdown");
  REQUIRE(whole.rows.size() == 1);
  CHECK(whole.rows[0][col(whole, "range")].s == "whole run");
  CHECK(intAt(whole, whole.rows[0], "total") == 2000);
  CHECK(intAt(whole, whole.rows[0], "kernel") == 800);
  CHECK(anyNoteContains(whole, "no steps found"));
}

TEST_CASE("report breakdown: overlapping steps each get their own share", "[report]") {
  Trace t;
  range(t, "iter A", 0, 600, NvtxType::StartEnd);
  range(t, "iter B", 400, 1000, NvtxType::StartEnd, "", kNvtxOpen);
  kernel(t, "k", 100, 500);
  api(t, "cudaLaunchKernel", 50, 150);
  api(t, "cudaMemcpy", 550, 700);
  ReportOptions options;
  options.stepRange = "iter";
  const ReportTable table = report(t, "breakdown", options);
  REQUIRE(table.rows.size() == 3);
  CHECK(intAt(table, table.rows[0], "kernel") == 400);
  CHECK(intAt(table, table.rows[0], "runtime_api") == 100);  // [50,100) and [550,600)
  CHECK(intAt(table, table.rows[0], "other") == 100);
  CHECK(intAt(table, table.rows[1], "kernel") == 100);
  CHECK(intAt(table, table.rows[1], "runtime_api") == 150);
  CHECK(intAt(table, table.rows[1], "other") == 350);
  CHECK(anyNoteContains(table, "1 step was still open at exit"));
}

// ---- coverage -----------------------------------------------------------------------

TEST_CASE("report coverage: the fewest names reaching the threshold, exact at the boundary",
          "[report]") {
  Trace t;
  kernel(t, "a", 0, 50);
  kernel(t, "b", 100, 140);
  kernel(t, "c", 200, 210);
  api(t, "cudaStreamCreateWithFlags", 0, 4232);
  api(t, "cudaMemGetInfo", 0, 3358);
  api(t, "cudaFree", 0, 2137);
  api(t, "cudaLaunchKernel", 0, 273);
  ReportOptions options;  // 90%
  ReportTable table = report(t, "coverage", options);
  auto kindRows = [&](const ReportTable& tab, const char* kind) {
    std::vector<std::string> out;
    for (const auto& r : tab.rows)
      if (r[col(tab, "kind")].s == kind) out.push_back(r[col(tab, "name")].s);
    return out;
  };
  // 50 + 40 is exactly 90% of 100: two kernels, not three.
  CHECK(kindRows(table, "GPU") == std::vector<std::string>{"a", "b"});
  CHECK(numAt(table, table.rows[1], "cumulative_pct") == Approx(90.0));
  // As in the course report: three calls cover 97.27% of the API time.
  CHECK(kindRows(table, "API") ==
        std::vector<std::string>{"cudaStreamCreateWithFlags", "cudaMemGetInfo", "cudaFree"});
  CHECK(anyNoteContains(table, "GPU: 2 of 3"));

  options.coverageBasisPoints = 9001;  // 90.01%: one more
  table = report(t, "coverage", options);
  CHECK(kindRows(table, "GPU") == std::vector<std::string>{"a", "b", "c"});
  options.coverageBasisPoints = 5000;  // exactly the first one
  table = report(t, "coverage", options);
  CHECK(kindRows(table, "GPU") == std::vector<std::string>{"a"});
  CHECK(table.title == "What covers 50% of the time");

  // Ties at the cut: the first by name is taken.
  Trace tie;
  kernel(tie, "y", 0, 45);
  kernel(tie, "x", 0, 45);
  kernel(tie, "w", 0, 10);
  options.coverageBasisPoints = 4500;
  CHECK(kindRows(report(tie, "coverage", options), "GPU") == std::vector<std::string>{"x"});
}

// ---- findings ------------------------------------------------------------------------

TEST_CASE("report findings: each backed by numbers and records", "[report]") {
  Trace t;
  // 12 synchronous pageable DtoH copies of 4 KiB: in a loop, and from pageable memory.
  for (int i = 0; i < 12; ++i)
    memcpy(t, CopyKind::DtoH, MemoryKind::Device, MemoryKind::Pageable, 4096,
           1'000'000 + i * 10'000, 1'000'000 + i * 10'000 + 2'000, false, 7);
  // 200 tiny kernels with long gaps between them on stream 7; stream 9 nearly idle.
  for (int i = 0; i < 200; ++i)
    kernel(t, "_Z4tinyv", 2'000'000 + i * 10'000, 2'000'000 + i * 10'000 + 2'000, 7);
  kernel(t, "_Z4oncev", 5'000'000, 5'020'000, 9);
  // One call dominates the API time.
  api(t, "cudaStreamCreateWithFlags", 0, 900'000);
  for (int i = 0; i < 200; ++i)
    api(t, "cudaLaunchKernel", 2'000'000 + i * 10'000 - 500, 2'000'000 + i * 10'000);
  const ReportTable table = report(t, "findings");
  CHECK(table.style == TableStyle::List);
  std::vector<std::string> titles = names(table, "finding");
  auto find = [&](const std::string& title) -> const std::vector<Cell>& {
    for (const auto& r : table.rows)
      if (r[col(table, "finding")].s.rfind(title, 0) == 0) return r;
    FAIL("no finding " << title);
    return table.rows.front();
  };
  const auto& pageable = find("Copies from pageable memory");
  CHECK_THAT(pageable[col(table, "details")].s, Catch::StartsWith("12 of 12 copies (48.000 KiB"));
  CHECK_THAT(pageable[col(table, "records")].s, Catch::Contains("correlation "));
  const auto& loop = find("Synchronous copies in a loop");
  CHECK_THAT(loop[col(table, "details")].s,
             Catch::StartsWith("12 synchronous DtoH copies of 4.000 KiB"));
  const auto& idle = find("GPU 0 idle");
  CHECK_THAT(idle[col(table, "details")].s, Catch::Contains("in 200 gaps"));
  CHECK_THAT(idle[col(table, "records")].s,
             Catch::Contains("before: tiny()") && Catch::Contains("after: once()"));
  const auto& tiny = find("Many tiny kernels");
  CHECK_THAT(tiny[col(table, "details")].s, Catch::StartsWith("200 of 201 kernels (99.5%)"));
  CHECK_THAT(tiny[col(table, "details")].s,
             Catch::Contains("cudaLaunchKernel takes 500ns on average"));
  CHECK_THAT(tiny[col(table, "records")].s, Catch::StartsWith("tiny() (200 tiny, correlation "));
  const auto& stream = find("One stream busy");
  CHECK_THAT(stream[col(table, "details")].s, Catch::Contains("stream 7 carries"));
  const auto& dominant = find("API time dominated by cudaStreamCreateWithFlags");
  CHECK_THAT(dominant[col(table, "details")].s,
             Catch::Contains("90.0% of the time spent in API calls"));
  CHECK(intAt(table, table.rows[0], "number") == 1);

  // A quiet trace has no findings.
  Trace quiet;
  kernel(quiet, "k", 0, 1'000'000);
  CHECK(report(quiet, "findings").rows.empty());
}

}  // namespace cuptitrace
