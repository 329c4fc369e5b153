#include "core/config.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/config_python.h"
#include "core/gpu_metrics.h"
#include "core/kernel_filter.h"
#include "core/file_output.h"
#include "core/output_name.h"
#include "core/parse.h"
#include "core/writer_threads.h"

namespace cuptitrace {
namespace {

struct NamedBit {
  const char* name;
  uint32_t bit;
};

constexpr NamedBit kActivities[] = {
    {"kernel", kActivityKernel}, {"memcpy", kActivityMemcpy},   {"memset", kActivityMemset},
    {"runtime", kActivityRuntime}, {"driver", kActivityDriver}, {"nvtx", kActivityNvtx},
    {"sync", kActivitySync},     {"overhead", kActivityOverhead}, {"memory", kActivityMemory},
    {"uvm", kActivityUvm},       {"api", kActivityApi},       {"osrt", kActivityOsrt},
    {"openacc", kActivityOpenAcc}, {"gpu_metrics", kActivityGpuMetrics},
};
constexpr NamedBit kFormats[] = {{"json", kFormatJson}, {"csv", kFormatCsv}, {"native", kFormatNative}, {"pftrace", kFormatPftrace}, {"json.gz", kFormatJsonGz}, {"sqlite", kFormatSqlite}, {"html", kFormatHtml}};

template <size_t N>
std::string namesOf(uint32_t mask, const NamedBit (&table)[N]) {
  std::string out;
  for (const auto& e : table) {
    if (!(mask & e.bit)) continue;
    if (!out.empty()) out += ',';
    out += e.name;
  }
  return out;
}

bool applyActivities(std::string_view value, Config& c) {
  uint32_t mask = 0;
  const auto items = splitList(value);
  if (items.empty()) return false;
  for (const auto& item : items) {
    if (item == "default") { mask |= kActivityDefault; continue; }
    if (item == "all") { mask |= kActivityAll; continue; }
    const auto* it = std::find_if(std::begin(kActivities), std::end(kActivities),
                                  [&](const NamedBit& e) { return item == e.name; });
    if (it == std::end(kActivities)) return false;
    mask |= it->bit;
  }
  c.activities = mask;
  return true;
}

bool applyFormats(std::string_view value, Config& c) {
  uint32_t mask = 0;
  const auto items = splitList(value);
  if (items.empty()) return false;
  for (const auto& item : items) {
    const auto* it = std::find_if(std::begin(kFormats), std::end(kFormats),
                                  [&](const NamedBit& e) { return item == e.name; });
    if (it == std::end(kFormats)) return false;
    mask |= it->bit;
  }
  c.formats = mask;
  return true;
}

bool applyOutput(std::string_view value, Config& c) {
  if (value.empty() || value.size() > 4000 || value.back() == '/') return false;
  if (value.find('\0') != std::string_view::npos) return false;
  if (!checkOutputTemplate(value)) return false;
  c.output = std::string(value);
  return true;
}

bool applyLogLevel(std::string_view value, Config& c) {
  const auto items = splitList(value);
  if (items.size() != 1) return false;
  const auto& v = items[0];
  if (v == "off") c.logLevel = LogLevel::Off;
  else if (v == "error") c.logLevel = LogLevel::Error;
  else if (v == "warn") c.logLevel = LogLevel::Warn;
  else if (v == "info") c.logLevel = LogLevel::Info;
  else if (v == "debug") c.logLevel = LogLevel::Debug;
  else return false;
  return true;
}

bool applyBufferSize(std::string_view value, Config& c) {
  const auto v = parseSize(value);
  if (!v || *v < (64ull << 10) || *v > (256ull << 20)) return false;
  c.bufferSize = *v;
  return true;
}

bool applyBufferPool(std::string_view value, Config& c) {
  const auto v = parseUint(value);
  if (!v || *v < 1 || *v > 256) return false;
  c.bufferPool = static_cast<uint32_t>(*v);
  return true;
}

bool applyBufferMemory(std::string_view value, Config& c) {
  const auto v = parseSize(value);
  if (!v || *v < (1ull << 20) || *v > (16ull << 30)) return false;
  c.bufferMemory = *v;
  return true;
}

bool applyMaxMemory(std::string_view value, Config& c) {
  const auto v = parseSize(value);
  if (!v || *v < (1ull << 20) || *v > (1ull << 40)) return false;
  c.maxMemory = *v;
  return true;
}

bool applySpill(std::string_view value, Config& c) {
  const auto items = splitList(value);
  if (items.size() != 1) return false;
  if (items[0] == "auto") c.spill = SpillMode::Auto;
  else if (items[0] == "always") c.spill = SpillMode::Always;
  else if (items[0] == "off") c.spill = SpillMode::Off;
  else return false;
  return true;
}

bool applyQuiet(std::string_view value, Config& c) {
  const auto v = parseBool(value);
  if (!v) return false;
  c.quiet = *v;
  return true;
}

bool applyOverwrite(std::string_view value, Config& c) {
  const auto v = parseBool(value);
  if (!v) return false;
  c.overwrite = *v;
  return true;
}

bool applySummary(std::string_view value, Config& c) {
  const auto items = splitList(value);
  if (items.size() != 1) return false;
  const auto& v = items[0];
  if (v == "stderr") c.summary = SummaryMode::Stderr;
  else if (v == "file") c.summary = SummaryMode::File;
  else if (v == "none") c.summary = SummaryMode::None;
  else return false;
  return true;
}

// Longest NVTX range name accepted for CUPTITRACE_STEP_RANGE.
constexpr size_t kMaxStepRangeBytes = 256;

bool applyStepRange(std::string_view value, Config& c) {
  // Any range name, empty for none; not control characters (a stray newline
  // in the environment is a mistake, not a range name).
  if (value.size() > kMaxStepRangeBytes) return false;
  for (const char ch : value) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7f) return false;
  }
  c.stepRange = std::string(value);
  return true;
}

