// utilization: per device, how busy the GPU was over the span of its work.
// breakdown: where the time of each step (or of the whole run) went.
#include <algorithm>

#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

std::string deviceName(const Trace& trace, uint32_t id) {
  const auto named = trace.deviceNames.find(id);
  if (named != trace.deviceNames.end()) return named->second;
  if (const DeviceInfo* d = trace.findDevice(id)) return d->name;
  return {};
}

// Categories in the order the table shows them (the order of the PyTorch
// profiler's step breakdown), with their place in Timeline::split.
struct Shown {
  const char* title;
  const char* key;
  size_t index;
};
constexpr Shown kShown[] = {
    {"Kernel", "kernel", static_cast<size_t>(Category::Kernel)},
    {"Memcpy", "memcpy", static_cast<size_t>(Category::Memcpy)},
    {"Memset", "memset", static_cast<size_t>(Category::Memset)},
    {"Communication", "communication", static_cast<size_t>(Category::Communication)},
    {"Sync", "sync", static_cast<size_t>(Category::Sync)},
    {"Runtime API", "runtime_api", static_cast<size_t>(Category::RuntimeApi)},
    {"DataLoader", "dataloader", static_cast<size_t>(Category::DataLoader)},
    {"CPU Exec", "cpu_exec", static_cast<size_t>(Category::CpuExec)},
    {"Other", "other", kCategories},
};

}  // namespace

ReportTable utilizationReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "utilization";
  table.title = "GPU utilization";
  table.columns = {
      {"Device", "device", ColumnType::Count},
      {"Span", "span", ColumnType::Duration},
      {"Kernel busy", "kernel_busy", ColumnType::Duration},
      {"Kernel(%)", "kernel_pct", ColumnType::Percent},
      {"GPU busy", "gpu_busy", ColumnType::Duration},
      {"GPU(%)", "gpu_pct", ColumnType::Percent},
      {"Idle gaps", "idle_gaps", ColumnType::Count},
      {"Idle", "idle", ColumnType::Duration},
      {"Largest gap", "largest_gap", ColumnType::Duration},
      {"Name", "name", ColumnType::Name},
  };
  for (const DeviceBusy& d : data.devices()) {
    const uint64_t span = d.lastEnd - d.firstStart;
    table.rows.push_back({
        Cell::integer(d.deviceId),
        Cell::integer(span),
        Cell::integer(d.kernelBusy),
        Cell::real(percent(d.kernelBusy, span)),
        Cell::integer(d.gpuBusy),
        Cell::real(percent(d.gpuBusy, span)),
        Cell::integer(d.gaps.count),
        Cell::integer(d.gaps.total),
        Cell::integer(d.gaps.largest),
        Cell::text(deviceName(trace, d.deviceId)),
    });
  }
  if (!table.rows.empty()) {
    table.notes.push_back(
        "Span: from the first start to the last end of the device's kernels, copies and sets; "
        "busy: the length of the union of their intervals (overlapping work counts once); "
        "GPU busy adds copies and sets to kernels; idle: the gaps between GPU work within the "
        "span");
  }
  const uint64_t untimed = data.untimed(RecordKind::Kernel).count +
                           data.untimed(RecordKind::Memcpy).count +
                           data.untimed(RecordKind::Memset).count;
  if (untimed)
    table.notes.push_back(std::to_string(untimed) +
                          " GPU records without a valid end are left out (see gpu_activities)");
  return table;
}

