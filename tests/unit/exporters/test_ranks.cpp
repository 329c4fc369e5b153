// Ranks across formats and reports: the rank in the native format (and old
// files without it), process names, merge order, the launcher left out, and
// the cross-rank arithmetic (reports/rank_summary.h, rank_reports.h) on
// hand-made ranks whose numbers are known.
#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/binary_io.h"
#include "exporters/json/chrome_json.h"
#include "exporters/merge.h"
#include "exporters/native/native.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "reports/rank_reports.h"
#include "reports/rank_summary.h"
#include "reports/reports.h"
#include "timeline/track_layout.h"
#include "pftrace_decoder.h"
#include "rank_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;
using nlohmann::json;

namespace {

constexpr uint64_t us = 1000;

// Rank 1 computes longer in 4 of 5 steps, rank 0 in the first.
const std::vector<std::vector<uint64_t>> kCompute = {
    {800 * us, 200 * us, 200 * us, 200 * us, 200 * us},
    {200 * us, 800 * us, 800 * us, 800 * us, 800 * us},
};

std::vector<RankSummary> twoRanks() {
  std::vector<RankSummary> out;
  for (int64_t r = 1; r >= 0; --r) {  // given out of order
    Trace t;
    fillRank(t, r, 2, kCompute, 100 + static_cast<uint32_t>(r));
    out.push_back(summarizeRank(t, "t." + std::to_string(r) + ".native"));
  }
  std::vector<std::string> skipped;
  return orderRanks(std::move(out), skipped);
}

const ReportTable& table(const std::vector<ReportTable>& tables, const std::string& name) {
  for (const auto& t : tables)
    if (t.name == name) return t;
  FAIL("no table " << name);
  return tables.front();
}

}  // namespace

TEST_CASE("ranks: the rank survives the native format, and older files read as no rank",
          "[ranks][native]") {
  Trace t;
  fillRank(t, 3, 4, {{1}, {1}, {1}, {100 * us}}, 77);
  t.meta.localRank = 1;
  t.meta.rankSource = "OMPI_COMM_WORLD_RANK";
  std::ostringstream out;
  writeNative(t, out);
  std::string bytes = out.str();
  {
    std::istringstream in(bytes);
    Trace back;
    std::string error;
    REQUIRE(readNative(in, back, error));
    CHECK(back.meta.rank == 3);
    CHECK(back.meta.localRank == 1);
    CHECK(back.meta.worldSize == 4);
    CHECK(back.meta.rankSource == "OMPI_COMM_WORLD_RANK");
  }
  // The file as written before the rank was saved: the METADATA section
  // without the rank (8 + 8 + 4 + 4 + the source's bytes) and the fields
  // added after it (the devices' occupancy limits: a count, 8 values each).
  const uint64_t rankBytes = 8 + 8 + 4 + 4 + t.meta.rankSource.size() + 4 + 8 * 4 * t.devices.size();
  size_t pos = 12;  // magic and version
  for (;;) {
    uint32_t tag = 0;
    uint64_t length = 0;
    std::memcpy(&tag, bytes.data() + pos, 4);
    std::memcpy(&length, bytes.data() + pos + 4, 8);
    if (tag == 2) {
      const uint64_t shorter = length - rankBytes;
      std::memcpy(&bytes[pos + 4], &shorter, 8);
      bytes.erase(pos + 12 + shorter, rankBytes);
      break;
    }
    pos += 12 + length;
    REQUIRE(pos < bytes.size());
  }
  std::istringstream in(bytes);
  Trace old;
  std::string error;
  REQUIRE(readNative(in, old, error));
  CHECK(old.meta.rank == -1);
  CHECK(old.meta.worldSize == 0);
  CHECK(old.store.count(RecordKind::Kernel) == t.store.count(RecordKind::Kernel));
}

