#include "core/config.h"

#include <algorithm>
#include <cstring>

#include "core/parse.h"

namespace cuptitrace {
namespace {

struct NamedBit {
  const char* name;
  uint32_t bit;
};

constexpr NamedBit kActivities[] = {
    {"kernel", kActivityKernel}, {"memcpy", kActivityMemcpy},   {"memset", kActivityMemset},
    {"runtime", kActivityRuntime}, {"driver", kActivityDriver}, {"nvtx", kActivityNvtx},
    {"sync", kActivitySync},     {"overhead", kActivityOverhead},
};
constexpr NamedBit kFormats[] = {{"json", kFormatJson}, {"csv", kFormatCsv}, {"native", kFormatNative}, {"pftrace", kFormatPftrace}};

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

bool applyMaxBuffers(std::string_view value, Config& c) {
  const auto v = parseUint(value);
  if (!v || *v < 2 || *v > 4096) return false;
  c.maxBuffers = static_cast<uint32_t>(*v);
  return true;
}

bool applyMaxMemory(std::string_view value, Config& c) {
  const auto v = parseSize(value);
  if (!v || *v < (1ull << 20) || *v > (1ull << 40)) return false;
  c.maxMemory = *v;
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

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string quoted(std::string_view value) {
  // Keep messages one line and short, whatever the value holds.
  std::string out = "\"";
  const size_t limit = 64;
  for (size_t i = 0; i < value.size() && i < limit; ++i) {
    const unsigned char ch = static_cast<unsigned char>(value[i]);
    if (ch < 0x20 || ch == 0x7f) out += '?';
    else out += static_cast<char>(ch);
  }
  if (value.size() > limit) out += "...(" + std::to_string(value.size()) + " bytes)";
  return out + "\"";
}

}  // namespace

const std::vector<ConfigVar>& configTable() {
  static const std::vector<ConfigVar> table = {
      {"CUPTITRACE_ACTIVITIES", "list", "default",
       "comma list of kernel, memcpy, memset, runtime, driver, nvtx, sync, overhead, "
       "default (kernel,memcpy,memset,runtime,nvtx), all",
       "Activity kinds to record; every kind not named is off.", applyActivities},
      {"CUPTITRACE_FORMAT", "list", "json", "comma list of json, csv, native, pftrace",
       "Output formats written at exit.", applyFormats},
      {"CUPTITRACE_OUTPUT", "path", "cuptitrace-%h-%p",
       "a path prefix; %h is the host name, %p the process id, %% a percent sign",
       "Prefix of every output file (suffixes: .json, .native, .kernels.csv, ...).", applyOutput},
      {"CUPTITRACE_LOG_LEVEL", "enum", "warn", "off, error, warn, info, debug",
       "How much the library says on stderr.", applyLogLevel},
      {"CUPTITRACE_BUFFER_SIZE", "size", "8M", "a size between 64K and 256M (suffixes K, M, G)",
       "Size of each CUPTI activity buffer.", applyBufferSize},
      {"CUPTITRACE_BUFFER_POOL", "count", "4", "an integer between 1 and 256",
       "CUPTI buffers allocated when tracing starts.", applyBufferPool},
      {"CUPTITRACE_MAX_BUFFERS", "count", "64", "an integer between 2 and 4096",
       "Most CUPTI buffers in use at once; past it CUPTI drops records and they are counted.",
       applyMaxBuffers},
      {"CUPTITRACE_MAX_MEMORY", "size", "512M", "a size between 1M and 1T (suffixes K, M, G, T)",
       "Cap on the memory that stored records take; records past it are dropped and counted.",
       applyMaxMemory},
      {"CUPTITRACE_QUIET", "bool", "0", "1, true, yes, on, 0, false, no, off",
       "Leave out the one-line summary on stderr at exit.", applyQuiet},
      {"CUPTITRACE_OVERWRITE", "bool", "0", "1, true, yes, on, 0, false, no, off",
       "Replace output files that already exist; otherwise they are kept and a message says so.",
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
  };
  return table;
}

Config parseConfig(const EnvLookup& env, std::vector<std::string>& messages) {
  Config config;
  for (const auto& var : configTable()) {
    const bool ok = var.apply(var.defaultValue, config);
    (void)ok;  // defaults are checked by the unit tests
    const char* value = env(var.name);
    if (value == nullptr) continue;
    if (!var.apply(value, config)) {
      messages.push_back(std::string(var.name) + "=" + quoted(value) + " is not valid (accepted: " +
                         var.accepted + "); using the default \"" + var.defaultValue + "\"");
      var.apply(var.defaultValue, config);
    }
  }
  return config;
}

std::vector<std::string> unknownVariableMessages(const char* const* environ) {
  std::vector<std::string> messages;
  if (environ == nullptr) return messages;
  constexpr std::string_view kPrefix = "CUPTITRACE_";
  for (const char* const* e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    if (entry.substr(0, kPrefix.size()) != kPrefix) continue;
    const auto name = entry.substr(0, entry.find('='));
    const auto& table = configTable();
    if (std::any_of(table.begin(), table.end(), [&](const ConfigVar& v) { return name == v.name; }))
      continue;
    const ConfigVar* closest = nullptr;
    size_t best = SIZE_MAX;
    for (const auto& v : table) {
      const size_t d = editDistance(name, v.name);
      if (d < best) { best = d; closest = &v; }
    }
    std::string msg = "unknown variable " + quoted(name) + " is ignored";
    if (closest != nullptr && best <= 4) msg += std::string(" (did you mean ") + closest->name + "?)";
    messages.push_back(msg);
  }
  return messages;
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
      {"CUPTITRACE_MAX_BUFFERS", std::to_string(c.maxBuffers)},
      {"CUPTITRACE_MAX_MEMORY", formatSize(c.maxMemory)},
      {"CUPTITRACE_QUIET", c.quiet ? "1" : "0"},
      {"CUPTITRACE_OVERWRITE", c.overwrite ? "1" : "0"},
      {"CUPTITRACE_SUMMARY", summaryName(c.summary)},
      {"CUPTITRACE_STEP_RANGE", c.stepRange},
      {"CUPTITRACE_COVERAGE", coverageText(c.coverageBasisPoints)},
  };
}

}  // namespace cuptitrace
