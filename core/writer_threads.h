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
// its cgroup v2 CPU quota (cpu.max, rounded up); at least 1.
uint32_t usableCores();

// The writer threads to use: CUPTITRACE_WRITER_THREADS when set and valid
// (read each call: the command sets it from its flags), else usableCores().
uint32_t writerThreads();

}  // namespace cuptitrace