TEST_CASE("ranks: process names and metadata say the rank", "[ranks][json]") {
  Trace t;
  fillRank(t, 1, 2, kCompute, 101);
  CHECK(hostProcessName(t) == "[rank 1] python");
  CHECK(gpuProcessName(t, 1).rfind("[rank 1] GPU 1: NVIDIA H100", 0) == 0);
  std::ostringstream out;
  writeChromeJson(t, out);
  const json doc = json::parse(out.str());
  std::map<int64_t, std::string> names;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name") names[e["pid"]] = e["args"]["name"];
  CHECK(names.at(101) == "[rank 1] python");
  CHECK(names.at(gpuProcessId(101, 1)).rfind("[rank 1] GPU 1", 0) == 0);
  CHECK(doc["metadata"]["rank"] == 1);
  CHECK(doc["metadata"]["world_size"] == 2);
  CHECK(doc["metadata"]["rank_source"] == "RANK");
  // NCCL's kernels carry their collective.
  size_t nccl = 0;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "kernel") continue;
    if (e["name"] == kAllReduceKernel) {
      ++nccl;
      CHECK(e["args"]["nccl_collective"] == "AllReduce");
      CHECK(e["args"]["nccl_op"] == "Sum");
      CHECK(e["args"]["nccl_dtype"] == "f32");
      CHECK(e["args"]["nccl_algo"] == "RING");
      CHECK(e["args"]["nccl_proto"] == "LL");
    } else {
      CHECK_FALSE(e["args"].contains("nccl_collective"));
    }
  }
  CHECK(nccl == 5);
  // Without a rank, names are as before.
  Trace plain;
  fillLauncher(plain, 9);
  CHECK(hostProcessName(plain) == "torchrun");
}

TEST_CASE("ranks: merge puts ranks in rank order and leaves the launcher out", "[ranks][merge]") {
  Trace r0, r1, r2, launcher;
  const std::vector<std::vector<uint64_t>> compute = {{100 * us}, {100 * us}, {100 * us}};
  fillRank(r2, 2, 3, compute, 300);
  fillLauncher(launcher, 50);
  fillRank(r0, 0, 3, compute, 500);
  fillRank(r1, 1, 3, compute, 200);
  std::vector<MergeSource> sources = {
      {&r2, "t.2.native"}, {&launcher, "t.pid50.native"}, {&r0, "t.0.native"}, {&r1, "t.1.native"}};
  std::vector<std::string> skipped;
  sources = orderMergeSources(std::move(sources), skipped);
  REQUIRE(sources.size() == 3);
  CHECK(sources[0].file == "t.0.native");
  CHECK(sources[1].file == "t.1.native");
  CHECK(sources[2].file == "t.2.native");
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0].find("t.pid50.native") != std::string::npos);
  CHECK(skipped[0].find("no GPU work") != std::string::npos);

  std::ostringstream out;
  writeChromeJson(planMerge(sources), out);
  const json doc = json::parse(out.str());
  std::map<std::string, uint64_t> sortIndex;  // by process name
  std::map<int64_t, std::string> names;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name") names[e["pid"]] = e["args"]["name"];
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_sort_index")
      sortIndex[names.at(e["pid"])] = e["args"]["sort_index"];
  CHECK(names.at(500) == "[rank 0] python (node1:500)");
  CHECK(names.at(200) == "[rank 1] python (node1:200)");
  // Each rank's host process, then its GPU, then the next rank.
  const uint64_t host0 = sortIndex.at("[rank 0] python (node1:500)");
  const uint64_t host1 = sortIndex.at("[rank 1] python (node1:200)");
  const uint64_t host2 = sortIndex.at("[rank 2] python (node1:300)");
  CHECK(host0 < host1);
  CHECK(host1 < host2);
  for (const auto& [name, index] : sortIndex) {
    if (name.rfind("[rank 1] GPU", 0) == 0) {
      CHECK(index > host1);
      CHECK(index < host2);
    }
  }
  const json& inputs = doc["metadata"]["inputs"];
  REQUIRE(inputs.size() == 3);
  CHECK(inputs[0]["rank"] == 0);  // each input's own metadata
  CHECK(inputs[2]["rank"] == 2);
}

TEST_CASE("ranks: overlap arithmetic", "[ranks]") {
  const std::vector<Interval> covered = mergeIntervals({{10, 20}, {15, 30}, {50, 60}});
  REQUIRE(covered == std::vector<Interval>{{10, 30}, {50, 60}});
  CHECK(overlapWith({{0, 5}}, covered) == 0);
  CHECK(overlapWith({{0, 15}}, covered) == 5);
  CHECK(overlapWith({{25, 55}}, covered) == 10);
  CHECK(overlapWith({{25, 55}, {0, 100}}, covered) == 10 + 30);
  CHECK(overlapWith({{60, 70}}, covered) == 0);  // touching is not overlapping
  CHECK(overlapWith({}, covered) == 0);
}

