// Rank summaries as bytes (reports/rank_summary_blob.h): what one process
// writes, another reads back whole; damage and other versions are refused
// with a message that says what is wrong.
#include <catch2/catch.hpp>
#include <string>

#include "rank_fixture.h"
#include "reports/rank_reports.h"
#include "reports/rank_summary_blob.h"

namespace cuptitrace {
namespace {

RankSummary sample() {
  RankSummary s;
  s.file = "runs/t.\"3\"\n.native";
  s.host = "nöde-1";
  s.processName = "python train.py";
  s.pid = 4242;
  s.rank = 3;
  s.worldSize = 8;
  s.gpus = 2;
  s.gpuRecords = 7;
  s.computeKernels = 4;
  s.commKernels = 2;
  s.computeNs = 1000;
  s.commNs = UINT64_MAX - 1;  // every bit travels
  s.copyNs = 30;
  s.idleNs = 40;
  s.spanNs = 5000;
  s.overlappedNs = 12;
  s.dropped = 9;
  s.collectives["AllReduce"] = {{100, 20}, {200, 25}};
  s.collectives["SendRecv"] = {{300, 5}};
  s.kernels["_Z4gemmPfS_S_"] = {4, 1000, 200, 300};
  s.kernels[std::string("odd\0name", 8)] = {1, 1, 1, 1};
  return s;
}

void checkSame(const RankSummary& a, const RankSummary& b) {
  CHECK(a.file == b.file);
  CHECK(a.host == b.host);
  CHECK(a.processName == b.processName);
  CHECK(a.pid == b.pid);
  CHECK(a.rank == b.rank);
  CHECK(a.worldSize == b.worldSize);
  CHECK(a.gpus == b.gpus);
  CHECK(a.gpuRecords == b.gpuRecords);
  CHECK(a.computeKernels == b.computeKernels);
  CHECK(a.commKernels == b.commKernels);
  CHECK(a.computeNs == b.computeNs);
  CHECK(a.commNs == b.commNs);
  CHECK(a.copyNs == b.copyNs);
  CHECK(a.idleNs == b.idleNs);
  CHECK(a.spanNs == b.spanNs);
  CHECK(a.overlappedNs == b.overlappedNs);
  CHECK(a.dropped == b.dropped);
  REQUIRE(a.collectives.size() == b.collectives.size());
  for (const auto& [name, instances] : a.collectives) {
    REQUIRE(b.collectives.count(name) == 1);
    const auto& other = b.collectives.at(name);
    REQUIRE(instances.size() == other.size());
    for (size_t i = 0; i < instances.size(); ++i) {
      CHECK(instances[i].start == other[i].start);
      CHECK(instances[i].durationNs == other[i].durationNs);
    }
  }
  REQUIRE(a.kernels.size() == b.kernels.size());
  for (const auto& [name, k] : a.kernels) {
    REQUIRE(b.kernels.count(name) == 1);
    const KernelTotals& o = b.kernels.at(name);
    CHECK((k.count == o.count && k.totalNs == o.totalNs && k.minNs == o.minNs && k.maxNs == o.maxNs));
  }
}

TEST_CASE("rank summary blob: a summary and a failure read back whole, in order", "[reports][ranks]") {
  RankSummary none;  // no rank, nothing run: the defaults travel too
  const std::string stream = encodeRankSummary(sample()) + encodeRankFailure({"t.5.native", "t.5.native: truncated"}) +
                             encodeRankSummary(none);
  RankBlobs blobs;
  std::string error;
  REQUIRE(decodeRankBlobs(stream, blobs, error));
  CHECK(error.empty());
  REQUIRE(blobs.summaries.size() == 2);
  checkSame(sample(), blobs.summaries[0]);
  checkSame(none, blobs.summaries[1]);
  CHECK(blobs.summaries[1].rank == -1);
  REQUIRE(blobs.failures.size() == 1);
  CHECK(blobs.failures[0].file == "t.5.native");
  CHECK(blobs.failures[0].error == "t.5.native: truncated");
  RankBlobs empty;
  CHECK(decodeRankBlobs("", empty, error));
  CHECK(empty.summaries.empty());
}

TEST_CASE("rank summary blob: a summary made from a trace reads back to the same reports", "[reports][ranks]") {
  const std::vector<std::vector<uint64_t>> compute = {{200'000, 200'000, 200'000}, {900'000, 900'000, 900'000}};
  std::vector<RankSummary> direct, carried;
  for (int64_t r = 0; r < 2; ++r) {
    Trace t;
    testing::fillRank(t, r, 2, compute, 100 + static_cast<uint32_t>(r));
    direct.push_back(summarizeRank(t, "t.native"));
    RankBlobs blobs;
    std::string error;
    REQUIRE(decodeRankBlobs(encodeRankSummary(direct.back()), blobs, error));
    carried.push_back(blobs.summaries.at(0));
    checkSame(direct.back(), carried.back());
  }
  CHECK(direct[0].kernels.at(testing::kAllReduceKernel).count == 3);
  std::vector<std::string> names;
  for (const auto& r : rankReportCatalog()) names.push_back(r.name);
  std::vector<std::string> skipped;
  const auto a = renderTables(buildRankReports(direct, names, skipped), ReportFormat::Json, {});
  const auto b = renderTables(buildRankReports(carried, names, skipped), ReportFormat::Json, {});
  CHECK(a == b);
}

TEST_CASE("rank summary blob: damage and other versions are refused, saying why", "[reports][ranks]") {
  const std::string good = encodeRankSummary(sample());
  std::string error;
  SECTION("truncated inside the payload") {
    RankBlobs blobs;
    CHECK_FALSE(decodeRankBlobs(good.substr(0, good.size() - 3), blobs, error));
    CHECK_THAT(error, Catch::Contains("truncated rank summary at byte 0"));
  }
  SECTION("truncated inside a header, after a whole blob") {
    RankBlobs blobs;
    CHECK_FALSE(decodeRankBlobs(good + good.substr(0, 6), blobs, error));
    CHECK_THAT(error, Catch::Contains("truncated rank summary at byte " + std::to_string(good.size())));
    CHECK(blobs.summaries.size() == 1);  // what came before the damage is kept
  }
  SECTION("another version") {
    std::string other = good;
    other[4] = 2;  // the version's low byte
    RankBlobs blobs;
    CHECK_FALSE(decodeRankBlobs(other, blobs, error));
    CHECK_THAT(error, Catch::Contains("rank summary version 2"));
    CHECK_THAT(error, Catch::Contains("reads version 1"));
  }
  SECTION("not a summary at all") {
    RankBlobs blobs;
    CHECK_FALSE(decodeRankBlobs("CTRA" + good.substr(4), blobs, error));
    CHECK_THAT(error, Catch::Contains("not a rank summary"));
  }
  SECTION("a count larger than the bytes behind it") {
    // The kernels' count is the payload's last u64 before the kernels; inflate
    // the first collective's instance count instead: its bytes cannot hold it.
    RankSummary s;
    s.collectives["AllReduce"] = {{1, 2}};
    std::string bad = encodeRankSummary(s);
    const size_t at = bad.find("AllReduce") + 9;  // the instance count follows the name
    bad[at + 7] = 0x7f;
    RankBlobs blobs;
    CHECK_FALSE(decodeRankBlobs(bad, blobs, error));
    CHECK_THAT(error, Catch::Contains("damaged rank summary at byte 0"));
  }
}

}  // namespace
}  // namespace cuptitrace
