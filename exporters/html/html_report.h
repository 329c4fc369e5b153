// The HTML report: one self-contained page with the reports as charts and
// tables (an overview with the step-time breakdown and the GPU summary, the
// operators, the kernels, GPU metrics and memory over time, the ranks of a
// job, the CUDA API and NVTX tables), for a browser from file:// with no
// network: the chart library (Apache ECharts, third_party/echarts), the
// style and the page's script are inline, and the page's content security
// policy forbids it any request.
//
// A thin encoder: the numbers are the reports' own (reports/reports.h), as
// `cuptitrace stats --format json --time-unit ns` writes them, embedded as
// JSON; the page's script only draws them. Beside them the page holds what
// text cannot: each device's memory over time and each GPU metric over time,
// reduced to about `seriesPoints` points a series (html_series.h), and, for
// a small trace, the trace itself as a .pftrace for "Open in Perfetto".
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/trace.h"
#include "reports/rank_summary.h"
#include "reports/report_table.h"
#include "reports/reports.h"

namespace cuptitrace {

struct HtmlOptions {
  std::string source;         // what the page is of, for its title: the trace's file name
  size_t seriesPoints = 10000;  // points per series over time, at most about
  // The trace travels in the page (base64 .pftrace) when its timeline has at
  // most this many records and its .pftrace at most embedBytes; else the
  // button asks for the file.
  uint64_t embedRecords = 200000;
  uint64_t embedBytes = 2u << 20;
};

// One trace's page.
void writeHtmlReport(const Trace& trace, const ReportOptions& reportOptions, const HtmlOptions& options,
                     std::ostream& out);

// The page of several ranks, from their summaries (ordered by orderRanks,
// reports/rank_reports.h) and the reports across ranks built from them;
// `notes` (ranks skipped, traces that could not be read) go into its header.
void writeHtmlRankReport(const std::vector<RankSummary>& ranks, const std::vector<ReportTable>& tables,
                         const std::vector<std::string>& notes, const HtmlOptions& options, std::ostream& out);

}  // namespace cuptitrace