// A percentage between 1 and 100 with at most two decimals ("90", "99.5",
// "99.95"), kept exactly as hundredths of a percent.
bool applyCoverage(std::string_view value, Config& c) {
  const size_t dot = value.find('.');
  const std::string_view whole = value.substr(0, dot);
  if (whole.empty() || whole.size() > 3) return false;
  uint64_t hundredths = 0;
  for (const char ch : whole) {
    if (ch < '0' || ch > '9') return false;
    hundredths = hundredths * 10 + static_cast<uint64_t>(ch - '0');
  }
  hundredths *= 100;
  if (dot != std::string_view::npos) {
    const std::string_view frac = value.substr(dot + 1);
    if (frac.empty() || frac.size() > 2) return false;
    for (const char ch : frac)
      if (ch < '0' || ch > '9') return false;
    hundredths += static_cast<uint64_t>(frac[0] - '0') * 10 +
                  (frac.size() == 2 ? static_cast<uint64_t>(frac[1] - '0') : 0);
  }
  if (hundredths < 100 || hundredths > 10000) return false;
  c.coverageBasisPoints = static_cast<uint32_t>(hundredths);
  return true;
}

bool applyCapture(std::string_view value, Config& c) {
  auto spec = parseCaptureSpec(value);
  if (!spec) return false;
  c.capture = std::move(*spec);
  return true;
}

bool applyKernelInclude(std::string_view value, Config& c) {
  if (!validKernelPattern(value)) return false;
  c.kernelInclude = std::string(value);
  return true;
}

bool applyKernelExclude(std::string_view value, Config& c) {
  if (!validKernelPattern(value)) return false;
  c.kernelExclude = std::string(value);
  return true;
}

bool applyGraphs(std::string_view value, Config& c) {
  const auto items = splitList(value);
  if (items.size() != 1) return false;
  if (items[0] == "node") c.graphs = GraphMode::Node;
  else if (items[0] == "graph") c.graphs = GraphMode::Graph;
  else return false;
  return true;
}

// Longest osrt threshold: a call blocked this long is worth seeing whatever it is.
constexpr uint64_t kMaxOsrtThresholdNs = 10'000'000'000ull;

// Whole nanoseconds, microseconds, milliseconds or seconds ("1us", "500ns",
// "2ms"); a bare number is nanoseconds, as nsys takes it.
bool applyOsrtThreshold(std::string_view value, Config& c) {
  const auto ns = parseDurationNs(value);
  if (!ns || *ns > kMaxOsrtThresholdNs) return false;
  c.osrtThresholdNs = *ns;
  return true;
}

