// gpu_summary and gpu_kernels: the PyTorch profiler's GPU summary and kernel
// view. Per device, over the steps (steps.h; the whole run when none are
// found): GPU utilization, estimated SM efficiency and achieved occupancy,
// and the share of kernel time on Tensor Cores. Per kernel name: whether it
// uses Tensor Cores, its times, blocks per SM and occupancy (kernel_traits.h).
#include <algorithm>
#include <array>
#include <string>

#include "reports/gpu_summary.h"
#include "reports/kernel_traits.h"
#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

const char* kFormulaNote =
    "Est. SM efficiency: min(grid blocks / SMs, 1) of each kernel, summed over the kernels running "
    "at each moment and capped at 1, averaged over the span; "
    "est. achieved occupancy: the kernel-time-weighted min(active blocks per SM, grid blocks / SMs) "
    "x threads per block / max threads per SM (the PyTorch profiler's estimates); active blocks per "
    "SM and theoretical occupancy by CUDA's occupancy calculator's rules from the block size, "
    "registers, shared memory and the device's limits; Tensor Cores by the kernel's name";

}  // namespace

ReportTable gpuSummaryReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "gpu_summary";
  table.title = "GPU summary";
  table.columns = {
      {"Device", "device", ColumnType::Count},
      {"Kernels", "kernels", ColumnType::Count},
      {"Span", "span", ColumnType::Duration},
      {"Kernel busy", "kernel_busy", ColumnType::Duration},
      {"Utilization(%)", "utilization_pct", ColumnType::Percent},
      {"Est. SM efficiency(%)", "sm_efficiency_pct", ColumnType::Percent},
      {"Est. achieved occupancy(%)", "achieved_occupancy_pct", ColumnType::Percent},
      {"Tensor Core time", "tensor_core_time", ColumnType::Duration},
      {"Tensor Core(%)", "tensor_core_pct", ColumnType::Percent},
      {"Name", "name", ColumnType::Name},
  };
  const std::vector<DeviceSummary>& devs = data.deviceSummaries();
  bool missing = false;
  for (const DeviceSummary& d : devs) {
    const DeviceInfo* info = trace.findDevice(d.deviceId);
    missing = missing || !d.occupancyKnown;
    table.rows.push_back({
        Cell::integer(d.deviceId),
        Cell::integer(d.kernels),
        Cell::integer(d.span),
        Cell::integer(d.busy),
        Cell::real(percent(d.busy, d.span)),
        d.occupancyKnown ? Cell::real(100.0 * d.smEfficiency) : Cell::none(),
        d.occupancyKnown ? Cell::real(100.0 * d.achievedOccupancy) : Cell::none(),
        Cell::integer(d.tensorTime),
        Cell::real(percent(d.tensorTime, d.kernelTime)),
        Cell::text(info != nullptr ? info->name : std::string()),
    });
  }
  if (!table.rows.empty()) {
    table.notes.push_back(devs.front().overSteps
                              ? "Span: from the first step's start to the last step's end (steps: " +
                                    data.steps().rule + ")"
                              : std::string("Span: from the device's first kernel to its last (no steps found)"));
    table.notes.push_back("Utilization: the union of kernel intervals over the span; Tensor Core(%): of kernel time");
    table.notes.push_back(kFormulaNote);
  }
  if (missing)
    table.notes.push_back("SM efficiency and occupancy need the device's limits, which traces written "
                          "before they were recorded (or recovered from a journal) lack");
  return table;
}

