// gpu_activities, api_calls, kernels, memory_time, memory_size: per-name
// time statistics, the tables nvprof and `nsys stats` print.
#include <algorithm>

#include "core/api_set.h"
#include "reports/report_data.h"

namespace cuptitrace::reports {

ReportTable gpuActivitiesReport(ReportData& data) {
  std::vector<Group> groups = data.kernels();
  const auto& copies = data.copies();
  groups.insert(groups.end(), copies.begin(), copies.end());
  ReportTable table =
      timeTable("gpu_activities", "GPU activities", std::move(groups), "Calls", "calls", "Name");
  const struct {
    RecordKind kind;
    const char* what;
  } kinds[] = {{RecordKind::Kernel, "kernel"},
               {RecordKind::Memcpy, "memcpy"},
               {RecordKind::Memset, "memset"}};
  for (const auto& k : kinds) {
    const Untimed& u = data.untimed(k.kind);
    if (u.count) table.notes.push_back(untimedNote(u, k.what));
  }
  return table;
}

ReportTable apiCallsReport(ReportData& data) {
  ReportTable table = timeTable("api_calls", "API calls", data.api(), "Calls", "calls", "Name");
  const Untimed& u = data.untimed(RecordKind::Api);
  if (u.count) table.notes.push_back(untimedNote(u, "API call"));
  if (const uint64_t nested = data.nestedDriverCalls())
    table.notes.push_back(std::to_string(nested) +
                          " driver calls made inside runtime calls are left out: their time is in "
                          "the runtime call that made them.");
  // The lean set is not every call: say which calls the table holds.
  const ApiSets sets = recordedApiSets(data.trace());
  if (sets.runtime != ApiSet::None || sets.driver != ApiSet::None)
    table.notes.push_back("Recorded: " + describeApiSets(sets) + ".");
  return table;
}

ReportTable kernelsReport(ReportData& data) {
  const bool byConfig = data.options().kernelsByLaunchConfig;
  std::vector<Group> groups = byConfig ? data.kernelsByConfig() : data.kernels();
  sortByTotal(groups);
  ReportTable table;
  table.name = "kernels";
  table.title = byConfig ? "Kernels by launch configuration" : "Kernels";
  table.columns = timeStatColumns("Instances", "instances");
  if (byConfig) {
    table.columns.push_back({"Grid", "grid", ColumnType::Text});
    table.columns.push_back({"Block", "block", ColumnType::Text});
  }
  table.columns.push_back({"Name", "name", ColumnType::Name});
  const uint64_t total = totalTime(groups);
  for (const auto& g : groups) {
    std::vector<Cell> row;
    appendTimeStats(row, g, total);
    if (byConfig) {
      row.push_back(Cell::text(g.grid));
      row.push_back(Cell::text(g.block));
    }
    row.push_back(Cell::text(g.name));
    table.rows.push_back(std::move(row));
  }
  const Untimed& u = data.untimed(RecordKind::Kernel);
  if (u.count) table.notes.push_back(untimedNote(u, "kernel"));
  return table;
}

ReportTable memoryTimeReport(ReportData& data) {
  ReportTable table = timeTable("memory_time", "Memory operations by time", data.memoryOps(),
                                "Count", "count", "Operation");
  for (const auto& [kind, what] :
       {std::pair{RecordKind::Memcpy, "memcpy"}, std::pair{RecordKind::Memset, "memset"}}) {
    const Untimed& u = data.untimed(kind);
    if (u.count) table.notes.push_back(untimedNote(u, what));
  }
  return table;
}

ReportTable memorySizeReport(ReportData& data) {
  std::vector<Group> groups = data.memoryOps();
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    if (a.bytes.total != b.bytes.total) return a.bytes.total > b.bytes.total;
    return a.name < b.name;
  });
  ReportTable table;
  table.name = "memory_size";
  table.title = "Memory operations by size";
  table.columns = {
      {"Total", "total_bytes", ColumnType::Bytes},
      {"Count", "count", ColumnType::Count},
      {"Avg", "avg_bytes", ColumnType::Bytes},
      {"Med", "med_bytes", ColumnType::Bytes},
      {"Min", "min_bytes", ColumnType::Bytes},
      {"Max", "max_bytes", ColumnType::Bytes},
      {"StdDev", "stddev_bytes", ColumnType::Bytes},
      {"Throughput(GB/s)", "throughput_gbps", ColumnType::Rate},
      {"Operation", "name", ColumnType::Name},
  };
  for (const auto& g : groups) {
    std::vector<Cell> row;
    row.push_back(Cell::integer(g.bytes.total));
    row.push_back(Cell::integer(g.records));
    row.push_back(Cell::real(g.bytes.mean));
    row.push_back(Cell::real(g.bytes.median));
    row.push_back(Cell::integer(g.bytes.min));
    row.push_back(Cell::integer(g.bytes.max));
    row.push_back(Cell::real(g.bytes.stddev));
    // Bytes per nanosecond is GB/s (10^9 bytes per second).
    if (g.time.total > 0)
      row.push_back(
          Cell::real(static_cast<double>(g.timedBytes) / static_cast<double>(g.time.total)));
    else
      row.push_back(Cell::none());
    row.push_back(Cell::text(g.name));
    table.rows.push_back(std::move(row));
  }
  if (!table.rows.empty())
    table.notes.push_back(
        "Throughput: bytes of the operations with a time over their total time, in GB/s (10^9 "
        "bytes/s)");
  return table;
}

}  // namespace cuptitrace::reports