// The journal's period: shorter ones would have CUPTI flushed and the
// journal written more often than that costs is worth; longer ones are
// hardly a bound.
constexpr uint64_t kMinJournalPeriodNs = 10'000'000ull;
constexpr uint64_t kMaxJournalPeriodNs = 3'600'000'000'000ull;

bool applyJournalPeriod(std::string_view value, Config& c) {
  const auto items = splitList(value);
  if (items.size() == 1 && (items[0] == "0" || items[0] == "off")) {
    c.journalPeriodNs = 0;
    return true;
  }
  const auto ns = parseDurationNs(value);
  if (!ns || *ns < kMinJournalPeriodNs || *ns > kMaxJournalPeriodNs) return false;
  c.journalPeriodNs = *ns;
  return true;
}

// Smallest and largest part for CUPTITRACE_SPLIT: smaller parts would be
// thousands of files; a larger one is more than Perfetto's UI loads.
constexpr uint64_t kMinSplitBytes = 1ull << 20;
constexpr uint64_t kMaxSplitBytes = 1ull << 40;

bool applySplit(std::string_view value, Config& c) {
  const auto items = splitList(value);
  if (items.size() == 1 && (items[0] == "0" || items[0] == "off")) {
    c.splitBytes = 0;
    return true;
  }
  const auto v = parseSize(value);
  if (!v || *v < kMinSplitBytes || *v > kMaxSplitBytes) return false;
  c.splitBytes = *v;
  return true;
}

// Read where the outputs are written (writerThreads(), each time: the
// command sets it from its flags); here only checked, so that a bad value
// is named at start-up.
bool applyWriterThreads(std::string_view value, Config&) { return parseWriterThreads(value).has_value(); }
// Read where the files are written (core/file_output.h); checked here.
bool applySync(std::string_view value, Config&) { return parseBool(value).has_value(); }
// Read by the SQLite writer (exporters/sqlite/sqlite.h); checked here.
bool applySqliteIndexes(std::string_view value, Config&) { return parseBool(value).has_value(); }

// As set (and accepted), else 0.
std::string sqliteIndexesText() {
  const char* value = std::getenv("CUPTITRACE_SQLITE_INDEXES");
  return value != nullptr && parseBool(value).value_or(false) ? "1" : "0";
}

// As set (and accepted), else auto.
std::string writerThreadsText() {
  const char* value = std::getenv("CUPTITRACE_WRITER_THREADS");
  const std::optional<uint32_t> n = value != nullptr ? parseWriterThreads(value) : std::nullopt;
  return n && *n != 0 ? std::to_string(*n) : "auto";
}

std::string coverageText(uint32_t bp) {
  std::string s = std::to_string(bp / 100);
  if (const uint32_t frac = bp % 100) {
    s += '.';
    s += static_cast<char>('0' + frac / 10);
    if (frac % 10) s += static_cast<char>('0' + frac % 10);
  }
  return s;
}

const char* summaryName(SummaryMode m) {
  switch (m) {
    case SummaryMode::Stderr: return "stderr";
    case SummaryMode::File: return "file";
    case SummaryMode::None: return "none";
  }
  return "stderr";
}

const char* levelName(LogLevel l) {
  switch (l) {
    case LogLevel::Off: return "off";
    case LogLevel::Error: return "error";
    case LogLevel::Warn: return "warn";
    case LogLevel::Info: return "info";
    case LogLevel::Debug: return "debug";
  }
  return "warn";
}

}  // namespace

