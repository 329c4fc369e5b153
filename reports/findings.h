// What the findings report's parts share (report_findings.cpp,
// report_findings_torch.cpp): a finding, and how numbers are written in one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace.h"

namespace cuptitrace::reports {

class ReportData;

struct Finding {
  std::string title;
  std::string details;
  std::string records;
};

std::string pct(double v);                                // "12.3%"
std::string dur(uint64_t ns);                             // "1.234ms"
std::string at(const Trace& trace, uint64_t t);           // "+12.300ms" from the trace's start
std::string correlations(const std::vector<uint32_t>& ids);  // "correlation 3, 7"

// Training-loop findings (report_findings_torch.cpp): NCCL communication,
// low GPU utilization, steps bound by the data loader or by launches, and
// matrix kernels without Tensor Cores.
void pytorchFindings(ReportData& data, std::vector<Finding>& out);

}  // namespace cuptitrace::reports
