// Summary reports rendered: names cut and escaped, time units, text, CSV and
// JSON tables, the catalog, the exit summary and the reports file.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report_fixture.h"
#include "reports/report_table.h"
#include "reports/reports.h"
#include "temp_dir.h"
#include "trace_fixture.h"

namespace cuptitrace {

using namespace testing::reports;

// ---- rendering ----------------------------------------------------------------------

TEST_CASE("report rendering: names cut in the middle, escaped, time units", "[report]") {
  CHECK(displayName("abcdefghijklmnopqrstuvwxyz", 11) == "abcd...wxyz");
  CHECK(displayName("abcdefghij", 10) == "abcdefghij");
  CHECK(displayName("abcdefghij", 0) == "abcdefghij");
  CHECK(displayName("line\nbreak", 0) == "line\\nbreak");
  // UTF-8 is cut between characters, never inside one.
  CHECK(displayName("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 7) ==
        "\xC3\xA9\xC3\xA9...\xC3\xA9\xC3\xA9");
  CHECK(formatDuration(639, true, TimeUnit::Auto) == "639ns");
  CHECK(formatDuration(1268, true, TimeUnit::Auto) == "1.2680us");
  CHECK(formatDuration(36'540'000, true, TimeUnit::Auto) == "36.540ms");
  CHECK(formatDuration(173'430'000, true, TimeUnit::Auto) == "173.43ms");
  CHECK(formatDuration(50'995'600'000.0, false, TimeUnit::Auto) == "50.996s");
  CHECK(formatDuration(3'498'803'745, true, TimeUnit::Ns) == "3,498,803,745");
  CHECK(formatDuration(2.5, false, TimeUnit::Ns) == "2.5");
  CHECK(formatDuration(1'234'567, true, TimeUnit::Us) == "1,234.567");
  CHECK(formatDuration(1'500'000, true, TimeUnit::Ms) == "1.500");
  CHECK(formatBytes(512) == "512 B");
  CHECK(formatBytes(1 << 20) == "1.000 MiB");
}

TEST_CASE("report rendering: text table aligned, --top, notes", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  RenderOptions options;
  options.top = 2;
  options.nameWidth = 30;
  std::string text;
  renderText(report(t, "api_calls"), options, text);
  CHECK_THAT(text, Catch::StartsWith("API calls (top 2 of 4):\n\n"));
  CHECK_THAT(
      text,
      Catch::Contains(
          " Time(%)     Total  Calls       Avg       Med       Min       Max    StdDev  Name\n"));
  CHECK_THAT(text, Catch::Contains("   62.50  20.000us      1  20.000us  20.000us  20.000us  "
                                   "20.000us       0ns  cudaMemcpyAsync\n"));
  CHECK_THAT(text, Catch::Contains("   31.25  10.000us      3  3.3333us  3.0000us  3.0000us  "
                                   "4.0000us  577.35ns  cudaLaunchKernel\n"));
  CHECK_THAT(text, !Catch::Contains("cuLaunchKernel"));
  // A long name is cut to the width, in the middle.
  text.clear();
  options.top = 3;
  renderText(report(t, "kernels"), options, text);
  CHECK_THAT(text, Catch::Contains("  void gemm<cutl..., float>(int)\n"));
  // Fixed units label the header.
  options.timeUnit = TimeUnit::Us;
  text.clear();
  renderText(report(t, "api_calls"), options, text);
  CHECK_THAT(text, Catch::Contains("Total (us)"));
  CHECK_THAT(text, Catch::Contains("20.000"));
}

TEST_CASE("report rendering: CSV and JSON hold every row and parse back", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  const auto tables = buildAllReports(t, {});
  REQUIRE(tables.size() == reportCatalog().size());
  RenderOptions options;
  // JSON: one document, every report, names whole and escaped.
  const auto doc = nlohmann::json::parse(renderTables(tables, ReportFormat::Json, options));
  REQUIRE(doc["reports"].size() == tables.size());
  const auto& gpu = doc["reports"][0];
  CHECK(gpu["name"] == "gpu_activities");
  CHECK(gpu["rows_total"] == 6);
  CHECK(gpu["rows"][0]["name"] == testing::kHostileKernelName);
  CHECK(gpu["rows"][0]["total_ns"] == 12000);
  CHECK(gpu["rows"][0]["calls"] == 1);
  CHECK(gpu["columns"][1]["key"] == "total_ns");
  CHECK(gpu["columns"][1]["unit"] == "ns");
  CHECK(gpu["rows"][3]["name"] == testing::longTemplateName());  // whole, not cut
  const auto& nvtx = doc["reports"][5];
  CHECK(nvtx["name"] == "nvtx");
  bool utf8 = false;
  for (const auto& r : nvtx["rows"])
    utf8 = utf8 || r["range"] == "my domain:" + testing::kUtf8Message;
  CHECK(utf8);
  // Other units are decimals with the unit in the key.
  options.timeUnit = TimeUnit::Us;
  const auto us = nlohmann::json::parse(renderTables({tables[1]}, ReportFormat::Json, options));
  CHECK(us["reports"][0]["rows"][0]["total_us"] == 20.0);
  CHECK(us["reports"][0]["rows"][1]["avg_us"].get<double>() == Approx(10.0 / 3));

  // CSV: header of keys, names quoted where needed.
  options.timeUnit = TimeUnit::Auto;
  std::string csv;
  renderCsv(tables[0], options, csv);
  CHECK_THAT(csv, Catch::StartsWith(
                      "time_pct,total_ns,calls,avg_ns,med_ns,min_ns,max_ns,stddev_ns,name\n"));
  CHECK_THAT(csv, Catch::Contains(",12000,1,12000,12000,12000,12000,0,\"_"
                                  "Z6kernelIN4math6VectorIfLi3EEEEvPKT_\"\"quoted\"\""));
  CHECK_THAT(csv, Catch::Contains(",10000,1,10000,10000,10000,10000,0,[CUDA memcpy HtoD]\n"));
  CHECK_THAT(
      csv, Catch::Contains(",6000,1,6000,6000,6000,6000,0,\"add(float*, float*, float*, int)\"\n"));
}

TEST_CASE("report: every catalog report builds on an empty trace", "[report]") {
  Trace t;
  for (const auto& table : buildAllReports(t, {})) {
    INFO(table.name);
    CHECK(table.rows.empty());
    std::string text;
    renderText(table, {}, text);
    CHECK_THAT(text, Catch::Contains("(none)"));
  }
  std::string error;
  CHECK(parseReportNames("all", error)->size() == reportCatalog().size());
  CHECK(*parseReportNames("nvtx, api_calls", error) ==
        std::vector<std::string>{"nvtx", "api_calls"});
  CHECK_FALSE(parseReportNames("nvtx,bogus", error));
  CHECK_THAT(error, Catch::Contains("bogus"));
  CHECK_FALSE(parseReportNames(",", error));
}

TEST_CASE("report: the exit summary shows the top rows and where the rest is", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  const std::string summary = exitSummary(buildAllReports(t, {}), 2, "/tmp/run.reports.txt");
  CHECK_THAT(summary, Catch::Contains("cuptitrace: GPU activities (top 2 of 6):"));
  CHECK_THAT(summary, Catch::Contains("cuptitrace: API calls (top 2 of 4):"));
  CHECK_THAT(summary, Catch::Contains("in /tmp/run.reports.txt"));
  CHECK_THAT(summary, !Catch::Contains("NVTX ranges"));
}

TEST_CASE("report: the reports file is written whole, or not at all", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  const auto tables = buildAllReports(t, {});
  const testing::TempDir dir;
  const std::string path = dir.path("run.reports.txt");
  std::string error;
  REQUIRE(writeReportsFile(tables, path, error));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string text(1 << 20, '\0');
  text.resize(std::fread(&text[0], 1, text.size(), f));
  std::fclose(f);
  CHECK_THAT(text, Catch::Contains("GPU activities:") && Catch::Contains("Findings:") &&
                       Catch::Contains("NVTX ranges:"));
  CHECK_THAT(text, Catch::Contains("cutlass::layout::RowMajor<100>"));  // whole names in the file
  // An existing file is replaced only when asked.
  CHECK_FALSE(writeReportsFile(tables, path, error));
  CHECK_THAT(error, Catch::Contains(path));
  CHECK(writeReportsFile(tables, path, error, true));
  CHECK_FALSE(writeReportsFile(tables, "/nonexistent-dir/x.reports.txt", error));
  CHECK_THAT(error, Catch::Contains("/nonexistent-dir/x.reports.txt"));
}

}  // namespace cuptitrace