const std::vector<ConfigVar>& configTable() {
  static const std::vector<ConfigVar> table = {
      {"CUPTITRACE_ACTIVITIES", "list", "default",
       "comma list of kernel, memcpy, memset, api, runtime, driver, nvtx, sync, overhead, memory, uvm, "
       "openacc, osrt, gpu_metrics, default (kernel,memcpy,memset,api,nvtx,openacc), all (every kind but "
       "osrt and gpu_metrics)",
       "Activity kinds to record; every kind not named is off. api records the runtime and driver "
       "calls that launch, copy, set, wait for, allocate or free GPU work and memory (the lean set: "
       "queries such as cudaGetDevice are left out); runtime and driver record every call of their API. "
       "openacc records OpenACC runtime events where an OpenACC runtime loads the library through "
       "ACC_PROFLIB (cuptitrace sets it); it costs nothing in other programs. gpu_metrics samples each "
       "device's performance counters (SM, tensor, DRAM, PCIe, NVLink) at CUPTITRACE_GPU_METRICS_RATE.",
       applyActivities},
      {"CUPTITRACE_FORMAT", "list", "json", "comma list of json, json.gz, csv, native, pftrace, sqlite, html",
       "Output formats written at exit (json.gz: the JSON, gzip-compressed as it is written; sqlite: "
       "PREFIX.sqlite, tables as Nsight Systems exports them; html: PREFIX.html, the reports as charts "
       "in one page that opens offline).",
       applyFormats},
      {"CUPTITRACE_OUTPUT", "path", "cuptitrace-%h-%p",
       "a path prefix; %h is the host name, %p the process id, %r the rank (torchrun, MPI, Slurm; "
       "pid<PID> without one), %q{VAR} the value of environment "
       "variable VAR (empty when unset), %n the smallest number not yet used by a trace of that prefix, "
       "%% a percent sign",
       "Prefix of every output file (suffixes: .json, .native, .kernels.csv, ...).", applyOutput},
      {"CUPTITRACE_LOG_LEVEL", "enum", "warn", "off, error, warn, info, debug",
       "How much the library says on stderr.", applyLogLevel},
      {"CUPTITRACE_BUFFER_SIZE", "size", "8M", "a size between 64K and 256M (suffixes K, M, G)",
       "Size of each CUPTI activity buffer.", applyBufferSize},
      {"CUPTITRACE_BUFFER_POOL", "count", "4", "an integer between 1 and 256",
       "CUPTI buffers allocated when tracing starts.", applyBufferPool},
      {"CUPTITRACE_BUFFER_MEMORY", "size", "256M", "a size between 1M and 16G (suffixes K, M, G)",
       "Most memory CUPTI activity buffers take at once. Every thread that makes CUDA calls holds a "
       "buffer of its own: the first are CUPTITRACE_BUFFER_SIZE, later ones smaller (down to 64K) as "
       "this fills, so hundreds of threads each get one; past it CUPTI drops records and they are counted.",
       applyBufferMemory},
      {"CUPTITRACE_MAX_MEMORY", "size", "512M", "a size between 1M and 1T (suffixes K, M, G, T)",
       "Cap on the tracer's memory: stored records, their strings and NVTX state, with a sixteenth (at "
       "most 32M) kept for CUPTI's own; past it the oldest records and strings go to the spill file "
       "(CUPTITRACE_SPILL), or, when there is none, records are dropped and counted.",
       applyMaxMemory},
      {"CUPTITRACE_SPILL", "enum", "auto", "auto, always, off",
       "Spill file PREFIX.spill: auto writes records there past CUPTITRACE_MAX_MEMORY; always writes "
       "every 4096 records of a kind as they come, and the rest every CUPTITRACE_JOURNAL_PERIOD, so a killed "
       "run leaves them for `cuptitrace recover`; "
       "off drops records past the cap. It is deleted once the outputs are written.",
       applySpill},
      {"CUPTITRACE_JOURNAL_PERIOD", "duration", "1s",
       "0 or off (full chunks only), or a whole number of ms or s from 10ms to 1h (like 500ms, 2s)",
       "With CUPTITRACE_SPILL=always: how often the records of chunks still filling go to the spill "
       "file too (and CUPTI is asked for what it holds), so a killed run loses at most about this "
       "much to `cuptitrace recover`; written, not flushed to disk: a crash of the machine may lose more.",
       applyJournalPeriod},
      {"CUPTITRACE_QUIET", "bool", "0", "1, true, yes, on, 0, false, no, off",
       "Leave out the one-line summary on stderr at exit.", applyQuiet},
      {"CUPTITRACE_OVERWRITE", "bool", "0", "1, true, yes, on, 0, false, no, off",
       "Replace output files that already exist; otherwise they are kept, the trace is written under PREFIX.PID "
       "instead and a message says so.",
       applyOverwrite},
      {"CUPTITRACE_SUMMARY", "enum", "stderr", "stderr, file, none",
       "Reports at exit: stderr prints the top GPU activities and API calls and writes every report "
       "to PREFIX.reports.txt; file only writes the file; none neither.",
       applySummary},
      {"CUPTITRACE_STEP_RANGE", "text", "",
       "an NVTX range name (ranges named so, or starting with it, like ProfilerStep#3), or empty",
       "NVTX range that marks steps: the time breakdown report gets one row per step.",
       applyStepRange},
      {"CUPTITRACE_COVERAGE", "percent", "90", "a percentage between 1 and 100, up to two decimals",
       "Share of the time the coverage report covers with the fewest kernels and API calls.",
       applyCoverage},
      {"CUPTITRACE_SPLIT", "size", "0", "0 or off (one file per format), or a size between 1M and 1T (suffixes K, M, G, T)",
       "Split the timeline outputs (JSON, json.gz, pftrace, CSV) by time into parts of about this much "
       "JSON each, PREFIX.1.json, PREFIX.2.json, ..., each complete on its own; native and reports stay whole.",
       applySplit},
      {"CUPTITRACE_CAPTURE", "window", "all",
       "all; profiler (between cudaProfilerStart and cudaProfilerStop, repeatable); nvtx:NAME (each "
       "NVTX range named NAME; NAME* for names starting so), nvtx:NAME@N, nvtx:NAME@N-M or "
       "nvtx:NAME@N- (the N-th to M-th such range); time:DELAY[+DURATION] (like time:10s+2s, "
       "units ns, us, ms, s, m, h); signal[:NAME] (each SIGUSR2, or USR1, RTMIN+N, toggles)",
       "When collection is on; outside the windows nothing is recorded (see Capture windows).",
       applyCapture},
      {"CUPTITRACE_KERNEL_INCLUDE", "regex", "",
       "an ECMAScript regular expression, searched in demangled kernel names, or empty",
       "Record only the kernels whose name matches, and their launch calls.", applyKernelInclude},
      {"CUPTITRACE_KERNEL_EXCLUDE", "regex", "",
       "an ECMAScript regular expression, searched in demangled kernel names, or empty",
       "Leave out the kernels whose name matches, and their launch calls (counted as filtered).",
       applyKernelExclude},
      {"CUPTITRACE_GRAPHS", "enum", "node", "node, graph",
       "CUDA graphs: node records every kernel, copy and set a graph runs (with its graph and node "
       "ids); graph records one slice per graph launch, which costs less.",
       applyGraphs},
      {"CUPTITRACE_OSRT_THRESHOLD", "duration", "1us",
       "a whole number of ns, us, ms or s up to 10s (a bare number is ns)",
       "With the osrt activity: C library calls that blocked for less than this are not recorded.",
       applyOsrtThreshold},
      {"CUPTITRACE_PYTORCH", "enum", "off", "off, ops, shapes",
       "PyTorch programs record their operators as NVTX ranges (shapes: with their input shapes), "
       "through a Python start-up hook the command puts on PYTHONPATH; the operators report sums them.",
       config_python::applyPytorch},
      {"CUPTITRACE_PYTHON_BACKTRACE", "bool", "0", "1, true, yes, on, 0, false, no, off",
       "PyTorch programs: each torch call made from Python names its line of user code (the "
       "innermost frames), shown on the CUDA calls it makes and their kernels.",
       config_python::applyPythonBacktrace},
      {"CUPTITRACE_PYTHON_BACKTRACE_DEPTH", "count", "3", "a whole number from 1 to 64",
       "Frames of user code in each Python line of CUPTITRACE_PYTHON_BACKTRACE.",
       config_python::applyPythonBacktraceDepth},
      {"CUPTITRACE_GPU_METRICS_RATE", "rate", "10kHz",
       "a frequency from 1Hz to 1MHz (like 10kHz, 500Hz; a bare number is Hz) or a period from 1us to 1s "
       "(like 100us)",
       "With the gpu_metrics activity: how often each device's performance counters are sampled.",
       applyGpuMetricsRate},
      {"CUPTITRACE_GPU_METRICS_LIST", "list", "",
       "empty or default (the default set), or a comma list of up to 16 CUPTI metric names (default "
       "among them stands for the default set)",
       "With the gpu_metrics activity: the metrics sampled; a name the device does not know is refused "
       "with the names it knows.",
       applyGpuMetricsList},
      {"CUPTITRACE_WRITER_THREADS", "count", "auto",
       "auto or 0 (the cores the process may use: its CPU affinity and cgroup CPU quota), or a whole number "
       "from 1 to 256",
       "Threads that write the outputs at exit and in `cuptitrace convert` and `merge`: the files at once, "
       "each JSON window and large CSV table in pieces, the SQLite database's large tables in pieces from 4 "
       "threads on, threads for the write calls; 1 writes on one thread. The files are the same whatever the "
       "number (the SQLite database: the same rows, not the same pages).",
       applyWriterThreads},
      {"CUPTITRACE_SYNC", "bool", "0", "1, true, yes, on, 0, false, no, off",
       "1: each output file reaches the disk (fsync) before it gets its name, so it survives a power loss "
       "right after the program ends; the exit then waits for the disk. 0: the files are complete in the "
       "page cache when named and the kernel writes them out in the background.",
       applySync},
      {"CUPTITRACE_SQLITE_INDEXES", "bool", "0", "1, true, yes, on, 0, false, no, off",
       "1: the SQLite database gets its indexes (API calls by correlation id, NVTX events by start, GPU metrics "
       "by metric and time), at exit and in `cuptitrace convert` and `merge`; each is a sort of its table on "
       "one thread after the rows (at exit, about 0.15 s per million API calls). 0: none, as Nsight's export; "
       "a query joining on them has SQLite build an index for itself.",
       applySqliteIndexes},
  };
  return table;
}

