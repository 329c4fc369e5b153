#include "reports/report_gpu_metrics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "core/gpu_metrics.h"

namespace cuptitrace::reports {
namespace {

// The roles a row shows, in column order.
constexpr std::array kRoles = {GpuMetricRole::SmActive,      GpuMetricRole::SmIssue,
                               GpuMetricRole::TensorActive,  GpuMetricRole::DramReadPct,
                               GpuMetricRole::DramWritePct,  GpuMetricRole::DramReadBytes,
                               GpuMetricRole::DramWriteBytes};
constexpr size_t kRoleCount = kRoles.size();

// Where each role sits in a metric set (-1: not in it).
using RoleSlots = std::array<int, kRoleCount>;

struct Acc {
  uint64_t instances = 0;
  uint64_t time = 0;      // kernel time with a start and an end
  double covered = 0;     // kernel time under samples
  double sampleTime = 0;  // time of those samples (each counted for each kernel it overlaps)
  std::array<double, kRoleCount> weight{};
  std::array<double, kRoleCount> sum{};
  // DRAM read plus write bytes per second, in percent of the device's peak bandwidth.
  double dramWeight = 0, dramSum = 0;
  std::vector<uint32_t> examples;  // correlation ids
};

struct KernelMetrics {
  std::string name;
  Acc acc;
  MetricShares shares;
  std::array<double, kRoleCount> avg{};  // -1 when not sampled
  Boundness verdict = Boundness::Unknown;
};

struct Computed {
  std::vector<KernelMetrics> rows;  // by total time, descending
  uint64_t samples = 0;
  uint64_t kernelTime = 0;
  std::vector<std::string> metricsMissing;
};

Computed compute(ReportData& data) {
  Computed out;
  const Trace& trace = data.trace();
  const auto& records = trace.store.records<GpuMetricRecord>();
  out.samples = records.size();
  if (records.empty()) return out;
  std::unordered_map<StringId, RoleSlots> slots;
  struct DeviceSamples {
    std::vector<uint32_t> index;    // record indices, by start
    double peakBytesPerSecond = 0;  // the device's DRAM bandwidth, 0 when unknown
  };
  std::map<uint32_t, DeviceSamples> byDevice;
  for (size_t i = 0; i < records.size(); ++i) {
    const GpuMetricRecord& r = records[i];
    if (r.start == 0 || r.end <= r.start) continue;
    if (slots.count(r.metricSet) == 0) {
      RoleSlots s;
      s.fill(-1);
      const std::vector<GpuMetric> set = decodeGpuMetricSet(trace.strings.get(r.metricSet));
      for (size_t m = 0; m < set.size(); ++m)
        for (size_t k = 0; k < kRoleCount; ++k)
          if (set[m].role == kRoles[k] && s[k] < 0) s[k] = static_cast<int>(m);
      slots.emplace(r.metricSet, s);
    }
    byDevice[r.deviceId].index.push_back(static_cast<uint32_t>(i));
  }
  for (auto& [device, d] : byDevice) {
    std::stable_sort(d.index.begin(), d.index.end(),
                     [&](uint32_t a, uint32_t b) { return records[a].start < records[b].start; });
    if (const DeviceInfo* info = trace.findDevice(device))
      d.peakBytesPerSecond = static_cast<double>(info->memoryBandwidthKBps) * 1000.0;
  }

  std::map<std::string, Acc> acc;
  trace.store.records<KernelRecord>().scan([&](const KernelRecord& k) {
    if (!hasTime(k.start, k.end) || k.end == k.start) return;
    Acc& a = acc[data.kernelName(k.name)];
    ++a.instances;
    a.time += k.end - k.start;
    out.kernelTime += k.end - k.start;
    if (a.examples.size() < kMaxExamples) a.examples.push_back(k.correlationId);
    const auto dev = byDevice.find(k.deviceId);
    if (dev == byDevice.end()) return;
    const std::vector<uint32_t>& idx = dev->second.index;
    auto it = std::lower_bound(idx.begin(), idx.end(), k.start,
                               [&](uint32_t i, uint64_t t) { return records[i].start < t; });
    if (it != idx.begin()) --it;  // the sample under way when the kernel started
    for (; it != idx.end() && records[*it].start < k.end; ++it) {
      const GpuMetricRecord& r = records[*it];
      const uint64_t from = std::max(r.start, k.start), to = std::min(r.end, k.end);
      if (to <= from) continue;
      const double w = static_cast<double>(to - from);
      a.covered += w;
      a.sampleTime += static_cast<double>(r.end - r.start);
      const RoleSlots& s = slots[r.metricSet];
      for (size_t m = 0; m < kRoleCount; ++m) {
        if (s[m] < 0 || std::isnan(r.values[s[m]])) continue;
        a.weight[m] += w;
        a.sum[m] += w * static_cast<double>(r.values[s[m]]);
      }
      const double peak = dev->second.peakBytesPerSecond;
      if (peak > 0 && s[5] >= 0 && s[6] >= 0 && !std::isnan(r.values[s[5]]) &&
          !std::isnan(r.values[s[6]])) {
        const double bytes = static_cast<double>(r.values[s[5]]) + static_cast<double>(r.values[s[6]]);
        a.dramWeight += w;
        a.dramSum += w * 100.0 * bytes / peak;
      }
    }
  });
  for (auto& [name, a] : acc) {
    KernelMetrics km;
    km.name = name;
    km.acc = std::move(a);
    for (size_t m = 0; m < kRoleCount; ++m)
      km.avg[m] = km.acc.weight[m] > 0 ? km.acc.sum[m] / km.acc.weight[m] : -1;
    km.shares.smActive = km.avg[0];
    km.shares.smIssue = km.avg[1];
    km.shares.tensor = km.avg[2];
    // DRAM: bytes moved against the device's peak bandwidth where both are
    // known, else the metrics' own percent of peak.
    if (km.acc.dramWeight > 0)
      km.shares.dram = km.acc.dramSum / km.acc.dramWeight;
    else if (km.avg[3] >= 0 || km.avg[4] >= 0)
      km.shares.dram = std::max(0.0, km.avg[3]) + std::max(0.0, km.avg[4]);
    km.shares.occupancy = km.acc.sampleTime > 0 ? km.acc.covered / km.acc.sampleTime : 0;
    km.verdict = km.acc.covered > 0 ? classifyKernel(km.shares) : Boundness::Unknown;
    out.rows.push_back(std::move(km));
  }
  std::sort(out.rows.begin(), out.rows.end(), [](const KernelMetrics& x, const KernelMetrics& y) {
    return x.acc.time != y.acc.time ? x.acc.time > y.acc.time : x.name < y.name;
  });
  return out;
}

std::string pct(double v) {
  char tmp[32];
  std::snprintf(tmp, sizeof tmp, v < 10 ? "%.1f %%" : "%.0f %%", v);
  return tmp;
}

Cell share(double v) { return v < 0 ? Cell::none() : Cell::real(v); }

uint64_t lostSamples(const Trace& trace) {
  uint64_t lost = 0;
  for (const auto& [name, value] : trace.counters)
    if (name.rfind("gpu_metrics.", 0) == 0 && name.find("lost") != std::string::npos) lost += value;
  return lost;
}

}  // namespace

const char* boundnessName(Boundness b) {
  switch (b) {
    case Boundness::ComputeBound:
      return "compute-bound";
    case Boundness::MemoryBound:
      return "memory-bound";
    case Boundness::LatencyBound:
      return "latency-bound";
    case Boundness::IdleSms:
      return "idle SMs";
    case Boundness::TooShort:
      return "too short to judge";
    case Boundness::Unknown:
      break;
  }
  return "unknown";
}

Boundness classifyKernel(const MetricShares& m) {
  if (m.occupancy < kMinOccupancy) return Boundness::TooShort;
  if (m.smActive < 0 || (m.smIssue < 0 && m.tensor < 0) || m.dram < 0) return Boundness::Unknown;
  if (m.smActive < kIdleSmsPct) return Boundness::IdleSms;
  const double compute = std::max(m.smIssue, m.tensor);
  if (m.dram >= kMemoryBoundPct && m.dram >= compute) return Boundness::MemoryBound;
  if (compute >= kComputeBoundPct) return Boundness::ComputeBound;
  if (m.dram >= kMemoryBoundPct) return Boundness::MemoryBound;
  return Boundness::LatencyBound;
}

std::string boundnessRule() {
  return "Verdict, in this order: a kernel filling under 50% of its samples' time is too short to judge; "
         "SMs Active under 50% is idle SMs (too few blocks, or waiting); DRAM (read + write bytes per "
         "second against the device's peak bandwidth, else the DRAM metrics' percent of peak) at 50% or "
         "more and at least max(SM Issue, Tensor) is memory-bound; max(SM Issue, Tensor) at 50% or more "
         "is compute-bound; otherwise latency-bound (SMs busy, but neither the pipes nor DRAM near their "
         "peak: stalls on memory latency, synchronization or launches)";
}

ReportTable gpuMetricsReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "gpu_metrics";
  table.title = "GPU metrics per kernel";
  table.columns = {{"Time(%)", "time_pct", ColumnType::Percent},
                   {"Total Time", "total", ColumnType::Duration},
                   {"Instances", "instances", ColumnType::Count},
                   {"Sampled(%)", "sampled_pct", ColumnType::Percent},
                   {"SMs Active(%)", "sm_active_pct", ColumnType::Percent},
                   {"SM Issue(%)", "sm_issue_pct", ColumnType::Percent},
                   {"Tensor(%)", "tensor_active_pct", ColumnType::Percent},
                   {"DRAM(%)", "dram_pct", ColumnType::Percent},
                   {"DRAM Read", "dram_read_rate", ColumnType::Rate},
                   {"DRAM Write", "dram_write_rate", ColumnType::Rate},
                   {"Verdict", "verdict", ColumnType::Text},
                   {"Name", "name", ColumnType::Name}};
  const Computed c = compute(data);
  if (c.samples == 0) {
    table.notes.push_back(
        "no GPU metrics: sample them with --gpu-metrics (the gpu_metrics activity)");
    return table;
  }
  for (const KernelMetrics& k : c.rows) {
    std::vector<Cell> row;
    row.push_back(Cell::real(percent(k.acc.time, c.kernelTime)));
    row.push_back(Cell::integer(k.acc.time));
    row.push_back(Cell::integer(k.acc.instances));
    row.push_back(Cell::real(k.acc.sampleTime > 0 ? 100.0 * k.shares.occupancy : 0));
    row.push_back(share(k.shares.smActive));
    row.push_back(share(k.shares.smIssue));
    row.push_back(share(k.shares.tensor));
    row.push_back(share(k.shares.dram));
    // Bytes per second to the Rate column's bytes per nanosecond.
    row.push_back(k.avg[5] < 0 ? Cell::none() : Cell::real(k.avg[5] / 1e9));
    row.push_back(k.avg[6] < 0 ? Cell::none() : Cell::real(k.avg[6] / 1e9));
    row.push_back(Cell::text(boundnessName(k.verdict)));
    row.push_back(Cell::text(k.name));
    table.rows.push_back(std::move(row));
  }
  table.notes.push_back(
      "Each metric is averaged over the kernels' own time, a sample weighted by how long it "
      "overlaps "
      "them; the samples are device-wide: kernels running at once share theirs. Sampled: the share "
      "of "
      "their samples' time the kernels filled");
  table.notes.push_back(boundnessRule());
  if (const uint64_t lost = lostSamples(trace))
    table.notes.push_back(std::to_string(lost) +
                          " samples were lost (gpu_metrics.* counters in the metadata)");
  return table;
}

