// Facts about the traced process for the trace's metadata.
#pragma once

#include <cstdint>
#include <string>

namespace cuptitrace {

struct ProcessInfo {
  uint32_t pid = 0;
  std::string hostName;
  std::string processName;  // executable's base name
  std::string commandLine;  // arguments joined by spaces
};

ProcessInfo currentProcessInfo();
uint64_t realtimeNs();

}  // namespace cuptitrace
