// Rank detection from launcher variables (core/rank_info.h) and the %r
// output name escape.
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>

#include "core/output_name.h"
#include "core/rank_info.h"

using namespace cuptitrace;

namespace {

std::function<const char*(const char*)> envOf(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    const auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST_CASE("rank: each launcher's variables", "[rank]") {
  SECTION("torchrun") {
    const RankInfo r = detectRank(envOf({{"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}}));
    CHECK(r.known());
    CHECK(r.rank == 3);
    CHECK(r.worldSize == 8);
    CHECK(r.localRank == 1);
    CHECK(r.source == "RANK");
  }
  SECTION("Open MPI") {
    const RankInfo r = detectRank(envOf({{"OMPI_COMM_WORLD_RANK", "5"},
                                         {"OMPI_COMM_WORLD_SIZE", "6"},
                                         {"OMPI_COMM_WORLD_LOCAL_RANK", "2"}}));
    CHECK(r.rank == 5);
    CHECK(r.worldSize == 6);
    CHECK(r.localRank == 2);
    CHECK(r.source == "OMPI_COMM_WORLD_RANK");
  }
  SECTION("PMI (MPICH, Intel MPI)") {
    const RankInfo r = detectRank(envOf({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}}));
    CHECK(r.rank == 0);
    CHECK(r.worldSize == 2);
    CHECK(r.localRank == kNoRank);
    CHECK(r.source == "PMI_RANK");
  }
  SECTION("Slurm") {
    const RankInfo r =
        detectRank(envOf({{"SLURM_PROCID", "17"}, {"SLURM_NTASKS", "64"}, {"SLURM_LOCALID", "1"}}));
    CHECK(r.rank == 17);
    CHECK(r.worldSize == 64);
    CHECK(r.localRank == 1);
    CHECK(r.source == "SLURM_PROCID");
  }
  SECTION("LOCAL_RANK alone") {
    const RankInfo r = detectRank(envOf({{"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}}));
    CHECK(r.rank == 1);
    CHECK(r.localRank == 1);
    CHECK(r.worldSize == 2);
    CHECK(r.source == "LOCAL_RANK");
  }
}

TEST_CASE("rank: torchrun's RANK wins over the srun task it runs in", "[rank]") {
  const RankInfo r = detectRank(
      envOf({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"RANK", "6"}, {"WORLD_SIZE", "16"}}));
  CHECK(r.rank == 6);
  CHECK(r.worldSize == 16);
  CHECK(r.source == "RANK");
}

TEST_CASE("rank: none without a launcher, and bad values name no rank", "[rank]") {
  CHECK_FALSE(detectRank(envOf({})).known());
  CHECK_FALSE(detectRank(nullptr).known());
  CHECK(rankLabel(detectRank(envOf({})).rank).empty());
  // A bad RANK is skipped: the next launcher's variables are read.
  const RankInfo r = detectRank(envOf({{"RANK", "abc"}, {"PMI_RANK", "4"}}));
  CHECK(r.rank == 4);
  CHECK(r.source == "PMI_RANK");
  CHECK_FALSE(detectRank(envOf({{"RANK", "-1"}})).known());
  CHECK_FALSE(detectRank(envOf({{"RANK", "12x"}})).known());
  CHECK_FALSE(detectRank(envOf({{"RANK", "99999999999"}})).known());
  // A size not above the rank is not a size.
  const RankInfo odd = detectRank(envOf({{"RANK", "4"}, {"WORLD_SIZE", "4"}}));
  CHECK(odd.rank == 4);
  CHECK(odd.worldSize == 0);
  CHECK(rankLabel(7) == "rank 7");
}

TEST_CASE("output name: %r is the rank, pid<PID> without one", "[rank][output]") {
  CHECK(checkOutputTemplate("dir/t.%r"));
  OutputNameInputs in;
  in.pid = 4242;
  in.host = "node1";
  in.rank = 3;
  CHECK(expandOutputName("dir/t.%r", in, 1) == "dir/t.3");
  CHECK(expandOutputName("t.%h.%r.%p", in, 1) == "t.node1.3.4242");
  CHECK(expandOutputName("t.%%r", in, 1) == "t.%r");
  in.rank = -1;
  CHECK(expandOutputName("dir/t.%r", in, 1) == "dir/t.pid4242");
  std::string why;
  CHECK_FALSE(checkOutputTemplate("t.%z", &why));
  CHECK(why.find("%r") != std::string::npos);
}
