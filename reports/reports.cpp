#include "reports/reports.h"

#include <cstring>
#include <ostream>

#include "core/config.h"
#include "core/rank_info.h"
#include "core/writer_threads.h"
#include "core/file_output.h"
#include "reports/report_data.h"
#include "reports/report_gpu_metrics.h"

namespace cuptitrace {
namespace {

using Builder = ReportTable (*)(reports::ReportData&);

struct Entry {
  ReportInfo info;
  Builder build;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
      {{"gpu_activities", "kernels and memory operations by total time (nvprof's GPU activities)"},
       reports::gpuActivitiesReport},
      {{"api_calls", "runtime and driver API calls by total time (nvprof's API calls)"},
       reports::apiCallsReport},
      {{"kernels", "kernels by name, or by name and launch configuration (--by-launch-config)"},
       reports::kernelsReport},
      {{"memory_time", "copies and sets by time, per copy kind and memory kinds"},
       reports::memoryTimeReport},
      {{"memory_size", "copies and sets by size, with the achieved throughput"},
       reports::memorySizeReport},
      {{"nvtx", "NVTX ranges by total time, per domain and style"}, reports::nvtxReport},
      {{"utilization", "per device: busy time and idle gaps over the span of its GPU work"},
       reports::utilizationReport},
      {{"breakdown", "time per step (found by itself, or CUPTITRACE_STEP_RANGE) by category"},
       reports::breakdownReport},
      {{"coverage", "the fewest GPU activities and API calls covering 90% of their time"},
       reports::coverageReport},
      {{"findings", "what stands out, in plain words, with the records behind it"},
       reports::findingsReport},
      {{"gpu_memory", "per device and memory kind: allocations, peak bytes, what was never freed"},
       reports::gpuMemoryReport},
      {{"allocations", "the largest allocations, with their lifetimes and the calls that made them"},
       reports::allocationsReport},
      {{"leaks", "allocations never freed while the trace ran, largest first"}, reports::leaksReport},
      {{"graphs", "CUDA graphs: launches and their times, per graph"}, reports::graphsReport},
      {{"uvm", "unified memory per device: migrations (bytes, time) and page faults, per counter"},
       reports::uvmReport},
      {{"osrt", "C library calls that blocked (osrt activity) by total time, per function"},
       reports::osrtReport},
      {{"external_ids", "GPU time, kernels and API calls per external id and named scope"},
       reports::externalIdsReport},
      {{"devices", "per GPU: name, compute capability, SMs, memory, clock, contexts and work"},
       reports::devicesReport},
      {{"openacc", "OpenACC events by exclusive time, per event, source line and variable or kernel "
                   "(nvprof's OpenACC (excl))"},
       reports::openAccReport},
      {{"operators", "PyTorch's operators: calls, host and device self and total time (--pytorch ops)"},
       reports::operatorsReport},
      {{"gpu_summary", "per device over the steps: utilization, est. SM efficiency and occupancy, Tensor Cores"},
       reports::gpuSummaryReport},
      {{"gpu_kernels", "kernels with Tensor Core use, blocks per SM and occupancy (the PyTorch kernel view)"},
       reports::gpuKernelsReport},
      {{"gpu_metrics", "per kernel: sampled SM, tensor and DRAM activity over its own time, and whether it "
                       "is compute-, memory- or latency-bound (the gpu_metrics activity)"},
       reports::gpuMetricsReport},
  };
  return table;
}

const ConfigVar* configVar(const char* name) {
  for (const auto& v : configTable())
    if (std::strcmp(v.name, name) == 0) return &v;
  return nullptr;
}

}  // namespace

const std::vector<ReportInfo>& reportCatalog() {
  static const std::vector<ReportInfo> catalog = [] {
    std::vector<ReportInfo> out;
    for (const auto& e : entries()) out.push_back(e.info);
    return out;
  }();
  return catalog;
}