TEST_CASE("ranks: per-rank compute, communication, copies and idle", "[ranks]") {
  const std::vector<RankSummary> ranks = twoRanks();
  REQUIRE(ranks.size() == 2);
  CHECK(ranks[0].rank == 0);
  CHECK(ranks[1].rank == 1);
  const RankSummary& r0 = ranks[0];
  CHECK(r0.gpus == 1);
  CHECK(r0.computeKernels == 5);
  CHECK(r0.commKernels == 5);
  CHECK(r0.computeNs == (800 + 4 * 200) * us);
  CHECK(r0.commNs == (100 + 4 * 700) * us);
  CHECK(r0.copyNs == 5 * 50 * us);
  CHECK(r0.spanNs == 4 * kStepNs + 950 * us);
  CHECK(r0.idleNs == 4 * 50 * us);  // between the steps
  CHECK(r0.overlappedNs == 0);      // the all-reduce follows the compute
  CHECK(ranks[1].commNs == (700 + 4 * 100) * us);
  REQUIRE(r0.collectives.count("AllReduce") == 1);
  CHECK(r0.collectives.at("AllReduce").size() == 5);

  // A compute kernel on another stream during the first all-reduce ([800, 900) us):
  // 50 us of it overlapped.
  Trace t;
  fillRank(t, 0, 2, kCompute, 100);
  KernelRecord k{};
  k.start = kRankBase + 10 * us + 850 * us;
  k.end = kRankBase + 10 * us + 1000 * us;
  k.name = t.strings.intern("_Z4gemmPfS_S_");
  k.streamId = 9;
  t.store.add(k);
  CHECK(summarizeRank(t, "x").overlappedNs == 50 * us);
}

TEST_CASE("ranks: the straggler is the rank whose collectives are shortest", "[ranks]") {
  const std::vector<RankSummary> ranks = twoRanks();
  const CollectiveSpread c = collectiveSpread("AllReduce", ranks);
  CHECK(c.instances == 5);
  CHECK(c.lastArrivals == std::vector<uint64_t>{1, 4});
  CHECK(c.mostOftenLast == 1);
  CHECK(c.medianSpreadNs == 600 * us);
  CHECK(c.maxSpreadNs == 600 * us);
  CHECK(c.totalSpreadNs == 5 * 600 * us);
  CHECK(c.waitedNs == std::vector<uint64_t>{4 * 600 * us, 600 * us});

  const auto tables =
      buildRankReports(ranks, {"ranks", "collectives", "collective_spread", "rank_findings"}, {});
  const ReportTable& findings = table(tables, "rank_findings");
  REQUIRE_FALSE(findings.rows.empty());
  const std::string title = findings.rows[0][1].s;
  const std::string details = findings.rows[0][2].s;
  CHECK(title == "rank 1 is the straggler of AllReduce: the other ranks wait for it");
  CHECK(details.find("last in 4 of 5") != std::string::npos);
  CHECK(details.find("median 100") != std::string::npos);  // its own
  CHECK(details.find("700") != std::string::npos);         // rank 0's
  // Nothing hides the communication here.
  bool overlapFinding = false;
  for (const auto& row : findings.rows)
    overlapFinding |= row[1].s == "Communication is not overlapped with compute";
  CHECK(overlapFinding);

  const ReportTable& spread = table(tables, "collective_spread");
  REQUIRE(spread.rows.size() == 1);
  CHECK(spread.rows[0][4].i == 5 * 600 * us);
  CHECK(spread.rows[0][5].s == "rank 1");
  const ReportTable& per = table(tables, "collectives");
  REQUIRE(per.rows.size() == 2);
  CHECK(per.rows[0][1].s == "rank 0");
  CHECK(per.rows[0][3].i == (100 + 4 * 700) * us);
  CHECK(per.rows[1][8].i == 4);  // rank 1's last arrivals
  const ReportTable& overview = table(tables, "ranks");
  REQUIRE(overview.rows.size() == 2);
  CHECK(overview.rows[1][0].s == "rank 1");
  CHECK(overview.rows[1][5].i == (700 + 4 * 100) * us);
}