ReportTable gpuKernelsReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "gpu_kernels";
  table.title = "Kernels: Tensor Cores and occupancy";
  table.columns = {
      {"Tensor Cores", "tensor_cores", ColumnType::Text},
      {"Calls", "calls", ColumnType::Count},
      {"Total", "total", ColumnType::Duration},
      {"Mean", "mean", ColumnType::Duration},
      {"Min", "min", ColumnType::Duration},
      {"Max", "max", ColumnType::Duration},
      {"Blocks/SM", "blocks_per_sm", ColumnType::Text},
      {"Est. achieved occ.(%)", "achieved_occupancy_pct", ColumnType::Percent},
      {"Theoretical occ.(%)", "theoretical_occupancy_pct", ColumnType::Percent},
      {"Limited by", "limited_by", ColumnType::Text},
      {"Registers", "registers", ColumnType::Count},
      {"Shared mem", "shared_memory", ColumnType::Bytes},
      {"Name", "name", ColumnType::Name},
  };
  struct Row {
    uint64_t calls = 0, timed = 0, total = 0, min = UINT64_MAX, max = 0;
    double blocksWeighted = 0, achievedWeighted = 0, theoreticalWeighted = 0, weight = 0;
    std::array<uint64_t, 5> limits{};  // by OccupancyLimit
    uint32_t registers = 0;
    uint64_t shared = 0;
  };
  // A row per kernel name, found by the name's id.
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> slots(trace.strings.size(), kNone);
  std::vector<std::pair<StringId, Row>> byName;
  uint64_t kernelTotal = 0, tensorTotal = 0;
  OccupancyCache occupancy;
  const DeviceInfo* info = nullptr;
  uint32_t infoId = 0;
  bool infoFound = false;
  trace.store.records<KernelRecord>().scan([&](const KernelRecord& k) {
    if (k.name >= slots.size()) slots.resize(static_cast<size_t>(k.name) + 1, kNone);
    if (slots[k.name] == kNone) {
      slots[k.name] = static_cast<uint32_t>(byName.size());
      byName.emplace_back(k.name, Row{});
    }
    Row& r = byName[slots[k.name]].second;
    ++r.calls;
    r.registers = std::max<uint32_t>(r.registers, k.registersPerThread);
    r.shared = std::max<uint64_t>(r.shared, static_cast<uint64_t>(std::max(k.staticSharedMemory, 0)) +
                                                static_cast<uint64_t>(std::max(k.dynamicSharedMemory, 0)));
    if (!hasTime(k.start, k.end)) return;
    const uint64_t dur = k.end - k.start;
    ++r.timed;
    r.total += dur;
    r.min = std::min(r.min, dur);
    r.max = std::max(r.max, dur);
    if (!infoFound || infoId != k.deviceId) {
      info = trace.findDevice(k.deviceId);
      infoId = k.deviceId;
      infoFound = true;
    }
    if (info != nullptr) {
      const KernelOccupancy& o = occupancy.get(k, *info);
      if (o.known) {
        // Weighted by time, so a zero-length kernel still counts a little.
        const double w = static_cast<double>(std::max<uint64_t>(dur, 1));
        r.blocksWeighted += o.gridBlocksPerSm * w;
        r.achievedWeighted += o.achieved * w;
        r.theoreticalWeighted += o.theoretical * w;
        r.weight += w;
        ++r.limits[static_cast<size_t>(o.limit)];
      }
    }
  });
  std::vector<std::pair<StringId, const Row*>> rows;
  for (const auto& [name, r] : byName) rows.emplace_back(name, &r);
  std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    if (a.second->total != b.second->total) return a.second->total > b.second->total;
    return data.kernelName(a.first) < data.kernelName(b.first);
  });
  for (const auto& [name, r] : rows) {
    const bool tc = usesTensorCores(data.kernelName(name));
    kernelTotal += r->total;
    if (tc) tensorTotal += r->total;
    OccupancyLimit limit = OccupancyLimit::Unknown;
    uint64_t most = 0;
    for (size_t l = 0; l < r->limits.size(); ++l)
      if (r->limits[l] > most) limit = static_cast<OccupancyLimit>(l), most = r->limits[l];
    char blocks[32] = "";
    if (r->weight > 0) std::snprintf(blocks, sizeof blocks, "%.2f", r->blocksWeighted / r->weight);
    table.rows.push_back({
        Cell::text(tc ? "Yes" : "No"),
        Cell::integer(r->calls),
        Cell::integer(r->total),
        r->timed ? Cell::integer(r->total / r->timed) : Cell::none(),
        r->timed ? Cell::integer(r->min) : Cell::none(),
        r->timed ? Cell::integer(r->max) : Cell::none(),
        Cell::text(blocks),
        r->weight > 0 ? Cell::real(100.0 * r->achievedWeighted / r->weight) : Cell::none(),
        r->weight > 0 ? Cell::real(100.0 * r->theoreticalWeighted / r->weight) : Cell::none(),
        Cell::text(r->weight > 0 ? occupancyLimitName(limit) : ""),
        Cell::integer(r->registers),
        Cell::integer(r->shared),
        Cell::text(data.kernelName(name)),
    });
  }
  if (!table.rows.empty()) {
    char share[128];
    std::snprintf(share, sizeof share, "Kernel time on Tensor Cores: %.2f%% (%llu of %llu ns)",
                  kernelTotal ? 100.0 * static_cast<double>(tensorTotal) / static_cast<double>(kernelTotal) : 0.0,
                  static_cast<unsigned long long>(tensorTotal), static_cast<unsigned long long>(kernelTotal));
    table.notes.push_back(share);
    table.notes.push_back(kFormulaNote);
  }
  return table;
}

}  // namespace cuptitrace::reports
