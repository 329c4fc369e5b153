// The data a page embeds, as JSON text (html_data.cpp for one trace,
// html_page.cpp for the ranks), and the page around it (html_page.cpp).
// Internal to exporters/html.
#pragma once

#include <string>
#include <vector>

#include "core/json_text.h"
#include "core/trace.h"
#include "exporters/html/html_report.h"

namespace cuptitrace::html {

// {"kind":"trace","run":{...},"reports":[...],"series":{...},"timeline":...}
std::string traceData(const Trace& trace, const ReportOptions& reportOptions, const HtmlOptions& options);

// The reports as `cuptitrace stats --format json --time-unit ns` writes their
// "reports" array: the same bytes, so the page's numbers are the stats' numbers.
void appendReports(const std::vector<ReportTable>& tables, JsonText& j);

// The page: `data` (JSON) embedded with the style, the chart library and the script.
void writePage(const std::string& title, const std::string& data, std::ostream& out);

}  // namespace cuptitrace::html
