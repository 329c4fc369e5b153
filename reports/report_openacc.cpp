// openacc: OpenACC events per event kind, source line and variable or kernel,
// by exclusive time, laid out as nvprof's "OpenACC (excl)":
//   Time(%)  Time (excl)  Calls  Avg  Min  Max  Name
//   99.12%   51.0064s     3600   ...            acc_wait@layers_acc.c:53
// Exclusive time is an event's duration less that of the OpenACC events
// nested in it on its thread (openacc_nesting.h); Avg, Min and Max are of it.
#include <map>

#include "timeline/openacc_nesting.h"
#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

struct Row {
  uint64_t calls = 0;
  std::vector<uint64_t> exclusive;  // of the events with a valid time
};

}  // namespace

ReportTable openAccReport(ReportData& data) {
  const Trace& trace = data.trace();
  ReportTable table;
  table.name = "openacc";
  table.title = "OpenACC (excl)";
  table.columns = {
      {"Time(%)", "time_pct", ColumnType::Percent}, {"Time (excl)", "excl_total", ColumnType::Duration},
      {"Calls", "calls", ColumnType::Count},        {"Avg", "avg", ColumnType::Duration},
      {"Min", "min", ColumnType::Duration},         {"Max", "max", ColumnType::Duration},
      {"Name", "name", ColumnType::Name},
  };
  const auto& records = trace.store.records<OpenAccRecord>();
  if (records.empty()) {
    table.notes.push_back(
        "no OpenACC records: an OpenACC program records them when the openacc activity is on (it "
        "is by default) and its OpenACC runtime loads the library through ACC_PROFLIB, which the "
        "cuptitrace command sets");
    return table;
  }
  const std::vector<OpenAccNesting> nesting = nestOpenAcc(trace);
  std::map<std::string, Row> rows;
  Untimed untimed;
  size_t index = 0;
  records.forEach([&](const OpenAccRecord& r) {
    Row& row = rows[openAccEventLabel(r, trace.strings)];
    ++row.calls;
    if (hasTime(r.start, r.end)) {
      row.exclusive.push_back(nesting[index].exclusiveNs);
    } else {
      ++untimed.count;
      if (untimed.examples.size() < kMaxExamples)
        untimed.examples.push_back(openAccEventLabel(r, trace.strings) + " (OpenACC id " +
                                   std::to_string(r.externalId) + ")");
    }
    ++index;
  });
  std::vector<Group> groups;
  groups.reserve(rows.size());
  for (auto& [name, row] : rows) {
    Group g;
    g.name = name;
    g.records = row.calls;
    g.time = summarize(row.exclusive);
    std::vector<uint64_t>().swap(row.exclusive);
    groups.push_back(std::move(g));
  }
  sortByTotal(groups);
  const uint64_t total = totalTime(groups);
  for (const Group& g : groups) {
    std::vector<Cell> cells;
    cells.push_back(Cell::real(percent(g.time.total, total)));
    cells.push_back(Cell::integer(g.time.total));
    cells.push_back(Cell::integer(g.records));
    if (g.time.count == 0) {
      for (int i = 0; i < 3; ++i) cells.push_back(Cell::none());
    } else {
      cells.push_back(Cell::real(g.time.mean));
      cells.push_back(Cell::integer(g.time.min));
      cells.push_back(Cell::integer(g.time.max));
    }
    cells.push_back(Cell::text(g.name));
    table.rows.push_back(std::move(cells));
  }
  table.notes.push_back(
      "Time (excl): each event's time less that of the OpenACC events nested in it on its thread "
      "(a compute construct less its launch and waits, a data construct less its uploads)");
  if (untimed.count) table.notes.push_back(untimedNote(untimed, "OpenACC"));
  return table;
}

}  // namespace cuptitrace::reports
