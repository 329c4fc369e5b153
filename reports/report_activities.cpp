// gpu_activities, api_calls, kernels, memory_time, memory_size: per-name
// time statistics, the tables nvprof and `nsys stats` print.
#include <algorithm>
#include <map>

#include "core/api_set.h"
#include "reports/report_data.h"
#include "timeline/external_ids.h"

namespace cuptitrace::reports {
namespace {

// Kernels per name and Python line (--python-backtrace): the line of user
// code whose torch call launched them; kernels launched elsewhere have none.
std::vector<Group> kernelsByPython(ReportData& data, uint64_t& withLine) {
  const Trace& trace = data.trace();
  const ExternalIdIndex lines(trace);
  std::map<std::pair<StringId, StringId>, std::vector<uint64_t>> durations;
  std::map<std::pair<StringId, StringId>, Group> groups;
  trace.store.records<KernelRecord>().scan([&](const KernelRecord& k) {
    const ExternalIdEntry* e = lines.find(k.correlationId);
    const StringId line = e != nullptr ? e->python : kNoString;
    if (line != kNoString) ++withLine;
    const auto key = std::make_pair(k.name, line);
    Group& g = groups[key];
    ++g.records;
    if (hasTime(k.start, k.end)) durations[key].push_back(k.end - k.start);
  });
  std::vector<Group> out;
  for (auto& [key, g] : groups) {
    g.name = data.kernelName(key.first);
    g.python = key.second != kNoString ? std::string(trace.strings.get(key.second)) : std::string();
    g.time = summarize(durations[key]);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

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
  const bool byPython = data.options().kernelsByPython;
  const bool byConfig = data.options().kernelsByLaunchConfig && !byPython;
  uint64_t withLine = 0;
  std::vector<Group> groups =
      byPython ? kernelsByPython(data, withLine) : byConfig ? data.kernelsByConfig() : data.kernels();
  sortByTotal(groups);
  ReportTable table;
  table.name = "kernels";
  table.title = byPython ? "Kernels by Python line" : byConfig ? "Kernels by launch configuration" : "Kernels";
  table.columns = timeStatColumns("Instances", "instances");
  if (byConfig) {
    table.columns.push_back({"Grid", "grid", ColumnType::Text});
    table.columns.push_back({"Block", "block", ColumnType::Text});
  }
  table.columns.push_back({"Name", "name", ColumnType::Name});
  if (byPython) {
    table.columns.push_back({"Python", "python", ColumnType::Text});
    table.notes.push_back(withLine == 0 ? std::string("no kernel carries a Python line: trace the program "
                                                      "with --python-backtrace")
                                        : "Python: the innermost frames of user code of the torch call "
                                          "that launched the kernels (" + std::to_string(withLine) +
                                              " kernels); none: launched elsewhere (the autograd engine's "
                                              "threads, compiled graphs)");
  }
  const uint64_t total = totalTime(groups);
  for (const auto& g : groups) {
    std::vector<Cell> row;
    appendTimeStats(row, g, total);
    if (byConfig) {
      row.push_back(Cell::text(g.grid));
      row.push_back(Cell::text(g.block));
    }
    row.push_back(Cell::text(g.name));
    if (byPython) row.push_back(Cell::text(g.python));
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
