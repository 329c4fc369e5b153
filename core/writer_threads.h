// How many threads write the outputs at exit and in the command
// (convert, merge, stats): CUPTITRACE_WRITER_THREADS when set, else the
// cores this process may use (its CPU affinity, and its cgroup's CPU quota,
// whichever allows fewer).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cuptitrace {

// The most writer threads accepted.
inline constexpr uint32_t kMaxWriterThreads = 256;

// "auto" or 0 (the cores), or a whole number from 1 to kMaxWriterThreads.
// Returns 0 for the cores; nothing when the text is not accepted.
std::optional<uint32_t> parseWriterThreads(std::string_view text);

// The cores this process may run on: the CPUs of its affinity mask, at most
// its cgroup's CPU quota (v2 cpu.max or v1 cpu.cfs_quota_us, in its own
// cgroup or one above it, rounded up); at least 1.
uint32_t usableCores();

// A quota in whole cores, rounded up (0: none), from cgroup v2's cpu.max
// ("150000 100000" is 2, "max 100000" none) and from v1's cpu.cfs_quota_us and
// cpu.cfs_period_us ("-1" none).
uint32_t cgroupV2QuotaCores(std::string_view cpuMax);
uint32_t cgroupV1QuotaCores(std::string_view quotaUs, std::string_view periodUs);

// The writer threads to use: CUPTITRACE_WRITER_THREADS when set and valid
// (read each call: the command sets it from its flags), else usableCores().
uint32_t writerThreads();

}  // namespace cuptitrace
