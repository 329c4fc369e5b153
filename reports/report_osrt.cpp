// osrt: C library calls that blocked the thread (file I/O, sleeps, waits),
// per function, with the time statistics of api_calls (nsys osrt_sum). They
// are kept out of api_calls: they are not CUDA calls.
#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

// The threshold the trace was recorded with, as its metadata writes it ("1us").
std::string osrtThreshold(const TraceMetadata& meta) {
  for (const auto& [name, value] : meta.config)
    if (name == "CUPTITRACE_OSRT_THRESHOLD") return value;
  return {};
}

}  // namespace

ReportTable osrtReport(ReportData& data) {
  ReportTable table = timeTable("osrt", "OS runtime calls", data.osrt(), "Calls", "calls", "Name");
  const Untimed& u = data.osrtUntimed();
  if (table.rows.empty()) {
    table.notes.push_back(
        "no OS runtime records: record them with CUPTITRACE_ACTIVITIES=default,osrt "
        "(--activities default,osrt; the cuptitrace command preloads the library, which they "
        "need)");
    return table;
  }
  const Trace& trace = data.trace();
  const std::string threshold = osrtThreshold(trace.meta);
  const auto below = trace.counters.find("osrt.below_threshold");
  std::string note = "Calls that blocked for less than CUPTITRACE_OSRT_THRESHOLD" +
                     (threshold.empty() ? std::string() : " (" + threshold + ")") +
                     " are not recorded, so not counted here";
  if (below != trace.counters.end() && below->second != 0)
    note += ": " + std::to_string(below->second) + " such calls (osrt.below_threshold)";
  table.notes.push_back(note);
  if (u.count) table.notes.push_back(untimedNote(u, "OS runtime call"));
  return table;
}

}  // namespace cuptitrace::reports
