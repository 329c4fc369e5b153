// operators: PyTorch's operators (op_tree.h) per name, and per input shapes
// when they were recorded (CUPTITRACE_PYTORCH=shapes), with host and device
// self and total times: the PyTorch profiler's operator table
// (key_averages()), from the trace alone.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "reports/kernel_traits.h"
#include "reports/op_tree.h"
#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

struct OpRow {
  std::string name, shapes;
  uint64_t calls = 0, hostTotal = 0, hostSelf = 0, deviceTotal = 0, deviceSelf = 0, kernels = 0;
  uint64_t kernelSelf = 0, kernelTotal = 0, tensorSelf = 0, tensorTotal = 0;
  std::unordered_map<std::string, uint64_t> linked;  // a backward node's forward operators, by count
};

std::string mostCommon(const std::unordered_map<std::string, uint64_t>& counts) {
  const std::string* best = nullptr;
  uint64_t n = 0;
  for (const auto& [name, c] : counts)
    if (c > n || (c == n && best != nullptr && name < *best)) best = &name, n = c;
  return best != nullptr ? *best : std::string();
}

}  // namespace

ReportTable operatorsReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "operators";
  table.title = "PyTorch operators";
  const OpTree tree(trace);
  if (tree.empty()) {
    table.columns = {{"Name", "name", ColumnType::Name}};
    table.notes.push_back(
        "no PyTorch operators in the trace: trace with --pytorch ops (or shapes), or have the program "
        "use torch.autograd.profiler.emit_nvtx()");
    return table;
  }
  const auto& rs = tree.ranges().ranges();
  const auto& times = tree.times();
  std::unordered_map<std::string, size_t> index;
  std::vector<OpRow> rows;
  bool anyShapes = false;
  for (uint32_t i = 0; i < rs.size(); ++i) {
    if (times[i].mergedInto != kNoRange) continue;  // one call with its same-named parent
    TorchRange t = tree.parsed(i);
    if (!data.options().operatorsByShapes) t.shapes = {};
    anyShapes = anyShapes || !t.shapes.empty();
    std::string key(t.name);
    key += '\n';
    key += t.shapes;
    auto [it, added] = index.emplace(std::move(key), rows.size());
    if (added) {
      rows.emplace_back();
      rows.back().name = std::string(t.name);
      rows.back().shapes = std::string(t.shapes);
    }
    OpRow& row = rows[it->second];
    const OpTimes& o = times[i];
    ++row.calls;
    row.hostTotal += rs[i].end - rs[i].start;
    row.hostSelf += o.hostSelf;
    row.deviceTotal += o.deviceTotal;
    row.deviceSelf += o.deviceSelf;
    row.kernels += o.kernelsSelf;
    row.kernelSelf += o.kernelTimeSelf;
    row.kernelTotal += o.kernelTimeTotal;
    row.tensorSelf += o.tensorTimeSelf;
    row.tensorTotal += o.tensorTimeTotal;
    if (o.forward != kNoRange) ++row.linked[std::string(tree.parsed(o.forward).name)];
  }
  std::sort(rows.begin(), rows.end(), [](const OpRow& a, const OpRow& b) {
    if (a.deviceTotal != b.deviceTotal) return a.deviceTotal > b.deviceTotal;
    if (a.hostTotal != b.hostTotal) return a.hostTotal > b.hostTotal;
    return a.name != b.name ? a.name < b.name : a.shapes < b.shapes;
  });
  uint64_t hostSelfSum = 0, deviceSelfSum = 0;
  for (const OpRow& r : rows) hostSelfSum += r.hostSelf, deviceSelfSum += r.deviceSelf;

  table.columns = {
      {"Calls", "calls", ColumnType::Count},
      {"Host self", "host_self", ColumnType::Duration},
      {"Host self(%)", "host_self_pct", ColumnType::Percent},
      {"Host total", "host_total", ColumnType::Duration},
      {"Host avg", "host_avg", ColumnType::Duration},
      {"Device self", "device_self", ColumnType::Duration},
      {"Device self(%)", "device_self_pct", ColumnType::Percent},
      {"Device total", "device_total", ColumnType::Duration},
      {"Device avg", "device_avg", ColumnType::Duration},
      {"Kernels", "kernels", ColumnType::Count},
      {"TC eligible", "tc_eligible", ColumnType::Text},
      {"TC self(%)", "tc_self_ratio", ColumnType::Percent},
      {"TC total(%)", "tc_total_ratio", ColumnType::Percent},
      {"Name", "name", ColumnType::Name},
  };
  if (anyShapes) table.columns.push_back({"Input shapes", "input_shapes", ColumnType::Text});
  table.columns.push_back({"Forward op", "forward_op", ColumnType::Text});
  for (const OpRow& r : rows) {
    std::vector<Cell> row{
        Cell::integer(r.calls),
        Cell::integer(r.hostSelf),
        Cell::real(percent(r.hostSelf, hostSelfSum)),
        Cell::integer(r.hostTotal),
        Cell::integer(r.hostTotal / r.calls),
        Cell::integer(r.deviceSelf),
        Cell::real(percent(r.deviceSelf, deviceSelfSum)),
        Cell::integer(r.deviceTotal),
        Cell::integer(r.deviceTotal / r.calls),
        Cell::integer(r.kernels),
        Cell::text(tensorCoreEligible(r.name) ? "yes" : "no"),
        r.kernelSelf != 0 ? Cell::real(percent(r.tensorSelf, r.kernelSelf)) : Cell::none(),
        r.kernelTotal != 0 ? Cell::real(percent(r.tensorTotal, r.kernelTotal)) : Cell::none(),
        Cell::text(r.name),
    };
    if (anyShapes) row.push_back(Cell::text(r.shapes));
    row.push_back(Cell::text(mostCommon(r.linked)));
    table.rows.push_back(std::move(row));
  }
  table.notes.push_back(
      "Host self: an operator's time less that of the operators directly inside it; device self: "
      "kernels, copies and sets launched directly inside it (by the thread and time of the CUDA call "
      "that launched them); device total: also those of the operators inside it. Sorted by device "
      "total. TC eligible: an operator that could run on Tensor Cores (matrix products, convolutions, linear, "
      "attention, recurrent layers); TC self and total: the share of its kernel time (directly inside it, "
      "and inside it at all) spent in kernels on Tensor Cores, empty without kernels. Forward op: for backward "
      "nodes, the forward operator with the same sequence number on the forward thread (" +
      std::to_string(tree.linkedBackward()) + " linked)");
  if (tree.mergedCalls() != 0)
    table.notes.push_back(std::to_string(tree.mergedCalls()) +
                          " operators were the only child of one of their name and count as one call with it, as "
                          "the PyTorch profiler counts them (aten::set_ of a tensor calling aten::set_ of its storage)");
  if (tree.outsideRecords() != 0)
    table.notes.push_back(std::to_string(tree.outsideRecords()) +
                          " GPU records were launched outside every operator (" +
                          std::to_string(tree.outsideTime()) + " ns of GPU time)");
  return table;
}

}  // namespace cuptitrace::reports