std::vector<GpuMetricsFinding> gpuMetricsFindings(ReportData& data) {
  std::vector<GpuMetricsFinding> out;
  const Computed c = compute(data);
  if (c.samples == 0) return out;
  // The kernels that take a tenth of the kernel time or more, at most three.
  for (const KernelMetrics& k : c.rows) {
    if (out.size() >= 3 || percent(k.acc.time, c.kernelTime) < 10.0) break;
    if (k.verdict == Boundness::Unknown || k.verdict == Boundness::TooShort) continue;
    GpuMetricsFinding f;
    const double compute = std::max(k.shares.smIssue, k.shares.tensor);
    const char* pipe =
        k.shares.tensor > k.shares.smIssue ? "of tensor pipe time" : "of SM issue slots";
    f.title = "Kernel " + k.name + " (" + pct(percent(k.acc.time, c.kernelTime)) +
              " of kernel time) is " + boundnessName(k.verdict);
    f.details = "it uses " + pct(k.shares.dram) + " of DRAM bandwidth and " + pct(compute) + " " +
                pipe + ", with SMs active " + pct(k.shares.smActive) + " of the time: it is " +
                boundnessName(k.verdict) + " (the gpu_metrics report gives the rule)";
    std::string ids;
    for (const uint32_t id : k.acc.examples)
      ids += (ids.empty() ? "correlation " : ", ") + std::to_string(id);
    f.records = ids;
    out.push_back(std::move(f));
  }
  if (const uint64_t lost = lostSamples(data.trace())) {
    GpuMetricsFinding f;
    f.title = std::to_string(lost) + " GPU metric samples were lost";
    f.details =
        "the counters' buffer overflowed or could not be decoded in time: lower the rate "
        "(CUPTITRACE_GPU_METRICS_RATE) or sample fewer metrics";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace cuptitrace::reports
