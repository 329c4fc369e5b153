// Summary reports over a trace's records: what nvprof, `nsys stats` and the
// PyTorch profiler's overview print. Each report is a pure function of the
// records and the options below, returning a ReportTable (report_table.h)
// that renders as an aligned text table, CSV or JSON.
//
//   gpu_activities  kernels and memory operations together (nvprof "GPU activities")
//   api_calls       runtime and driver API calls (nvprof "API calls")
//   kernels         per kernel name, optionally per launch configuration (nsys cuda_gpu_kern_sum)
//   memory_time     copies and sets by time, per copy kind and memory kinds (cuda_gpu_mem_time_sum)
//   memory_size     the same by bytes, with the achieved throughput (cuda_gpu_mem_size_sum)
//   nvtx            NVTX ranges (nsys nvtx_sum)
//   utilization     per device: busy time, idle gaps over the span of its GPU work
//   breakdown       time per step (or the whole run): Kernel, Memcpy, Memset, Runtime API, Sync,
//   Other coverage        the fewest GPU activities and API calls that cover 90% of their time
//   findings        what stands out, in words, with the numbers and records behind it
//   gpu_memory      per device and memory kind: allocations, peak bytes, what was never freed
//   allocations     the largest allocations; leaks: those never freed
//   graphs          CUDA graph launches, per graph
//   uvm             unified memory per device and counter: bytes migrated, faults (nsys um_sum)
//   osrt            C library calls that blocked, per function (nsys osrt_sum)
//   external_ids    GPU time per external id and named scope (the PyTorch profiler's per-op time)
//   devices         per GPU: name, compute capability, SMs, memory, clock, contexts and work
//   openacc         OpenACC events by exclusive time, per event @ file:line (nvprof's OpenACC (excl))
//   operators       PyTorch operators: calls, host and device self and total time (key_averages())
//   gpu_summary     per device over the steps: utilization, est. SM efficiency, occupancy, Tensor Cores
//   gpu_kernels     per kernel: Tensor Cores used, blocks per SM, est. achieved and theoretical occupancy
//   gpu_metrics     per kernel: sampled SM, tensor and DRAM activity, compute/memory/latency-bound
//
// Statistics are exact: medians and standard deviations are over all values
// (the sample standard deviation, n - 1, as nsys prints it). Rows are sorted
// by total time, descending, ties by name. Records whose end is missing or
// before their start are counted (Calls) and named in the notes, not timed.
//
// Memory: what a report keeps grows with the number of distinct names,
// except the values its medians need: 8 bytes per record of the kind being
// summarized (16 for memory operations: time and bytes), freed once that
// kind's rows are made; and the merged busy intervals of `utilization`,
// `breakdown` and `findings`: at most 16 bytes per GPU and API record while
// they are sorted, usually far less once merged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace.h"
#include "reports/report_table.h"

namespace cuptitrace {

struct ReportOptions {
  // NVTX range that marks steps (ranges named so, or starting with it, as
  // PyTorch's "ProfilerStep#3"); empty: the breakdown covers the whole run.
  std::string stepRange;
  // The share of time `coverage` must reach, in hundredths of a percent (9000 = 90%).
  uint32_t coverageBasisPoints = 9000;
  // `kernels` has one row per kernel name and launch configuration (grid, block).
  bool kernelsByLaunchConfig = false;
  // `kernels` has one row per kernel name and Python line (--python-backtrace).
  bool kernelsByPython = false;
  // `operators` has one row per operator name and input shapes when shapes
  // were recorded; false: one row per name whatever the shapes.
  bool operatorsByShapes = true;
  // Busy times are swept over the records a window of start times at a
  // time, with at most this many records' intervals held at once.
  size_t windowRecords = size_t{1} << 16;
};

struct ReportInfo {
  const char* name;         // "gpu_activities"
  const char* description;  // one line, for --help
};

// Every report, in the order "all" produces them.
const std::vector<ReportInfo>& reportCatalog();

// Parses "gpu_activities,api_calls" or "all"; nullopt (and `error` says
// which name is unknown) for anything else.
std::optional<std::vector<std::string>> parseReportNames(std::string_view list, std::string& error);

// Builds the named reports (names from reportCatalog()), sharing the work
// they have in common (one pass per record kind, not one per report).
std::vector<ReportTable> buildReports(const Trace& trace, const std::vector<std::string>& names,
                                      const ReportOptions& options);
// One report; an unknown name gives an empty table titled so.
ReportTable buildReport(const Trace& trace, std::string_view name, const ReportOptions& options);

// Every report in reportCatalog() order: what the reports file holds.
std::vector<ReportTable> buildAllReports(const Trace& trace, const ReportOptions& options);

// What the library prints at exit: the GPU activities and API calls tables of
// `all` (from buildAllReports), `topRows` rows each, and where the full
// reports are (`reportsPath`, when not empty).
std::string exitSummary(const std::vector<ReportTable>& all, size_t topRows,
                        const std::string& reportsPath);

// Writes `tables` as text tables to `path` (core/file_output.h: through a
// new temporary file moved into place when complete; an existing file is
// replaced only with `overwrite`). False, with `error` naming the path, on failure.
bool writeReportsFile(const std::vector<ReportTable>& tables, const std::string& path,
                      std::string& error, bool overwrite = false);

// Options from a trace's saved configuration (CUPTITRACE_STEP_RANGE,
// CUPTITRACE_COVERAGE), defaults for what it does not hold.
ReportOptions reportOptionsFromMetadata(const TraceMetadata& meta);

}  // namespace cuptitrace
