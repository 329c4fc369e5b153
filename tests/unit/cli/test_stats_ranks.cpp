// `cuptitrace stats` and `cuptitrace merge` over several ranks' traces: a
// pattern names them, the launcher's trace is skipped and said, the reports
// are across ranks and name the straggler.
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/merge_command.h"
#include "cli/stats_command.h"
#include "exporters/native/native.h"
#include "rank_fixture.h"
#include "temp_dir.h"

namespace cuptitrace {
namespace {

constexpr uint64_t us = 1000;

// Three ranks (rank 2 late in every step) and the launcher, as t.<rank>.native.
class SavedRanks {
 public:
  SavedRanks() {
    const std::vector<std::vector<uint64_t>> compute = {{200 * us, 200 * us, 200 * us},
                                                        {300 * us, 300 * us, 300 * us},
                                                        {900 * us, 900 * us, 900 * us}};
    for (int64_t r = 2; r >= 0; --r) {
      Trace t;
      testing::fillRank(t, r, 3, compute, 1000 + static_cast<uint32_t>(r));
      save(t, "t." + std::to_string(r) + ".native");
    }
    Trace launcher;
    testing::fillLauncher(launcher, 999);
    save(launcher, "t.pid999.native");
  }
  std::string path(const std::string& name) const { return dir_.path(name); }

 private:
  void save(const Trace& t, const std::string& name) {
    std::ofstream out(path(name), std::ios::binary);
    writeNative(t, out);
  }
  testing::TempDir dir_;
};

}  // namespace

TEST_CASE("stats over ranks: a pattern, the launcher skipped, the straggler named",
          "[cli][ranks]") {
  SavedRanks saved;
  std::string out, err;
  const int rc =
      cli::runStats({saved.path("t.*.native"), "--format", "json", "--jobs", "2"}, out, err);
  INFO(err);
  REQUIRE(rc == 0);
  CHECK(err.find("skipped torchrun") != std::string::npos);
  const nlohmann::json doc = nlohmann::json::parse(out);
  const auto& reports = doc["reports"];
  REQUIRE(reports.size() == 5);
  CHECK(reports[0]["name"] == "ranks");
  const auto& rows = reports[0]["rows"];
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["rank"] == "rank 0");
  CHECK(rows[2]["rank"] == "rank 2");
  CHECK(rows[2]["comm_ns"] == 3 * 100 * us);  // the last to arrive waits for nobody
  CHECK(rows[0]["comm_ns"] == 3 * 800 * us);
  CHECK(reports[3]["name"] == "rank_findings");
  CHECK(reports[3]["rows"][0]["finding"] ==
        "rank 2 is the straggler of AllReduce: the other ranks wait for it");
  CHECK(reports[4]["name"] == "rank_kernels");

  // Text tables, one report.
  out.clear();
  err.clear();
  REQUIRE(cli::runStats(
              {saved.path("t.0.native"), saved.path("t.2.native"), "--report", "collective_spread"},
              out, err) == 0);
  CHECK(out.find("AllReduce") != std::string::npos);
  CHECK(out.find("rank 2") != std::string::npos);
  // A single-trace report is refused across ranks.
  out.clear();
  err.clear();
  CHECK(cli::runStats({saved.path("t.0.native"), saved.path("t.2.native"), "--report", "kernels"},
                      out, err) == 2);
  CHECK(err.find("not a report across ranks") != std::string::npos);
  // A pattern that matches nothing.
  err.clear();
  CHECK(cli::runStats({saved.path("nothing.*.native")}, out, err) == 1);
  CHECK(err.find("matches no file") != std::string::npos);
}

TEST_CASE("merge of ranks: rank order whatever the file order, the launcher left out",
          "[cli][ranks]") {
  SavedRanks saved;
  std::string out, err;
  const int rc = cli::runMerge({saved.path("t.*.native"), "-o", saved.path("all.json")}, out, err);
  INFO(err);
  REQUIRE(rc == 0);
  CHECK(err.find("left out") != std::string::npos);
  CHECK(err.find("t.pid999.native") != std::string::npos);
  std::ifstream in(saved.path("all.json"));
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto& inputs = doc["metadata"]["inputs"];
  REQUIRE(inputs.size() == 3);
  for (size_t i = 0; i < 3; ++i) CHECK(inputs[i]["rank"] == i);
}

}  // namespace cuptitrace
