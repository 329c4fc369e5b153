#include "core/gpu_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/config.h"
#include "core/parse.h"
#include "core/records.h"

namespace cuptitrace {
namespace {

constexpr std::string_view kSetMagic = "gpu-metrics/1\n";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Letters, digits and the punctuation of CUPTI's names
// ("TPC.TriageCompute.sm__cycles_active.avg.pct_of_peak_sustained_elapsed").
bool metricNameChars(std::string_view s) {
  if (s.empty() || s.size() > 200) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.';
  });
}

}  // namespace

const std::vector<GpuMetricRoleInfo>& gpuMetricCatalog() {
  // Labels and units are Nsight Systems' where it has the metric, so queries
  // written for its export find them by name.
  // Never destroyed: the sampling thread may read it while the program's exit
  // runs static destructors.
  static const std::vector<GpuMetricRoleInfo>& catalog = *new std::vector<GpuMetricRoleInfo>{
      {GpuMetricRole::GrActive,
       "GR Active",
       "Throughput %",
       1.0,
       {"gr__cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {GpuMetricRole::SmActive,
       "SMs Active",
       "Throughput %",
       1.0,
       {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed"}},
      {GpuMetricRole::SmIssue,
       "SM Issue",
       "Throughput %",
       1.0,
       {"sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
        "sm__inst_executed.avg.pct_of_peak_sustained_elapsed"}},
      {GpuMetricRole::TensorActive,
       "Tensor Active",
       "Throughput %",
       1.0,
       {"sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_tensor_op_hmma_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"}},
      // DRAM bandwidth, of peak: the bytes' own percent of peak first. The
      // dramc__ throughputs evaluate to a fraction, not a percent, on GH100
      // (0.53 for 1.43 TB/s read on the lent H100): scaled to percent.
      {GpuMetricRole::DramReadPct, "DRAM Read Bandwidth", "Throughput %", 1.0,
       {"dram__bytes_read.sum.pct_of_peak_sustained_elapsed",
        "dram__read_throughput.avg.pct_of_peak_sustained_elapsed"}},
      {GpuMetricRole::DramWritePct, "DRAM Write Bandwidth", "Throughput %", 1.0,
       {"dram__bytes_write.sum.pct_of_peak_sustained_elapsed",
        "dram__write_throughput.avg.pct_of_peak_sustained_elapsed"}},
      {GpuMetricRole::DramReadPct, "DRAM Read Bandwidth", "Throughput %", 100.0,
       {"dramc__read_throughput.avg.pct_of_peak_sustained_elapsed"}},
      {GpuMetricRole::DramWritePct, "DRAM Write Bandwidth", "Throughput %", 100.0,
       {"dramc__write_throughput.avg.pct_of_peak_sustained_elapsed"}},
      {GpuMetricRole::DramReadBytes,
       "DRAM Read Throughput",
       "bytes/s",
       1.0,
       {"dram__bytes_read.sum.per_second"}},
      {GpuMetricRole::DramWriteBytes,
       "DRAM Write Throughput",
       "bytes/s",
       1.0,
       {"dram__bytes_write.sum.per_second"}},
      {GpuMetricRole::PcieReadBytes,
       "PCIe Read Throughput",
       "bytes/s",
       1.0,
       {"pcie__read_bytes.sum.per_second"}},
      {GpuMetricRole::PcieWriteBytes,
       "PCIe Write Throughput",
       "bytes/s",
       1.0,
       {"pcie__write_bytes.sum.per_second"}},
      {GpuMetricRole::NvlinkRxBytes,
       "NVLink RX Throughput",
       "bytes/s",
       1.0,
       {"nvlrx__bytes.sum.per_second"}},
      {GpuMetricRole::NvlinkTxBytes,
       "NVLink TX Throughput",
       "bytes/s",
       1.0,
       {"nvltx__bytes.sum.per_second"}},
      {GpuMetricRole::GpcClock,
       "GPC Clock Frequency",
       "MHz",
       1e-6,
       {"gpc__cycles_elapsed.avg.per_second"}},
  };
  return catalog;
}

GpuMetric describeGpuMetric(std::string_view cuptiName) {
  GpuMetric m;
  m.name = std::string(cuptiName);
  for (const GpuMetricRoleInfo& r : gpuMetricCatalog())
    for (const char* c : r.candidates)
      if (cuptiName == c) {
        m.label = r.label;
        m.unit = r.unit;
        m.role = r.role;
        m.scale = r.scale;
        return m;
      }
  m.label = m.name;
  if (cuptiName.find(".pct") != std::string_view::npos)
    m.unit = "%";
  else if (endsWith(cuptiName, ".per_second"))
    m.unit = cuptiName.find("bytes") != std::string_view::npos ? "bytes/s" : "/s";
  else if (endsWith(cuptiName, ".ratio") || endsWith(cuptiName, ".per_cycle_elapsed") ||
           endsWith(cuptiName, ".per_cycle_active"))
    m.unit = "ratio";
  else
    m.unit = "value";
  return m;
}

std::vector<std::string> chooseDefaultGpuMetrics(
    const std::function<bool(const std::vector<std::string>&)>& fits) {
  std::vector<std::string> chosen;
  std::vector<GpuMetricRole> roles;  // those chosen: a role may have several entries, in order
  for (const GpuMetricRoleInfo& r : gpuMetricCatalog()) {
    if (chosen.size() >= static_cast<size_t>(kGpuMetricSlots)) break;
    if (std::find(roles.begin(), roles.end(), r.role) != roles.end()) continue;
    for (const char* c : r.candidates) {
      std::vector<std::string> trial = chosen;
      trial.emplace_back(c);
      if (fits(trial)) {
        chosen = std::move(trial);
        roles.push_back(r.role);
        break;
      }
    }
  }
  return chosen;
}

std::string encodeGpuMetricSet(const std::vector<GpuMetric>& metrics) {
  std::string text(kSetMagic);
  for (const GpuMetric& m : metrics) {
    text += m.name;
    text += '\t';
    text += m.label;
    text += '\t';
    text += m.unit;
    text += '\n';
  }
  return text;
}

std::vector<GpuMetric> decodeGpuMetricSet(std::string_view text) {
  std::vector<GpuMetric> out;
  if (text.substr(0, kSetMagic.size()) != kSetMagic) return out;
  text.remove_prefix(kSetMagic.size());
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const size_t t1 = line.find('\t');
    const size_t t2 = t1 == std::string_view::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string_view::npos) return {};
    // Role and scale come from the name; label and unit as written.
    GpuMetric m = describeGpuMetric(line.substr(0, t1));
    m.label = std::string(line.substr(t1 + 1, t2 - t1 - 1));
    m.unit = std::string(line.substr(t2 + 1));
    out.push_back(std::move(m));
    if (out.size() > static_cast<size_t>(kGpuMetricSlots)) return {};
  }
  return out;
}

std::optional<uint64_t> parseGpuMetricsRate(std::string_view text) {
  std::string s(trim(text));
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::optional<uint64_t> interval;
  double hz = 0;
  auto number = [](std::string_view digits) -> std::optional<uint64_t> {
    return parseUint(digits);
  };
  if (endsWith(lower, "mhz")) {
    if (auto v = number(std::string_view(lower).substr(0, lower.size() - 3)))
      hz = static_cast<double>(*v) * 1e6;
  } else if (endsWith(lower, "khz")) {
    if (auto v = number(std::string_view(lower).substr(0, lower.size() - 3)))
      hz = static_cast<double>(*v) * 1e3;
  } else if (endsWith(lower, "hz")) {
    if (auto v = number(std::string_view(lower).substr(0, lower.size() - 2)))
      hz = static_cast<double>(*v);
  } else if (auto v = number(lower)) {
    hz = static_cast<double>(*v);  // a bare number is a frequency
  } else {
    interval = parseDurationNs(lower);
    if (!interval) return std::nullopt;
  }
  if (!interval) {
    if (!(hz > 0)) return std::nullopt;
    interval = static_cast<uint64_t>(std::llround(1e9 / hz));
  }
  if (*interval < kGpuMetricsMinIntervalNs || *interval > kGpuMetricsMaxIntervalNs)
    return std::nullopt;
  return interval;
}

std::string gpuMetricsRateText(uint64_t intervalNs) {
  if (intervalNs == 0) return "0";
  if (1'000'000'000 % intervalNs == 0) {
    const uint64_t hz = 1'000'000'000 / intervalNs;
    if (hz % 1'000'000 == 0) return std::to_string(hz / 1'000'000) + "MHz";
    if (hz % 1'000 == 0) return std::to_string(hz / 1'000) + "kHz";
    return std::to_string(hz) + "Hz";
  }
  return formatDuration(intervalNs);
}

std::optional<std::vector<std::string>> parseGpuMetricList(std::string_view text) {
  std::vector<std::string> names;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    if (!item.empty()) {
      if (item != "default" && !metricNameChars(item)) return std::nullopt;
      if (std::find(names.begin(), names.end(), item) == names.end()) names.emplace_back(item);
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (names.size() > static_cast<size_t>(kGpuMetricSlots)) return std::nullopt;
  return names;
}

bool applyGpuMetricsRate(std::string_view value, Config& c) {
  const auto ns = parseGpuMetricsRate(value);
  if (!ns) return false;
  c.gpuMetricsIntervalNs = *ns;
  return true;
}

bool applyGpuMetricsList(std::string_view value, Config& c) {
  auto names = parseGpuMetricList(value);
  if (!names) return false;
  c.gpuMetrics = std::move(*names);
  return true;
}

std::string gpuMetricListText(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace cuptitrace
