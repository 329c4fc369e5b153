#include "injection/process_info.h"

#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace cuptitrace {

ProcessInfo currentProcessInfo() {
  ProcessInfo info;
  info.pid = static_cast<uint32_t>(::getpid());
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) == 0) info.hostName = host;
  if (info.hostName.empty()) info.hostName = "localhost";

  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = 0;
  while (pos < raw.size()) {
    const size_t end = raw.find('\0', pos);
    const std::string arg = raw.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (!info.commandLine.empty()) info.commandLine += ' ';
    info.commandLine += arg;
    if (info.processName.empty()) {
      const size_t slash = arg.rfind('/');
      info.processName = slash == std::string::npos ? arg : arg.substr(slash + 1);
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  if (info.processName.empty()) info.processName = "process " + std::to_string(info.pid);
  // Read once, at start: a program that changes RANK later is still the rank it was started as.
  info.rank = detectRank([](const char* name) -> const char* { return std::getenv(name); });
  return info;
}

uint64_t realtimeNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace cuptitrace