std::string activityNames(uint32_t mask) { return namesOf(mask, kActivities); }
std::string formatNames(uint32_t mask) { return namesOf(mask, kFormats); }

std::vector<std::pair<std::string, std::string>> describeConfig(const Config& c) {
  return {
      {"CUPTITRACE_ACTIVITIES", activityNames(c.activities)},
      {"CUPTITRACE_FORMAT", formatNames(c.formats)},
      {"CUPTITRACE_OUTPUT", c.output},
      {"CUPTITRACE_LOG_LEVEL", levelName(c.logLevel)},
      {"CUPTITRACE_BUFFER_SIZE", formatSize(c.bufferSize)},
      {"CUPTITRACE_BUFFER_POOL", std::to_string(c.bufferPool)},
      {"CUPTITRACE_BUFFER_MEMORY", formatSize(c.bufferMemory)},
      {"CUPTITRACE_MAX_MEMORY", formatSize(c.maxMemory)},
      {"CUPTITRACE_SPILL", spillModeName(c.spill)},
      {"CUPTITRACE_JOURNAL_PERIOD", c.journalPeriodNs == 0 ? "0" : formatDuration(c.journalPeriodNs)},
      {"CUPTITRACE_QUIET", c.quiet ? "1" : "0"},
      {"CUPTITRACE_OVERWRITE", c.overwrite ? "1" : "0"},
      {"CUPTITRACE_SUMMARY", summaryName(c.summary)},
      {"CUPTITRACE_STEP_RANGE", c.stepRange},
      {"CUPTITRACE_COVERAGE", coverageText(c.coverageBasisPoints)},
      {"CUPTITRACE_SPLIT", formatSize(c.splitBytes)},
      {"CUPTITRACE_CAPTURE", captureSpecText(c.capture)},
      {"CUPTITRACE_KERNEL_INCLUDE", c.kernelInclude},
      {"CUPTITRACE_KERNEL_EXCLUDE", c.kernelExclude},
      {"CUPTITRACE_GRAPHS", c.graphs == GraphMode::Graph ? "graph" : "node"},
      {"CUPTITRACE_OSRT_THRESHOLD", formatDuration(c.osrtThresholdNs)},
      {"CUPTITRACE_PYTORCH", config_python::pytorchName(c.pytorch)},
      {"CUPTITRACE_PYTHON_BACKTRACE", c.pythonBacktrace ? "1" : "0"},
      {"CUPTITRACE_PYTHON_BACKTRACE_DEPTH", std::to_string(c.pythonBacktraceDepth)},
      {"CUPTITRACE_GPU_METRICS_RATE", gpuMetricsRateText(c.gpuMetricsIntervalNs)},
      {"CUPTITRACE_GPU_METRICS_LIST", gpuMetricListText(c.gpuMetrics)},
      {"CUPTITRACE_WRITER_THREADS", writerThreadsText()},
      {"CUPTITRACE_SYNC", syncOutputs() ? "1" : "0"},
      {"CUPTITRACE_SQLITE_INDEXES", sqliteIndexesText()},
  };
}

}  // namespace cuptitrace
