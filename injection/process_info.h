// Facts about the traced process for the trace's metadata.
#pragma once

#include <cstdint>
#include <string>

#include "core/rank_info.h"

namespace cuptitrace {

struct ProcessInfo {
  uint32_t pid = 0;
  std::string hostName;
  std::string processName;  // executable's base name
  std::string commandLine;  // arguments joined by spaces
  RankInfo rank;            // set by a launcher (torchrun, mpirun, srun); none otherwise
};

ProcessInfo currentProcessInfo();
uint64_t realtimeNs();

}  // namespace cuptitrace
