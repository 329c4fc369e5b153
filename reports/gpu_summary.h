// The GPU summary's numbers per device (report_gpu_kernels.cpp), shared by
// the gpu_summary report and the findings.
#pragma once

#include <cstdint>
#include <vector>

namespace cuptitrace::reports {

class ReportData;

struct DeviceSummary {
  uint32_t deviceId = 0;
  uint64_t kernels = 0;
  uint64_t span = 0;        // the steps' span, or the device's first kernel to its last
  uint64_t busy = 0;        // union of kernel intervals in the span
  uint64_t kernelTime = 0;  // summed kernel time in the span
  uint64_t tensorTime = 0;  // of which on Tensor Cores
  bool occupancyKnown = false;
  double smEfficiency = 0;  // 0..1 over the span
  double achievedOccupancy = 0;  // 0..1, kernel-time weighted
  bool overSteps = false;
};

// Computes them; reports read ReportData::deviceSummaries(), made once.
std::vector<DeviceSummary> summarizeDevices(ReportData& data);

}  // namespace cuptitrace::reports