ReportTable breakdownReport(ReportData& data) {
  const Timeline& timeline = data.timeline();

  ReportTable table;
  table.name = "breakdown";
  table.title = "Time breakdown";
  table.columns.push_back({"Step", "step", ColumnType::Count});
  table.columns.push_back({"Total", "total", ColumnType::Duration});
  for (const Shown& s : kShown) {
    table.columns.push_back({s.title, s.key, ColumnType::Duration});
    table.columns.push_back(
        {std::string(s.title) + "(%)", std::string(s.key) + "_pct", ColumnType::Percent});
  }
  table.columns.push_back({"Range", "range", ColumnType::Name});

  const std::vector<Step>& steps = data.steps().steps;
  auto addRow = [&](Cell step, uint64_t total, const std::array<double, kCategories + 1>& parts,
                    bool integral, std::string label) {
    std::vector<Cell> row{std::move(step), Cell::integer(total)};
    for (const Shown& s : kShown) {
      const double v = parts[s.index];
      row.push_back(integral ? Cell::integer(static_cast<uint64_t>(v)) : Cell::real(v));
      row.push_back(Cell::real(total ? 100.0 * v / static_cast<double>(total) : 0.0));
    }
    row.push_back(Cell::text(std::move(label)));
    table.rows.push_back(std::move(row));
  };
  auto asDoubles = [](const std::array<uint64_t, kCategories + 1>& split) {
    std::array<double, kCategories + 1> out{};
    for (size_t i = 0; i < split.size(); ++i) out[i] = static_cast<double>(split[i]);
    return out;
  };

  const std::optional<Step>& warmup = data.steps().warmup;
  auto warmupRow = [&](const auto& splits) {
    addRow(Cell::none(), warmup->end - warmup->start, asDoubles(splits[steps.size()]), true, "warm-up");
  };
  if (steps.empty() && warmup) {
    warmupRow(data.stepSplits());
    table.notes.push_back("Warm-up: from the first operator to the end of the first iteration's optimizer "
                          "step() calls; no step ended after it, so there is no step to show");
  } else if (steps.empty()) {
    if (timeline.any)
      addRow(Cell::none(), timeline.end - timeline.start,
             asDoubles(data.wholeSplit()), true,
             "whole run");
    if (!data.steps().missed.empty())
      table.notes.push_back("no NVTX range is named '" + data.steps().missed +
                            "' (or starts with it), and no steps were found otherwise: the row "
                            "covers the whole run");
    else
      table.notes.push_back(
          "no steps found (ProfilerStep#N, NVTX ranges named like 'step N', or the optimizer's "
          "step() with --pytorch ops): the row covers the whole run; --step-range NAME names them");
  } else {
    const auto& splits = data.stepSplits();
    std::array<double, kCategories + 1> sum{};
    uint64_t sumTotal = 0;
    size_t open = 0;
    if (warmup) warmupRow(splits);  // first, as it ran: in no average
    for (size_t i = 0; i < steps.size(); ++i) {
      const auto& split = splits[i];
      for (size_t c = 0; c < split.size(); ++c) sum[c] += static_cast<double>(split[c]);
      sumTotal += steps[i].end - steps[i].start;
      open += steps[i].open;
      addRow(Cell::integer(i), steps[i].end - steps[i].start, asDoubles(split), true,
             steps[i].label);
    }
    if (steps.size() > 1) {
      const double n = static_cast<double>(steps.size());
      for (auto& v : sum) v /= n;
      // The average step's total, rounded; its parts keep their fractions.
      addRow(Cell::none(), static_cast<uint64_t>(static_cast<double>(sumTotal) / n + 0.5), sum,
             false, "Average");
      // Percentages of the average row: of the sum, not of the rounded total.
      auto& row = table.rows.back();
      for (size_t k = 0; k < std::size(kShown); ++k)
        row[3 + 2 * k] = Cell::real(
            sumTotal ? 100.0 * sum[kShown[k].index] * n / static_cast<double>(sumTotal) : 0.0);
    }
    if (!data.steps().missed.empty())
      table.notes.push_back("no NVTX range is named '" + data.steps().missed + "' (or starts with it)");
    table.notes.push_back("Steps: " + data.steps().rule);
    if (warmup)
      table.notes.push_back("Warm-up: from the first operator to the end of the first iteration's optimizer "
                            "step() calls (start-up and the first iteration); in no step and no average");
    if (open)
      table.notes.push_back(std::to_string(open) + (open == 1 ? " step was" : " steps were") +
                            " still open at exit: timed up to the end of the trace");
  }
  if (timeline.any)
    table.notes.push_back(
        "Each instant counts once, for the first of Kernel, Memcpy, Memset, Communication (GPU "
        "work on any device; Communication is NCCL's kernels), Sync (API calls that wait: "
        "*Synchronize, and CUPTI synchronization records), Runtime API (other runtime and driver "
        "calls, any thread), DataLoader (PyTorch's data loader's __next__), CPU Exec (PyTorch's "
        "other operators) that is busy at it; Other is the rest");
  return table;
}

}  // namespace cuptitrace::reports
