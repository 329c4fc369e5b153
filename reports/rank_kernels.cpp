#include "reports/rank_kernels.h"

#include <algorithm>
#include <map>

#include "core/demangle.h"
#include "reports/rank_reports.h"

namespace cuptitrace {
namespace {

// One kernel name over the ranks.
struct KernelAcross {
  KernelTotals all;
  std::vector<std::pair<uint64_t, size_t>> rankTotals;  // (total, rank index), one per rank that ran it
};

}  // namespace

ReportTable rankKernelsTable(const std::vector<RankSummary>& ranks) {
  ReportTable t;
  t.name = "rank_kernels";
  t.title = "GPU kernels across ranks";
  t.columns = {
      {"Time(%)", "time_pct", ColumnType::Percent},
      {"Total", "total", ColumnType::Duration},
      {"Instances", "instances", ColumnType::Count},
      {"Mean", "mean", ColumnType::Duration},
      {"Min", "min", ColumnType::Duration},
      {"Max", "max", ColumnType::Duration},
      {"Ranks", "ranks", ColumnType::Count},
      {"Rank min", "rank_min", ColumnType::Duration},
      {"Rank med", "rank_median", ColumnType::Duration},
      {"Rank max", "rank_max", ColumnType::Duration},
      {"Most on", "most_on", ColumnType::Text},
      {"Name", "name", ColumnType::Name},
  };
  std::map<std::string, KernelAcross> byName;
  uint64_t everything = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    for (const auto& [name, k] : ranks[r].kernels) {
      if (k.count == 0) continue;
      KernelAcross& a = byName[name];
      a.all.minNs = a.all.count == 0 ? k.minNs : std::min(a.all.minNs, k.minNs);
      a.all.maxNs = std::max(a.all.maxNs, k.maxNs);
      a.all.count += k.count;
      a.all.totalNs += k.totalNs;
      a.rankTotals.emplace_back(k.totalNs, r);
      everything += k.totalNs;
    }
  }
  std::vector<std::pair<const std::string*, KernelAcross*>> order;
  for (auto& [name, a] : byName) order.emplace_back(&name, &a);
  // Longest total first; names break ties so the order is the same every run.
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& x, const auto& y) { return x.second->all.totalNs > y.second->all.totalNs; });
  DemangleCache demangler;
  for (const auto& [name, a] : order) {
    // Rank totals ordered by total, then rank index: the most is the lowest rank among equals.
    std::vector<std::pair<uint64_t, size_t>> totals = a->rankTotals;
    std::sort(totals.begin(), totals.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first < y.first : x.second > y.second;
    });
    const auto& most = totals.back();
    const double share = everything == 0 ? 0.0
                                          : 100.0 * static_cast<double>(a->all.totalNs) /
                                                static_cast<double>(everything);
    t.rows.push_back({Cell::real(share), Cell::integer(a->all.totalNs), Cell::integer(a->all.count),
                      Cell::real(static_cast<double>(a->all.totalNs) / static_cast<double>(a->all.count)),
                      Cell::integer(a->all.minNs), Cell::integer(a->all.maxNs), Cell::integer(totals.size()),
                      Cell::integer(totals.front().first), Cell::integer(totals[totals.size() / 2].first),
                      Cell::integer(most.first), Cell::text(rankName(ranks[most.second])),
                      Cell::text(demangler.get(*name))});
  }
  t.notes.push_back(
      "Over every rank's kernels (NCCL's too). Rank min, med, max: the least, median and most time one rank "
      "spent in the kernel, over the ranks that ran it; Most on: the rank with the most (the lowest rank on "
      "ties).");
  return t;
}

}  // namespace cuptitrace
