#include "core/writer_threads.h"

#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/parse.h"

namespace cuptitrace {
namespace {

// The cgroup v2 CPU quota as a whole number of cores, rounded up: "max
// 100000" is none (0), "150000 100000" is 2.
uint32_t cgroupQuotaCores() {
  std::FILE* f = std::fopen("/sys/fs/cgroup/cpu.max", "re");
  if (f == nullptr) return 0;
  char quota[32] = {};
  unsigned long long period = 0;
  const int n = std::fscanf(f, "%31s %llu", quota, &period);
  std::fclose(f);
  if (n != 2 || period == 0 || std::strcmp(quota, "max") == 0) return 0;
  const std::optional<uint64_t> q = parseUint(quota);
  if (!q || *q == 0) return 0;
  return static_cast<uint32_t>((*q + period - 1) / period);
}

}  // namespace

std::optional<uint32_t> parseWriterThreads(std::string_view text) {
  if (text == "auto") return 0u;
  const std::optional<uint64_t> n = parseUint(text);
  if (!n || *n > kMaxWriterThreads) return std::nullopt;
  return static_cast<uint32_t>(*n);
}

uint32_t usableCores() {
  uint32_t cores = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) cores = static_cast<uint32_t>(CPU_COUNT(&set));
  if (cores == 0) cores = 1;
  const uint32_t quota = cgroupQuotaCores();
  if (quota != 0 && quota < cores) cores = quota;
  return cores < kMaxWriterThreads ? cores : kMaxWriterThreads;
}

uint32_t writerThreads() {
  if (const char* value = std::getenv("CUPTITRACE_WRITER_THREADS")) {
    const std::optional<uint32_t> n = parseWriterThreads(value);
    if (n && *n != 0) return *n;
  }
  return usableCores();
}

}  // namespace cuptitrace