std::optional<std::vector<std::string>> parseReportNames(std::string_view list,
                                                         std::string& error) {
  std::vector<std::string> names;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    std::string item(list.substr(pos, comma - pos));
    while (!item.empty() && item.back() == ' ') item.pop_back();
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    pos = comma + 1;
    if (item.empty()) continue;
    if (item == "all") {
      for (const auto& e : entries()) names.push_back(e.info.name);
      continue;
    }
    bool known = false;
    for (const auto& e : entries()) known = known || item == e.info.name;
    if (!known) {
      error = "unknown report '" + item + "'";
      return std::nullopt;
    }
    names.push_back(item);
  }
  if (names.empty()) {
    error = "no report named";
    return std::nullopt;
  }
  return names;
}

namespace {

// The tables named, in order; with `prepare`, the sweeps over the records
// that several need start first, on threads of their own (ReportData::prepare).
std::vector<ReportTable> build(const Trace& trace, const std::vector<std::string>& names,
                               const ReportOptions& options, bool prepare) {
  reports::ReportData data(trace, options);
  if (prepare) data.prepare();
  std::vector<ReportTable> tables;
  for (const auto& name : names) {
    const Entry* entry = nullptr;
    for (const auto& e : entries())
      if (name == e.info.name) entry = &e;
    if (entry == nullptr) {
      ReportTable unknown;
      unknown.name = name;
      unknown.title = "Unknown report '" + name + "'";
      tables.push_back(std::move(unknown));
      continue;
    }
    tables.push_back(entry->build(data));
    // Every rank of a job prints its own: the title says whose it is.
    if (trace.meta.rank >= 0) tables.back().title += " [" + rankLabel(trace.meta.rank) + "]";
  }
  return tables;
}

}  // namespace

std::vector<ReportTable> buildReports(const Trace& trace, const std::vector<std::string>& names,
                                      const ReportOptions& options) {
  // Every table asked for (cuptitrace stats' default): most need the sweeps.
  return build(trace, names, options, names.size() >= entries().size() && writerThreads() > 1);
}

ReportTable buildReport(const Trace& trace, std::string_view name, const ReportOptions& options) {
  return std::move(buildReports(trace, {std::string(name)}, options).front());
}

std::vector<ReportTable> buildAllReports(const Trace& trace, const ReportOptions& options) {
  std::vector<std::string> names;
  for (const auto& e : entries()) names.push_back(e.info.name);
  return build(trace, names, options, writerThreads() > 1);
}

std::string exitSummary(const std::vector<ReportTable>& all, size_t topRows,
                        const std::string& reportsPath) {
  RenderOptions render;
  render.top = topRows;
  std::string out;
  for (const char* name : {"gpu_activities", "api_calls", "openacc"}) {
    for (const auto& table : all) {
      if (table.name != name) continue;
      // OpenACC's table only for the programs that have OpenACC events.
      if (table.name == "openacc" && table.rows.empty()) continue;
      ReportTable shown = table;
      shown.title = "cuptitrace: " + table.title;
      renderText(shown, render, out);
    }
  }
  if (!reportsPath.empty())
    out += "cuptitrace: all " + std::to_string(all.size()) + " reports (kernels, memory, NVTX, " +
           "utilization, findings, devices, ...) in " + reportsPath + "\n";
  return out;
}

bool writeReportsFile(const std::vector<ReportTable>& tables, const std::string& path,
                      std::string& error, bool overwrite) {
  RenderOptions render;
  render.nameWidth = 0;  // a file has room for whole names
  const std::string text = renderTables(tables, ReportFormat::Table, render);
  error = writeFileSafely(
      path,
      [&](std::ostream& out) { out.write(text.data(), static_cast<std::streamsize>(text.size())); },
      overwrite);
  return error.empty();
}

ReportOptions reportOptionsFromMetadata(const TraceMetadata& meta) {
  ReportOptions options;
  for (const auto& [name, value] : meta.config) {
    if (name == "CUPTITRACE_STEP_RANGE" || name == "CUPTITRACE_COVERAGE") {
      const ConfigVar* var = configVar(name.c_str());
      Config c;
      if (var != nullptr && var->apply(value, c)) {
        if (name == "CUPTITRACE_STEP_RANGE")
          options.stepRange = c.stepRange;
        else
          options.coverageBasisPoints = c.coverageBasisPoints;
      }
    }
  }
  return options;
}

}  // namespace cuptitrace
