// Which rank of a multi-process job a traced process is: what torchrun,
// mpirun/srun and other launchers tell each process through its environment.
//
// Launchers set these (first match wins, so a torchrun started by srun is
// named by torchrun's RANK, not by the srun task it runs in):
//   torchrun, torch.distributed, DeepSpeed, Horovod's gloo mode:
//                  RANK, WORLD_SIZE, LOCAL_RANK
//   Open MPI:      OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK
//   MPICH, Intel MPI (PMI): PMI_RANK, PMI_SIZE, MPI_LOCALRANKID
//   Slurm (srun):  SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID
// A value that is not a plain decimal number is ignored (the next launcher's
// variables are tried), so a stray RANK=abc names no rank.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace cuptitrace {

inline constexpr int64_t kNoRank = -1;

struct RankInfo {
  int64_t rank = kNoRank;       // global rank; kNoRank when no launcher said
  int64_t localRank = kNoRank;  // rank on this host, when the launcher says
  uint32_t worldSize = 0;       // number of ranks; 0 when not said
  std::string source;           // the variable the rank came from: "RANK", "SLURM_PROCID", ...

  bool known() const { return rank >= 0; }
};

// Reads the launcher variables through `env` (getenv-like: nullptr when unset).
RankInfo detectRank(const std::function<const char*(const char*)>& env);

// "rank 3" (or "" without a rank): what process names and reports show.
std::string rankLabel(int64_t rank);

}  // namespace cuptitrace
