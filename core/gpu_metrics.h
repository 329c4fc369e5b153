// GPU metrics: a device's hardware performance monitors sampled at a fixed
// rate while the program runs (CUPTI's PM sampling, collectors/pm_sampling.h),
// as the trace keeps them. No CUPTI here: the catalog of the metrics the
// tracer knows (what each measures, its name on the timeline and in Nsight
// Systems' GPU_METRICS tables), how the default set is chosen, the sampling
// rate, and the text that describes a sample's metric set in the trace's
// strings (GpuMetricRecord::metricSet), which makes every sample readable on
// its own: in a native trace, a spill journal, or a trace merged with others.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuptitrace {

struct Config;

// What a metric measures, for the metrics the reports and findings read.
enum class GpuMetricRole : uint8_t {
  Other = 0,       // a metric asked for by name that the catalog does not know
  GrActive,        // the graphics/compute engine had work
  SmActive,        // SMs with at least one warp resident
  SmIssue,         // warp instructions issued, of the SMs' peak
  TensorActive,    // tensor pipe active cycles, of peak
  DramReadPct,     // DRAM read bandwidth, of peak
  DramWritePct,    // DRAM write bandwidth, of peak
  DramReadBytes,   // DRAM bytes read per second
  DramWriteBytes,  // DRAM bytes written per second
  PcieReadBytes,   // PCIe read bytes per second
  PcieWriteBytes,  // PCIe write bytes per second
  NvlinkRxBytes,   // NVLink bytes received per second
  NvlinkTxBytes,   // NVLink bytes sent per second
  GpcClock,        // the GPC (SM) clock
};

// One metric of a set, as the trace keeps it.
struct GpuMetric {
  std::string name;   // CUPTI's name: "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"
  std::string label;  // "SMs Active"
  std::string unit;   // "Throughput %", "bytes/s", "MHz", or CUPTI's dimension for unknown metrics
  GpuMetricRole role = GpuMetricRole::Other;
  // What CUPTI's value is multiplied by before it is stored (Hz to MHz: 1e-6).
  double scale = 1.0;
  // Nsight Systems' metric name: "SMs Active [Throughput %]". The name of its
  // counter track in both timeline formats and its metricName in SQLite.
  std::string displayName() const { return label + " [" + unit + "]"; }
};

// One role of the catalog: its label, unit, and the CUPTI metrics that
// measure it, best first (chips name some differently: DRAM bandwidth is
// dramc__ on Hopper, dram__ elsewhere).
struct GpuMetricRoleInfo {
  GpuMetricRole role;
  const char* label;
  const char* unit;
  double scale;
  std::vector<const char*> candidates;
};

// Every role, in the order of the default set. A role may have several
// entries in a row (candidates whose values need different scales); the
// default set takes the first candidate that fits, across them.
const std::vector<GpuMetricRoleInfo>& gpuMetricCatalog();

// The metric named so: the catalog's role, label and unit when it knows the
// name, else the name itself as label and a unit read from its suffix
// (".pct..." percent, ".per_second" per second, ...).
GpuMetric describeGpuMetric(std::string_view cuptiName);

// The default set for one device: for each role in catalog order, the first
// candidate that `fits` accepts with the metrics already chosen (fits(set) is
// true when the device knows every metric of `set` and collects them in one
// pass). Roles none of whose candidates fit are left out (NVLink on a chip
// without it).
std::vector<std::string> chooseDefaultGpuMetrics(
    const std::function<bool(const std::vector<std::string>&)>& fits);

// The text of a metric set in the trace's strings, and back. decode gives an
// empty list for text that is not a metric set.
std::string encodeGpuMetricSet(const std::vector<GpuMetric>& metrics);
std::vector<GpuMetric> decodeGpuMetricSet(std::string_view text);

// ---- Configuration ------------------------------------------------------------

// The sampling interval the hardware's time trigger takes, and the default.
inline constexpr uint64_t kGpuMetricsMinIntervalNs = 1'000;          // 1 MHz
inline constexpr uint64_t kGpuMetricsMaxIntervalNs = 1'000'000'000;  // 1 Hz
inline constexpr uint64_t kGpuMetricsDefaultIntervalNs = 100'000;    // 10 kHz

// A sampling rate: a frequency ("10kHz", "500Hz", "1MHz"; a bare number is
// Hz, as nsys takes it) or a period ("100us", "1ms"). The sampling interval in
// ns; nullopt outside the range above or for anything else.
std::optional<uint64_t> parseGpuMetricsRate(std::string_view text);
// "10kHz" style text for an interval.
std::string gpuMetricsRateText(uint64_t intervalNs);

// A list of CUPTI metric names, comma separated ("default" stands for the
// default set, which the names then follow); nullopt for a name with
// characters no metric name has. At most kGpuMetricSlots names.
std::optional<std::vector<std::string>> parseGpuMetricList(std::string_view text);

// The configuration table's parsers (core/config.cpp) and the list as text.
bool applyGpuMetricsRate(std::string_view value, Config& config);
bool applyGpuMetricsList(std::string_view value, Config& config);
std::string gpuMetricListText(const std::vector<std::string>& names);

}  // namespace cuptitrace