TEST_CASE("ranks: no straggler when the late rank changes from step to step", "[ranks]") {
  const std::vector<std::vector<uint64_t>> alternating = {{800 * us, 200 * us, 800 * us, 200 * us},
                                                          {200 * us, 800 * us, 200 * us, 800 * us}};
  std::vector<RankSummary> ranks;
  for (int64_t r = 0; r < 2; ++r) {
    Trace t;
    fillRank(t, r, 2, alternating, 100 + static_cast<uint32_t>(r));
    ranks.push_back(summarizeRank(t, "x"));
  }
  const CollectiveSpread c = collectiveSpread("AllReduce", ranks);
  CHECK(c.lastArrivals == std::vector<uint64_t>{2, 2});
  const auto tables = buildRankReports(ranks, {"rank_findings"}, {});
  for (const auto& row : tables[0].rows) CHECK(row[1].s.find("straggler") == std::string::npos);
}

TEST_CASE("ranks: a launcher without GPU work is skipped and named", "[ranks]") {
  Trace launcher, rank;
  fillLauncher(launcher, 9);
  fillRank(rank, 0, 1, {{100 * us}}, 10);
  std::vector<std::string> skipped;
  const auto ranks = orderRanks(
      {summarizeRank(launcher, "t.pid9.native"), summarizeRank(rank, "t.0.native")}, skipped);
  REQUIRE(ranks.size() == 1);
  CHECK(ranks[0].rank == 0);
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0].find("torchrun") != std::string::npos);
  CHECK(skipped[0].find("t.pid9.native") != std::string::npos);
  const auto tables = buildRankReports(ranks, {"ranks"}, skipped);
  bool noted = false;
  for (const auto& n : tables[0].notes) noted |= n.find("Skipped torchrun") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("ranks: the .pftrace names the rank's processes and carries the NCCL arguments",
          "[ranks][pftrace]") {
  Trace t;
  fillRank(t, 1, 2, kCompute, 101);
  std::ostringstream out;
  writePerfettoProto(t, out);
  const auto d = perfetto::decodePerfetto(out.str());
  INFO(d.problemText());
  CHECK(d.problems.empty());
  const auto* host = d.processTrack(101);
  REQUIRE(host != nullptr);
  CHECK(host->processName == "[rank 1] python");
  const auto* gpu = d.processTrack(gpuProcessId(101, 1));
  REQUIRE(gpu != nullptr);
  CHECK(gpu->processName.rfind("[rank 1] GPU 1: NVIDIA H100", 0) == 0);
  size_t nccl = 0, metadata = 0;
  for (const auto& e : d.events) {
    if (e.name == kAllReduceKernel) {
      ++nccl;
      CHECK(e.args.at("nccl_collective").s == "AllReduce");
      CHECK(e.args.at("nccl_dtype").s == "f32");
      CHECK(e.args.at("nccl_proto").s == "LL");
    }
    if (e.args.count("world_size")) {
      ++metadata;
      CHECK(e.args.at("rank").u == 1);
      CHECK(e.args.at("world_size").u == 2);
    }
  }
  CHECK(nccl == 5);
  CHECK(metadata == 1);
}

TEST_CASE("ranks: each report of a rank's trace says whose it is", "[ranks][report]") {
  Trace t;
  fillRank(t, 1, 2, kCompute, 101);
  const auto tables = buildAllReports(t, {});
  REQUIRE_FALSE(tables.empty());
  for (const auto& table : tables) CHECK_THAT(table.title, Catch::EndsWith(" [rank 1]"));
  const std::string summary = exitSummary(tables, 2, "");
  CHECK_THAT(summary, Catch::Contains("cuptitrace: GPU activities [rank 1]"));
  Trace launcher;
  fillLauncher(launcher, 9);
  for (const auto& table : buildAllReports(launcher, {}))
    CHECK_THAT(table.title, !Catch::Contains("[rank"));
}
