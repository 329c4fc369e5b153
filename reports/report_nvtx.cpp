// nvtx: NVTX push/pop and start/end ranges per domain, message and style,
// like `nsys stats --report nvtx_sum`. Marks are instants, not ranges, and
// only counted. A range still open at exit (kNvtxOpen) is in the rows with
// its time up to the last timestamp of the trace, and named in a note.
#include "reports/report_data.h"

namespace cuptitrace::reports {

ReportTable nvtxReport(ReportData& data) {
  std::vector<Group> groups = data.ranges();
  sortByTotal(groups);
  ReportTable table;
  table.name = "nvtx";
  table.title = "NVTX ranges";
  table.columns = timeStatColumns("Instances", "instances");
  table.columns.push_back({"Style", "style", ColumnType::Text});
  table.columns.push_back({"Range", "range", ColumnType::Name});
  uint64_t total = 0, open = 0;
  for (const auto& g : groups) {
    total += g.time.total;
    open += g.open;
  }
  for (const auto& g : groups) {
    std::vector<Cell> row;
    appendTimeStats(row, g, total);
    row.push_back(Cell::text(g.style));
    row.push_back(Cell::text(g.name));
    table.rows.push_back(std::move(row));
  }
  if (open) {
    std::string note =
        std::to_string(open) + (open == 1 ? " range was" : " ranges were") +
        " still open at exit: counted in the instances, timed up to the end of the trace";
    const auto& examples = data.openRangeExamples();
    for (size_t i = 0; i < examples.size(); ++i) note += (i ? ", " : "; e.g. ") + examples[i];
    table.notes.push_back(note);
  }
  const Untimed& u = data.untimed(RecordKind::Nvtx);
  if (u.count) table.notes.push_back(untimedNote(u, "NVTX range"));
  if (const uint64_t marks = data.nvtxMarks())
    table.notes.push_back(
        std::to_string(marks) +
        (marks == 1 ? " mark (an instant, not a range) is" : " marks (instants, not ranges) are") +
        " left out");
  if (!table.rows.empty())
    table.notes.push_back(
        "Time(%) is each range's share of the sum of all ranges' time; nested ranges count in "
        "both");
  return table;
}

}  // namespace cuptitrace::reports
