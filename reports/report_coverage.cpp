// coverage: the fewest GPU activities (kernels and memory operations, as
// nvprof lists them) and the fewest API calls whose summed time reaches the
// threshold (CUPTITRACE_COVERAGE, 90% by default) of their kind's time.
// Rows are taken in the order of the other reports (total time descending,
// ties by name), and the cut is exact: a row that brings the cumulative share
// to exactly the threshold is the last one.
#include <cstdio>

#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

std::string thresholdText(uint32_t basisPoints) {
  std::string s = std::to_string(basisPoints / 100);
  if (const uint32_t frac = basisPoints % 100) {
    s += '.';
    s += static_cast<char>('0' + frac / 10);
    if (frac % 10) s += static_cast<char>('0' + frac % 10);
  }
  return s + "%";
}

// Adds the covering rows of `groups` (sorted here) to `table`; returns the note.
std::string cover(ReportTable& table, std::vector<Group> groups, const char* kind, const char* what,
                  uint32_t basisPoints) {
  sortByTotal(groups);
  uint64_t total = 0;
  for (const auto& g : groups) total += g.time.total;
  if (total == 0) return std::string("no ") + what + " with a time";
  using u128 = unsigned __int128;
  uint64_t cumulative = 0;
  size_t rank = 0;
  for (const auto& g : groups) {
    // Reached: cumulative / total >= basisPoints / 10000, in exact integers.
    if (u128(cumulative) * 10000 >= u128(basisPoints) * total) break;
    cumulative += g.time.total;
    ++rank;
    table.rows.push_back({Cell::text(kind), Cell::integer(rank),
                          Cell::real(percent(g.time.total, total)),
                          Cell::real(percent(cumulative, total)), Cell::integer(g.time.total),
                          Cell::integer(g.records), Cell::text(g.name)});
  }
  char share[32];
  std::snprintf(share, sizeof share, "%.2f%%", percent(cumulative, total));
  return std::string(kind) + ": " + std::to_string(rank) + " of " + std::to_string(groups.size()) +
         " " + what + (rank == 1 ? " covers " : " cover ") + share + " of their total time (" +
         formatDuration(static_cast<double>(total), true, TimeUnit::Auto) + ")";
}

}  // namespace

ReportTable coverageReport(ReportData& data) {
  const uint32_t bp = data.options().coverageBasisPoints;
  ReportTable table;
  table.name = "coverage";
  table.title = "What covers " + thresholdText(bp) + " of the time";
  table.columns = {
      {"Kind", "kind", ColumnType::Text},
      {"Rank", "rank", ColumnType::Count},
      {"Time(%)", "time_pct", ColumnType::Percent},
      {"Cumulative(%)", "cumulative_pct", ColumnType::Percent},
      {"Total", "total", ColumnType::Duration},
      {"Calls", "calls", ColumnType::Count},
      {"Name", "name", ColumnType::Name},
  };
  std::vector<Group> gpu = data.kernels();
  const auto& copies = data.copies();
  gpu.insert(gpu.end(), copies.begin(), copies.end());
  table.notes.push_back(cover(table, std::move(gpu), "GPU", "kernels and memory operations", bp));
  table.notes.push_back(cover(table, data.api(), "API", "API calls", bp));
  return table;
}

}  // namespace cuptitrace::reports
