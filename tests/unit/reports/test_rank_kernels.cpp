// The per-kernel summary across ranks (reports/rank_kernels.h), from the
// per-rank totals that summarizeRank keeps for each kernel name.
#include <catch2/catch.hpp>
#include <string>

#include "rank_fixture.h"
#include "reports/rank_kernels.h"
#include "reports/rank_reports.h"

namespace cuptitrace {
namespace {

constexpr uint64_t us = 1000;

TEST_CASE("rank_kernels: per kernel over every rank, the rank with the most named", "[reports][ranks]") {
  const std::vector<std::vector<uint64_t>> compute = {{200 * us, 300 * us}, {900 * us, 100 * us}};
  std::vector<RankSummary> ranks;
  for (int64_t r = 0; r < 2; ++r) {
    Trace t;
    testing::fillRank(t, r, 2, compute, 100 + static_cast<uint32_t>(r));
    ranks.push_back(summarizeRank(t, "t." + std::to_string(r) + ".native"));
  }
  const KernelTotals& gemm0 = ranks[0].kernels.at("_Z4gemmPfS_S_");
  CHECK(gemm0.count == 2);
  CHECK(gemm0.totalNs == 500 * us);
  CHECK(gemm0.minNs == 200 * us);
  CHECK(gemm0.maxNs == 300 * us);

  const ReportTable t = rankKernelsTable(ranks);
  CHECK(t.name == "rank_kernels");
  REQUIRE(t.rows.size() == 2);
  // The all-reduce: per step, the slowest compute plus the tail, less each rank's own compute.
  // Step 0: 900+100-200 = 800 on rank 0, 100 on rank 1; step 1: 300+100-300 = 100, 300+100-100 = 300.
  // Total 1300 us; gemm: 500 + 1000 = 1500 us, so gemm comes first.
  const auto& gemm = t.rows[0];
  CHECK(gemm.back().s == "gemm(float*, float*, float*)");
  CHECK(gemm[1].i == 1500 * us);
  CHECK(gemm[2].i == 4);
  CHECK(gemm[4].i == 100 * us);
  CHECK(gemm[5].i == 900 * us);
  CHECK(gemm[6].i == 2);
  CHECK(gemm[7].i == 500 * us);  // rank min
  CHECK(gemm[9].i == 1000 * us);  // rank max
  CHECK(gemm[10].s == "rank 1");
  const auto& allReduce = t.rows[1];
  CHECK(allReduce.back().s == testing::kAllReduceKernel);
  CHECK(allReduce[1].i == 1300 * us);
  CHECK(allReduce[10].s == "rank 0");
  CHECK(gemm[0].d + allReduce[0].d == Approx(100.0));
  CHECK(isRankReport("rank_kernels"));
}

}  // namespace
}  // namespace cuptitrace
