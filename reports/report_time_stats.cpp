// The time statistics every report table shares: sorting by total time,
// Time(%), the Total/Calls/Avg/Med/Min/Max/StdDev columns and their cells.
#include "reports/report_data.h"

#include <algorithm>
#include <tuple>

namespace cuptitrace::reports {

void sortByTotal(std::vector<Group>& groups) {
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    if (a.time.total != b.time.total) return a.time.total > b.time.total;
    return std::tie(a.name, a.style, a.grid, a.block) < std::tie(b.name, b.style, b.grid, b.block);
  });
}

double percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

uint64_t totalTime(const std::vector<Group>& groups) {
  uint64_t total = 0;
  for (const auto& g : groups) total += g.time.total;
  return total;
}

ReportTable timeTable(const char* name, const char* title, std::vector<Group> groups,
                      const char* countTitle, const char* countKey, const char* nameTitle) {
  ReportTable table;
  table.name = name;
  table.title = title;
  table.columns = timeStatColumns(countTitle, countKey);
  table.columns.push_back({nameTitle, "name", ColumnType::Name});
  sortByTotal(groups);
  const uint64_t total = totalTime(groups);
  for (const auto& g : groups) {
    std::vector<Cell> row;
    appendTimeStats(row, g, total);
    row.push_back(Cell::text(g.name));
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::vector<Column> timeStatColumns(const char* countTitle, const char* countKey) {
  return {
      {"Time(%)", "time_pct", ColumnType::Percent}, {"Total", "total", ColumnType::Duration},
      {countTitle, countKey, ColumnType::Count},    {"Avg", "avg", ColumnType::Duration},
      {"Med", "med", ColumnType::Duration},         {"Min", "min", ColumnType::Duration},
      {"Max", "max", ColumnType::Duration},         {"StdDev", "stddev", ColumnType::Duration},
  };
}

void appendTimeStats(std::vector<Cell>& row, const Group& g, uint64_t reportTotal) {
  row.push_back(Cell::real(percent(g.time.total, reportTotal)));
  row.push_back(Cell::integer(g.time.total));
  row.push_back(Cell::integer(g.records));
  if (g.time.count == 0) {
    for (int i = 0; i < 5; ++i) row.push_back(Cell::none());
    return;
  }
  row.push_back(Cell::real(g.time.mean));
  row.push_back(Cell::real(g.time.median));
  row.push_back(Cell::integer(g.time.min));
  row.push_back(Cell::integer(g.time.max));
  row.push_back(Cell::real(g.time.stddev));
}

std::string untimedNote(const Untimed& u, const char* what) {
  std::string note =
      std::to_string(u.count) + " " + what + (u.count == 1 ? " record has" : " records have") +
      " no valid end (end 0 or before its start): counted in the calls, left out of the times";
  for (size_t i = 0; i < u.examples.size(); ++i) note += (i ? ", " : "; e.g. ") + u.examples[i];
  return note;
}

}  // namespace cuptitrace::reports
