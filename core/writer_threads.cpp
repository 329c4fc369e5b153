#include "core/writer_threads.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "core/parse.h"

namespace cuptitrace {
namespace {

std::string readSmall(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "re");
  if (f == nullptr) return {};
  char text[256] = {};
  const size_t n = std::fread(text, 1, sizeof text - 1, f);
  std::fclose(f);
  return std::string(text, n);
}

// The tightest CPU quota on the way from the process's cgroup up to the root
// of the hierarchy mounted at `mount`, read by `quota` from each directory.
template <typename Quota>
uint32_t tightestUp(const std::string& mount, std::string path, Quota quota) {
  uint32_t best = 0;
  for (;;) {
    const uint32_t q = quota(mount + path);
    if (q != 0 && (best == 0 || q < best)) best = q;
    if (path.empty() || path == "/") break;
    const size_t slash = path.rfind('/');
    path = slash == std::string::npos ? std::string() : path.substr(0, slash);
  }
  return best;
}

// The process's CPU quota in cores (0: none): cgroup v2's cpu.max, or v1's
// cpu.cfs_quota_us over cpu.cfs_period_us, in its own cgroup and those above.
uint32_t cgroupQuotaCores() {
  uint32_t v2 = 0, v1 = 0;
  std::istringstream lines(readSmall("/proc/self/cgroup"));
  std::string line;
  while (std::getline(lines, line)) {
    // "0::/path" (v2) or "4:cpu,cpuacct:/path" (v1).
    const size_t first = line.find(':');
    const size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty()) {
      v2 = tightestUp("/sys/fs/cgroup", path, [](const std::string& dir) {
        return cgroupV2QuotaCores(readSmall(dir + "/cpu.max"));
      });
    } else if (("," + controllers + ",").find(",cpu,") != std::string::npos) {
      for (const char* mount : {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"}) {
        v1 = tightestUp(mount, path, [](const std::string& dir) {
          return cgroupV1QuotaCores(readSmall(dir + "/cpu.cfs_quota_us"), readSmall(dir + "/cpu.cfs_period_us"));
        });
        if (v1 != 0) break;
      }
    }
  }
  // In a container the hierarchy's root is its own cgroup: its quota is there.
  if (v2 == 0) v2 = cgroupV2QuotaCores(readSmall("/sys/fs/cgroup/cpu.max"));
  if (v1 == 0) v1 = cgroupV1QuotaCores(readSmall("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"),
                                       readSmall("/sys/fs/cgroup/cpu/cpu.cfs_period_us"));
  if (v2 == 0 || (v1 != 0 && v1 < v2)) return v1;
  return v2;
}

}  // namespace

uint32_t cgroupV2QuotaCores(std::string_view cpuMax) {
  // "max 100000" is none, "150000 100000" is 2.
  const size_t space = cpuMax.find(' ');
  if (space == std::string_view::npos) return 0;
  const std::string_view quota = cpuMax.substr(0, space);
  std::string_view period = cpuMax.substr(space + 1);
  while (!period.empty() && (period.back() == '\n' || period.back() == ' ')) period.remove_suffix(1);
  if (quota == "max") return 0;
  const std::optional<uint64_t> q = parseUint(quota);
  const std::optional<uint64_t> p = parseUint(period);
  if (!q || !p || *q == 0 || *p == 0) return 0;
  return static_cast<uint32_t>(std::min<uint64_t>((*q + *p - 1) / *p, kMaxWriterThreads));
}

uint32_t cgroupV1QuotaCores(std::string_view quotaUs, std::string_view periodUs) {
  while (!quotaUs.empty() && quotaUs.back() == '\n') quotaUs.remove_suffix(1);
  while (!periodUs.empty() && periodUs.back() == '\n') periodUs.remove_suffix(1);
  if (quotaUs.empty() || quotaUs.front() == '-') return 0;  // -1: no quota
  return cgroupV2QuotaCores(std::string(quotaUs) + " " + std::string(periodUs));
}

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
