// Configuration: one table of CUPTITRACE_* variables (name, type, default,
// accepted values, help) drives parsing, validation, `cuptitrace --help` and
// the README. A bad value never stops the traced program: it yields one
// message naming the variable, the value and what is accepted, and the default.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuptitrace {

// Activity kinds that can be selected with CUPTITRACE_ACTIVITIES.
enum Activity : uint32_t {
  kActivityKernel = 1u << 0,
  kActivityMemcpy = 1u << 1,
  kActivityMemset = 1u << 2,
  kActivityRuntime = 1u << 3,
  kActivityDriver = 1u << 4,
  kActivityNvtx = 1u << 5,
  kActivitySync = 1u << 6,
  kActivityOverhead = 1u << 7,
};
inline constexpr uint32_t kActivityDefault =
    kActivityKernel | kActivityMemcpy | kActivityMemset | kActivityRuntime | kActivityNvtx;
inline constexpr uint32_t kActivityAll = (1u << 8) - 1;

// Output formats that can be selected with CUPTITRACE_FORMAT.
enum Format : uint32_t {
  kFormatJson = 1u << 0,
  kFormatCsv = 1u << 1,
  kFormatNative = 1u << 2,
  kFormatPftrace = 1u << 3,  // Perfetto protobuf
};

enum class LogLevel { Off, Error, Warn, Info, Debug };

// Where the summary reports go at exit (CUPTITRACE_SUMMARY).
enum class SummaryMode {
  Stderr,  // the GPU activities and API calls tables on stderr, all reports in PREFIX.reports.txt
  File,    // all reports in PREFIX.reports.txt only
  None,    // no reports
};

struct Config {
  uint32_t activities = kActivityDefault;
  uint32_t formats = kFormatJson;
  std::string output = "cuptitrace-%h-%p";  // path prefix template
  LogLevel logLevel = LogLevel::Warn;
  uint64_t bufferSize = 8ull << 20;    // bytes per CUPTI activity buffer
  uint32_t bufferPool = 4;             // buffers allocated up front
  uint32_t maxBuffers = 64;            // most buffers in flight at once
  uint64_t maxMemory = 512ull << 20;   // cap on the record store
  bool quiet = false;                  // no summary line at exit
  bool overwrite = false;              // replace existing output files
  SummaryMode summary = SummaryMode::Stderr;
  std::string stepRange;               // NVTX range that marks steps; empty: none
  uint32_t coverageBasisPoints = 9000; // coverage report threshold, in 1/100 % (9000 = 90%)
};

struct ConfigVar {
  const char* name;          // "CUPTITRACE_ACTIVITIES"
  const char* type;          // "list", "size", "count", "bool", "enum", "path"
  const char* defaultValue;  // as the user would write it
  const char* accepted;      // what values are accepted, in words
  const char* help;          // one sentence
  // Parses `value` into `config`; false when the value is not accepted.
  bool (*apply)(std::string_view value, Config& config);
};

// Every variable, in the order help and README list them.
const std::vector<ConfigVar>& configTable();

// Looks up an environment variable; nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

// Builds the configuration from the environment. Every rejected value adds
// one message to `messages` and leaves that setting at its default.
Config parseConfig(const EnvLookup& env, std::vector<std::string>& messages);

// Messages for CUPTITRACE_* names in `environ` that are not in the table
// (typos), each suggesting the closest known name.
std::vector<std::string> unknownVariableMessages(const char* const* environ);

// The effective configuration as (variable, value) pairs, for trace metadata.
std::vector<std::pair<std::string, std::string>> describeConfig(const Config& config);

// Names of the activities or formats set in a mask, comma separated.
std::string activityNames(uint32_t mask);
std::string formatNames(uint32_t mask);

}  // namespace cuptitrace
