// gpu_metrics: per kernel name, the device's sampled metrics (the gpu_metrics
// activity, core/gpu_metrics.h) averaged over the kernels' own intervals,
// each sample weighted by how long it overlaps a kernel of that name, and a
// verdict: compute-bound, memory-bound, latency-bound or idle SMs.
//
//   Time(%)  Total Time  Instances  Samples  SMs Active  SM Issue  Tensor  DRAM  DRAM Read  ...
//   Verdict  Name
//
// The metrics are device-wide: kernels running at once on a device share
// their samples, and a kernel shorter than the sampling period shares its
// samples with what ran around it (Sampled says how much of the samples'
// time the kernel filled; below half, no verdict).
#pragma once

#include <string>
#include <vector>

#include "reports/report_data.h"

namespace cuptitrace::reports {

enum class Boundness : uint8_t {
  Unknown,
  ComputeBound,
  MemoryBound,
  LatencyBound,
  IdleSms,
  TooShort
};
const char* boundnessName(Boundness b);  // "compute-bound", ...

// A kernel's averages, in percent of peak; negative when not sampled.
struct MetricShares {
  double smActive = -1;
  double smIssue = -1;
  double tensor = -1;
  double dram = -1;      // read plus write bandwidth, of peak
  double occupancy = 1;  // share of its samples' time the kernel filled (0..1)
};

// The rule, applied in this order (thresholds in percent of peak):
//   Sampled < 50% of its samples' time          too short to judge
//   SMs Active < 50                             idle SMs (grid too small, waiting)
//   DRAM >= 50 and DRAM >= max(Issue, Tensor)   memory-bound
//   max(SM Issue, Tensor) >= 50                 compute-bound
//   DRAM >= 50                                  memory-bound
//   otherwise                                   latency-bound (neither the pipes nor DRAM near
//   peak)
inline constexpr double kIdleSmsPct = 50;
inline constexpr double kMemoryBoundPct = 50;
inline constexpr double kComputeBoundPct = 50;
inline constexpr double kMinOccupancy = 0.5;
Boundness classifyKernel(const MetricShares& m);
// The rule above in one line, for the report's notes.
std::string boundnessRule();

ReportTable gpuMetricsReport(ReportData& data);

// Findings (report_findings.cpp) from the same averages: the verdict of each
// of the top kernels, and samples the counters lost.
struct GpuMetricsFinding {
  std::string title;
  std::string details;
  std::string records;
};
std::vector<GpuMetricsFinding> gpuMetricsFindings(ReportData& data);

}  // namespace cuptitrace::reports
