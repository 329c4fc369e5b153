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

#include "core/capture_window.h"
#include "core/spill_mode.h"

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
  kActivityMemory = 1u << 8,  // GPU memory allocations and frees, memory pools
  kActivityUvm = 1u << 9,     // unified memory transfers and page faults
  // The runtime and driver calls that start, wait for or move GPU work and
  // memory, chosen per callback id (the lean API set); runtime and driver
  // each record every call of their API instead.
  kActivityApi = 1u << 10,
  // OpenACC runtime events (data, launch, other) through the OpenACC tools
  // interface. In the default set: it costs nothing unless an OpenACC runtime
  // loads the library through ACC_PROFLIB and calls acc_register_library.
  kActivityOpenAcc = 1u << 11,
  // C library calls that block (file I/O, sleeps, waits): not a CUPTI kind,
  // recorded by the library's wrappers when it is preloaded; not in "all".
  kActivityOsrt = 1u << 24,
  // The devices' hardware performance monitors sampled at a fixed rate (PM
  // sampling, core/gpu_metrics.h): not a CUPTI activity kind; not in "all".
  kActivityGpuMetrics = 1u << 25,
};
inline constexpr uint32_t kActivityDefault =
    kActivityKernel | kActivityMemcpy | kActivityMemset | kActivityApi | kActivityNvtx | kActivityOpenAcc;
inline constexpr uint32_t kActivityAll = (1u << 12) - 1;

// Output formats that can be selected with CUPTITRACE_FORMAT.
enum Format : uint32_t {
  kFormatJson = 1u << 0,
  kFormatCsv = 1u << 1,
  kFormatNative = 1u << 2,
  kFormatPftrace = 1u << 3,  // Perfetto protobuf
  kFormatJsonGz = 1u << 4,   // the Chrome JSON, gzip-compressed as it is written
  kFormatSqlite = 1u << 5,   // a SQLite database in Nsight Systems' export schema
  kFormatHtml = 1u << 6,     // the HTML report: the reports as charts, one self-contained page
};

enum class LogLevel { Off, Error, Warn, Info, Debug };

// How kernels, copies and sets run by a CUDA graph are recorded (CUPTITRACE_GRAPHS).
enum class GraphMode {
  Node,   // one record per node run, with its graph and node ids
  Graph,  // one record per graph launch (CUPTI graph-level tracing): cheaper, no node detail
};

// Where the summary reports go at exit (CUPTITRACE_SUMMARY).
enum class SummaryMode {
  Stderr,  // the GPU activities and API calls tables on stderr, all reports in PREFIX.reports.txt
  File,    // all reports in PREFIX.reports.txt only
  None,    // no reports
};

// What the Python start-up hook records of a PyTorch program (CUPTITRACE_PYTORCH).
enum class PytorchMode {
  Off,
  Ops,     // every operator as an NVTX range, as torch.autograd.profiler.emit_nvtx() makes them
  Shapes,  // the same with the operators' input shapes
};

struct Config {
  uint32_t activities = kActivityDefault;
  uint32_t formats = kFormatJson;
  std::string output = "cuptitrace-%h-%p";  // path prefix template
  LogLevel logLevel = LogLevel::Warn;
  uint64_t bufferSize = 8ull << 20;    // bytes per CUPTI activity buffer
  uint32_t bufferPool = 4;             // buffers allocated up front
  uint64_t bufferMemory = 256ull << 20;  // most bytes of CUPTI buffers allocated at once
  uint64_t maxMemory = 512ull << 20;   // cap on the record store
  SpillMode spill = SpillMode::Auto;   // what happens to records past maxMemory
  // With spill Always: how often chunks still filling are written to the
  // journal too (and CUPTI flushed first); 0: only full chunks.
  uint64_t journalPeriodNs = 1'000'000'000;
  bool quiet = false;                  // no summary line at exit
  bool overwrite = false;              // replace existing output files
  SummaryMode summary = SummaryMode::Stderr;
  std::string stepRange;               // NVTX range that marks steps; empty: none
  uint32_t coverageBasisPoints = 9000; // coverage report threshold, in 1/100 % (9000 = 90%)
  uint64_t splitBytes = 0;             // timeline outputs split into parts of about this size; 0: one file
  CaptureSpec capture;                 // when collection is on (CUPTITRACE_CAPTURE)
  std::string kernelInclude;           // regex on demangled kernel names; empty: every kernel
  std::string kernelExclude;           // regex on demangled kernel names; empty: none left out
  GraphMode graphs = GraphMode::Node;  // CUPTITRACE_GRAPHS
  uint64_t osrtThresholdNs = 1000;     // osrt calls shorter than this are not recorded
  PytorchMode pytorch = PytorchMode::Off;  // read by the Python start-up hook
  bool pythonBacktrace = false;            // the hook names the Python line of each torch call
  uint32_t pythonBacktraceDepth = 3;       // frames of user code in that name
  uint64_t gpuMetricsIntervalNs = 100'000;  // PM sampling interval (10 kHz)
  std::vector<std::string> gpuMetrics;      // CUPTI metric names; empty or "default": the default set
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
