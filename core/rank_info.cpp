#include "core/rank_info.h"

#include <array>
#include <limits>
#include <optional>

#include "core/parse.h"

namespace cuptitrace {
namespace {

struct LauncherVars {
  const char* rank;
  const char* size;
  const char* localRank;
};

// In order of precedence: the most specific launcher first. torchrun under
// srun sees both RANK and SLURM_PROCID; RANK is the one its workers mean.
constexpr std::array<LauncherVars, 4> kLaunchers = {{
    {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
}};

// A rank or size: decimal digits, below 2^31 (no launcher has more ranks).
std::optional<int64_t> number(const std::function<const char*(const char*)>& env,
                              const char* name) {
  const char* text = env ? env(name) : nullptr;
  if (text == nullptr) return std::nullopt;
  const auto value = parseUint(text);
  if (!value || *value > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    return std::nullopt;
  return static_cast<int64_t>(*value);
}

}  // namespace

RankInfo detectRank(const std::function<const char*(const char*)>& env) {
  RankInfo info;
  for (const LauncherVars& vars : kLaunchers) {
    const auto rank = number(env, vars.rank);
    if (!rank) continue;
    info.rank = *rank;
    info.source = vars.rank;
    if (const auto size = number(env, vars.size); size && *size > *rank)
      info.worldSize = static_cast<uint32_t>(*size);
    if (const auto local = number(env, vars.localRank)) info.localRank = *local;
    return info;
  }
  // torchrun's LOCAL_RANK alone (a single-node launch by hand): the local rank is the rank.
  if (const auto local = number(env, "LOCAL_RANK")) {
    info.rank = *local;
    info.localRank = *local;
    info.source = "LOCAL_RANK";
    if (const auto size = number(env, "LOCAL_WORLD_SIZE"); size && *size > *local)
      info.worldSize = static_cast<uint32_t>(*size);
  }
  return info;
}

std::string rankLabel(int64_t rank) {
  return rank >= 0 ? "rank " + std::to_string(rank) : std::string();
}

}  // namespace cuptitrace
