// `cuptitrace stats`: reports of a saved native trace, its options and errors.
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/options.h"
#include "cli/stats_command.h"
#include "exporters/native/native.h"
#include "temp_dir.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

// The sample trace saved as a native file in a fresh directory, removed at scope exit.
class SavedTrace {
 public:
  explicit SavedTrace(const std::vector<std::pair<std::string, std::string>>& config = {}) {
    path_ = dir_.path("run.native");
    Trace trace;
    testing::fillSampleTrace(trace);
    for (const auto& c : config) trace.meta.config.push_back(c);
    std::ofstream out(path_, std::ios::binary);
    writeNative(trace, out);
  }
  const std::string& path() const { return path_; }

 private:
  testing::TempDir dir_;
  std::string path_;
};

struct Result {
  int rc;
  std::string out, err;
};

Result stats(std::vector<std::string> args) {
  Result r;
  r.rc = cli::runStats(args, r.out, r.err);
  return r;
}

}  // namespace

TEST_CASE("stats: GPU activities as JSON, with calls per name", "[report][stats]") {
  SavedTrace trace;
  const Result r = stats({trace.path(), "--report", "gpu_activities", "--format", "json"});
  REQUIRE(r.rc == 0);
  CHECK(r.err.empty());
  const auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["reports"].size() == 1);
  const auto& rows = doc["reports"][0]["rows"];
  REQUIRE(rows.size() == 6);
  uint64_t calls = 0;
  for (const auto& row : rows) calls += row["calls"].get<uint64_t>();
  CHECK(calls == 3 + 2 + 1);  // kernels + memcpy + memset of the sample trace
  CHECK(rows[1]["name"] == "[CUDA memcpy HtoD]");
}

TEST_CASE("stats: every report as a table by default, options shape the output",
          "[report][stats]") {
  SavedTrace trace;
  Result r = stats({trace.path()});
  REQUIRE(r.rc == 0);
  for (const char* title :
       {"GPU activities:", "API calls:", "Kernels:", "Memory operations by time:",
        "Memory operations by size:", "NVTX ranges:", "GPU utilization:", "Time breakdown:",
        "What covers 90% of the time:", "Findings:"})
    CHECK_THAT(r.out, Catch::Contains(title));

  r = stats(
      {trace.path(), "--report=api_calls", "--top=1", "--time-unit", "ns", "--format", "table"});
  REQUIRE(r.rc == 0);
  CHECK_THAT(r.out, Catch::StartsWith("API calls (top 1 of 4):"));  // the nested cuLaunchKernel is in its runtime call
  CHECK_THAT(r.out, Catch::Contains("Total (ns)"));
  CHECK_THAT(r.out, Catch::Contains("20,000"));

  r = stats({trace.path(), "--report", "kernels", "--name-width", "20"});
  CHECK_THAT(r.out, Catch::Contains("void gemm...at>(int)"));

  r = stats({trace.path(), "--report", "kernels", "--by-launch-config", "--format", "csv"});
  REQUIRE(r.rc == 0);
  CHECK_THAT(
      r.out,
      Catch::StartsWith(
          "time_pct,total_ns,instances,avg_ns,med_ns,min_ns,max_ns,stddev_ns,grid,block,name\n"));
  CHECK_THAT(r.out, Catch::Contains(",128x1x1,256x1x1,"));

  r = stats({trace.path(), "--report", "coverage", "--coverage", "50", "--format", "json"});
  REQUIRE(r.rc == 0);
  CHECK(nlohmann::json::parse(r.out)["reports"][0]["title"] == "What covers 50% of the time");
}

TEST_CASE("stats: the step range comes from the trace's configuration unless given",
          "[report][stats]") {
  SavedTrace trace(
      std::vector<std::pair<std::string, std::string>>{{"CUPTITRACE_STEP_RANGE", "out"}});
  Result r = stats({trace.path(), "--report", "breakdown", "--format", "json"});
  REQUIRE(r.rc == 0);
  auto rows = nlohmann::json::parse(r.out)["reports"][0]["rows"];
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["range"] == "outer");
  CHECK(rows[0]["step"] == 0);
  r = stats({trace.path(), "--report", "breakdown", "--format", "json", "--step-range", ""});
  rows = nlohmann::json::parse(r.out)["reports"][0]["rows"];
  CHECK(rows[0]["range"] == "whole run");
}

TEST_CASE("stats: bad usage exits 2 with a message, an unreadable trace 1", "[report][stats]") {
  SavedTrace trace;
  const std::vector<std::vector<std::string>> bad = {
      {},
      {trace.path(), "--report", "bogus"},
      {trace.path(), "--format", "xml"},
      {trace.path(), "--top", "12abc"},
      {trace.path(), "--top", "-1"},
      {trace.path(), "--name-width"},
      {trace.path(), "--time-unit", "minutes"},
      {trace.path(), "--coverage", "0"},
      {trace.path(), "--no-such-option", "1"},
      {trace.path(), "second-trace", "--report", "kernels"},  // across ranks: only their reports
      {trace.path(), "--jobs", "0"},
  };
  for (const auto& args : bad) {
    const Result r = stats(args);
    INFO(r.err);
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::StartsWith("cuptitrace stats: "));
  }
  // A second trace makes the reports across ranks: one that cannot be opened is an error.
  Result second = stats({trace.path(), "/nonexistent/second.native"});
  CHECK(second.rc == 1);
  CHECK_THAT(second.err, Catch::Contains("cannot open /nonexistent/second.native"));
  Result r = stats({"/nonexistent/trace.native"});
  CHECK(r.rc == 1);
  CHECK_THAT(r.err, Catch::Contains("cannot open /nonexistent/trace.native"));
  r = stats({"/etc/hostname"});
  CHECK(r.rc == 1);
  CHECK_THAT(r.err, Catch::Contains("is not a readable cuptitrace trace"));
  r = stats({"--help"});
  CHECK(r.rc == 0);
  CHECK_THAT(r.out, Catch::Contains("findings"));
}

TEST_CASE("stats: the command's help mentions it", "[report][stats]") {
  CHECK_THAT(cli::helpText(), Catch::Contains("cuptitrace stats TRACE.native"));
  CHECK_THAT(cli::helpText(), Catch::Contains("PREFIX.reports.txt"));
}

}  // namespace cuptitrace
