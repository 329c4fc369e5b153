#include "reports/rank_reports.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/rank_info.h"
#include "reports/rank_kernels.h"

namespace cuptitrace {
namespace {

double percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}
std::string dur(uint64_t ns) {
  return formatDuration(static_cast<double>(ns), true, TimeUnit::Auto);
}
std::string pct(double v) {
  char tmp[32];
  std::snprintf(tmp, sizeof tmp, "%.0f%%", v);
  return tmp;
}

uint64_t median(std::vector<uint64_t> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  return values[mid];
}

// Every collective any rank ran, in the order of their total time over all ranks (longest first).
std::vector<std::string> collectiveNames(const std::vector<RankSummary>& ranks) {
  std::map<std::string, uint64_t> total;
  for (const RankSummary& r : ranks)
    for (const auto& [name, instances] : r.collectives)
      for (const CollectiveInstance& i : instances) total[name] += i.durationNs;
  std::vector<std::pair<std::string, uint64_t>> sorted(total.begin(), total.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> names;
  for (auto& [name, time] : sorted) names.push_back(name);
  return names;
}

const std::vector<CollectiveInstance>& instancesOf(const RankSummary& r,
                                                   const std::string& collective) {
  static const std::vector<CollectiveInstance> kNone;
  const auto it = r.collectives.find(collective);
  return it == r.collectives.end() ? kNone : it->second;
}

ReportTable ranksTable(const std::vector<RankSummary>& ranks,
                       const std::vector<std::string>& skipped) {
  ReportTable t;
  t.name = "ranks";
  t.title = "GPU time per rank";
  t.columns = {
      {"Rank", "rank", ColumnType::Text},
      {"Host", "host", ColumnType::Text},
      {"PID", "pid", ColumnType::Count},
      {"GPUs", "gpus", ColumnType::Count},
      {"Compute", "compute", ColumnType::Duration},
      {"Comm", "comm", ColumnType::Duration},
      {"Copies", "copies", ColumnType::Duration},
      {"Idle", "idle", ColumnType::Duration},
      {"Span", "span", ColumnType::Duration},
      {"Comm(%)", "comm_pct", ColumnType::Percent},
      {"Comm overlapped(%)", "comm_overlapped_pct", ColumnType::Percent},
      {"Collectives", "collectives", ColumnType::Count},
      {"Dropped", "dropped", ColumnType::Count},
  };
  for (const RankSummary& r : ranks) {
    t.rows.push_back({Cell::text(rankName(r)), Cell::text(r.host), Cell::integer(r.pid),
                      Cell::integer(r.gpus), Cell::integer(r.computeNs), Cell::integer(r.commNs),
                      Cell::integer(r.copyNs), Cell::integer(r.idleNs), Cell::integer(r.spanNs),
                      Cell::real(percent(r.commNs, r.spanNs)),
                      r.commNs == 0 ? Cell::none() : Cell::real(percent(r.overlappedNs, r.commNs)),
                      Cell::integer(r.commKernels), Cell::integer(r.dropped)});
  }
  t.notes.push_back(
      "Compute: kernels that are not NCCL's; Comm: NCCL's kernels; Copies: memory copies and sets; "
      "Idle: time "
      "from each GPU's first work to its last with nothing running; times are summed over a rank's "
      "GPUs. Comm "
      "overlapped: the share of Comm during which a compute kernel ran on the same GPU.");
  for (const std::string& s : skipped) t.notes.push_back("Skipped " + s);
  std::set<int64_t> seen;
  for (const RankSummary& r : ranks)
    if (r.rank >= 0 && !seen.insert(r.rank).second)
      t.notes.push_back(rankLabel(r.rank) +
                        " appears in more than one trace (traces of different jobs?)");
  return t;
}

ReportTable collectivesTable(const std::vector<RankSummary>& ranks,
                             const std::vector<CollectiveSpread>& spreads) {
  ReportTable t;
  t.name = "collectives";
  t.title = "NCCL collectives per rank";
  t.columns = {
      {"Collective", "collective", ColumnType::Name},
      {"Rank", "rank", ColumnType::Text},
      {"Instances", "instances", ColumnType::Count},
      {"Total", "total", ColumnType::Duration},
      {"Mean", "mean", ColumnType::Duration},
      {"Med", "median", ColumnType::Duration},
      {"Min", "min", ColumnType::Duration},
      {"Max", "max", ColumnType::Duration},
      {"Last arrivals", "last_arrivals", ColumnType::Count},
      {"Waited", "waited", ColumnType::Duration},
  };
  for (const CollectiveSpread& c : spreads) {
    for (size_t r = 0; r < ranks.size(); ++r) {
      const auto& instances = instancesOf(ranks[r], c.collective);
      if (instances.empty()) continue;
      std::vector<uint64_t> d;
      uint64_t total = 0;
      for (const CollectiveInstance& i : instances) {
        d.push_back(i.durationNs);
        total += i.durationNs;
      }
      const auto [lo, hi] = std::minmax_element(d.begin(), d.end());
      t.rows.push_back({Cell::text(c.collective), Cell::text(rankName(ranks[r])),
                        Cell::integer(d.size()), Cell::integer(total),
                        Cell::real(static_cast<double>(total) / static_cast<double>(d.size())),
                        Cell::integer(median(d)), Cell::integer(*lo), Cell::integer(*hi),
                        Cell::integer(c.lastArrivals[r]), Cell::integer(c.waitedNs[r])});
    }
    if (c.instances == 0)
      t.notes.push_back(c.collective +
                        ": not run by every rank, so no instance is matched across ranks");
    else if (std::any_of(c.counts.begin(), c.counts.end(),
                         [&](uint64_t n) { return n != c.instances; }))
      t.notes.push_back(c.collective + ": ranks ran different numbers; the first " +
                        std::to_string(c.instances) + " of each are matched");
  }
  t.notes.push_back(
      "Last arrivals: matched instances where this rank's kernel was the shortest, i.e. it reached "
      "the "
      "collective last and the others waited for it. Waited: the sum over matched instances of "
      "this rank's "
      "duration minus the shortest rank's, the time it spent waiting for the last one.");
  return t;
}

ReportTable spreadTable(const std::vector<RankSummary>& ranks,
                        const std::vector<CollectiveSpread>& spreads) {
  ReportTable t;
  t.name = "collective_spread";
  t.title = "NCCL collectives across ranks";
  t.columns = {
      {"Collective", "collective", ColumnType::Name},
      {"Matched", "matched", ColumnType::Count},
      {"Med spread", "median_spread", ColumnType::Duration},
      {"Max spread", "max_spread", ColumnType::Duration},
      {"Total spread", "total_spread", ColumnType::Duration},
      {"Last most often", "last_most_often", ColumnType::Text},
      {"Last(%)", "last_pct", ColumnType::Percent},
  };
  for (const CollectiveSpread& c : spreads) {
    if (c.instances == 0) continue;
    t.rows.push_back({Cell::text(c.collective), Cell::integer(c.instances),
                      Cell::integer(c.medianSpreadNs), Cell::integer(c.maxSpreadNs),
                      Cell::integer(c.totalSpreadNs), Cell::text(rankName(ranks[c.mostOftenLast])),
                      Cell::real(percent(c.lastArrivals[c.mostOftenLast], c.instances))});
  }
  t.notes.push_back(
      "Spread: per matched instance, the longest rank's duration minus the shortest's: how long "
      "the first rank "
      "to arrive waited for the last.");
  return t;
}

ReportTable findingsTable(const std::vector<RankSummary>& ranks,
                          const std::vector<CollectiveSpread>& spreads) {
  ReportTable t;
  t.name = "rank_findings";
  t.title = "Findings across ranks";
  t.style = TableStyle::List;
  t.columns = {
      {"#", "number", ColumnType::Count},
      {"Finding", "finding", ColumnType::Text},
      {"Details", "details", ColumnType::Text},
  };
  auto add = [&](std::string title, std::string details) {
    t.rows.push_back({Cell::integer(t.rows.size() + 1), Cell::text(std::move(title)),
                      Cell::text(std::move(details))});
  };
  for (const CollectiveSpread& c : spreads) {
    if (c.instances < kStragglerMinInstances || c.medianSpreadNs < kStragglerMinSpreadNs) continue;
    const size_t s = c.mostOftenLast;
    if (static_cast<double>(c.lastArrivals[s]) <
        kStragglerMinShare * static_cast<double>(c.instances))
      continue;
    // The rank that waited most: the one that arrives first.
    size_t waiter = s == 0 && ranks.size() > 1 ? 1 : 0;
    for (size_t r = 0; r < ranks.size(); ++r)
      if (r != s && c.waitedNs[r] > c.waitedNs[waiter]) waiter = r;
    std::vector<uint64_t> own, other;
    for (const CollectiveInstance& i : instancesOf(ranks[s], c.collective))
      own.push_back(i.durationNs);
    for (const CollectiveInstance& i : instancesOf(ranks[waiter], c.collective))
      other.push_back(i.durationNs);
    add(rankName(ranks[s]) + " is the straggler of " + c.collective +
            ": the other ranks wait for it",
        rankName(ranks[s]) + " reached " + c.collective + " last in " +
            std::to_string(c.lastArrivals[s]) + " of " + std::to_string(c.instances) +
            " matched instances. Its kernels are the shortest (median " + dur(median(own)) +
            ", against " + dur(median(other)) + " on " + rankName(ranks[waiter]) +
            ") because they start last and need not wait; the others waited for it a median " +
            dur(c.medianSpreadNs) + " per instance, " + dur(c.totalSpreadNs) + " in all (" +
            rankName(ranks[waiter]) + ": " + dur(c.waitedNs[waiter]) + "). Look at what " +
            rankName(ranks[s]) + " does before each " + c.collective +
            " (compute, data loading, host work): it is late there, not in "
            "NCCL.");
  }
  // Communication nobody hides.
  uint64_t comm = 0, overlapped = 0;
  for (const RankSummary& r : ranks) {
    comm += r.commNs;
    overlapped += r.overlappedNs;
  }
  if (comm != 0 && percent(overlapped, comm) < 10.0) {
    add("Communication is not overlapped with compute",
        "Over all ranks " + dur(comm) + " went to NCCL kernels, " + pct(percent(overlapped, comm)) +
            " of it while a compute kernel ran on the same GPU: the GPUs compute or communicate, "
            "not both "
            "(DDP overlaps gradient all-reduces with the backward pass when buckets are ready "
            "early).");
  }
  for (const RankSummary& r : ranks)
    if (r.dropped != 0)
      add(rankName(r) + " lost records", std::to_string(r.dropped) + " records were dropped in " +
                                             r.file + ": its numbers are low by that much.");
  if (t.rows.empty())
    add("Nothing stands out across ranks", "No rank is consistently last to a collective.");
  return t;
}

}  // namespace

std::string rankName(const RankSummary& r) {
  return r.rank >= 0 ? rankLabel(r.rank) : "pid " + std::to_string(r.pid);
}

CollectiveSpread collectiveSpread(const std::string& collective,
                                  const std::vector<RankSummary>& ranks) {
  CollectiveSpread c;
  c.collective = collective;
  c.counts.assign(ranks.size(), 0);
  c.lastArrivals.assign(ranks.size(), 0);
  c.waitedNs.assign(ranks.size(), 0);
  if (ranks.empty()) return c;
  c.instances = UINT64_MAX;
  for (size_t r = 0; r < ranks.size(); ++r) {
    c.counts[r] = instancesOf(ranks[r], collective).size();
    c.instances = std::min(c.instances, c.counts[r]);
  }
  std::vector<uint64_t> spreads;
  spreads.reserve(c.instances);
  for (uint64_t i = 0; i < c.instances; ++i) {
    size_t shortest = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t r = 0; r < ranks.size(); ++r) {
      const uint64_t d = instancesOf(ranks[r], collective)[i].durationNs;
      if (d < lo) {
        lo = d;
        shortest = r;
      }
      hi = std::max(hi, d);
    }
    ++c.lastArrivals[shortest];
    for (size_t r = 0; r < ranks.size(); ++r)
      c.waitedNs[r] += instancesOf(ranks[r], collective)[i].durationNs - lo;
    spreads.push_back(hi - lo);
    c.totalSpreadNs += hi - lo;
    c.maxSpreadNs = std::max(c.maxSpreadNs, hi - lo);
  }
  c.medianSpreadNs = median(std::move(spreads));
  for (size_t r = 0; r < ranks.size(); ++r)
    if (c.lastArrivals[r] > c.lastArrivals[c.mostOftenLast]) c.mostOftenLast = r;
  return c;
}

std::vector<RankSummary> orderRanks(std::vector<RankSummary> summaries,
                                    std::vector<std::string>& skipped) {
  std::vector<RankSummary> kept;
  for (RankSummary& s : summaries) {
    if (s.hasGpuWork()) {
      kept.push_back(std::move(s));
    } else {
      skipped.push_back(s.processName + " (" + rankName(s) + ", " + s.file +
                        "): no GPU work (a launcher such as torchrun or mpirun, or a process that "
                        "never used CUDA)");
    }
  }
  // Ranks first, in rank order; processes without a rank after them, as given.
  std::stable_sort(kept.begin(), kept.end(), [](const RankSummary& a, const RankSummary& b) {
    if ((a.rank >= 0) != (b.rank >= 0)) return a.rank >= 0;
    return a.rank >= 0 && a.rank < b.rank;
  });
  return kept;
}

const std::vector<RankReportInfo>& rankReportCatalog() {
  static const std::vector<RankReportInfo> catalog = {
      {"ranks",
       "per rank: compute, NCCL communication, copies, idle; communication overlapped by compute"},
      {"collectives",
       "per NCCL collective and rank: durations, last arrivals, time waited for the others"},
      {"collective_spread",
       "per NCCL collective: spread of durations across ranks, who arrives last"},
      {"rank_findings", "the straggler rank and other cross-rank findings, in words"},
      {"rank_kernels",
       "per kernel name over all ranks: time, instances, per-rank totals, the rank with the most"},
  };
  return catalog;
}

bool isRankReport(const std::string& name) {
  for (const auto& r : rankReportCatalog())
    if (name == r.name) return true;
  return false;
}

std::vector<ReportTable> buildRankReports(const std::vector<RankSummary>& ranks,
                                          const std::vector<std::string>& names,
                                          const std::vector<std::string>& skipped) {
  std::vector<CollectiveSpread> spreads;
  for (const std::string& name : collectiveNames(ranks))
    spreads.push_back(collectiveSpread(name, ranks));
  std::vector<ReportTable> tables;
  for (const std::string& name : names) {
    if (name == "ranks")
      tables.push_back(ranksTable(ranks, skipped));
    else if (name == "collectives")
      tables.push_back(collectivesTable(ranks, spreads));
    else if (name == "collective_spread")
      tables.push_back(spreadTable(ranks, spreads));
    else if (name == "rank_findings")
      tables.push_back(findingsTable(ranks, spreads));
    else if (name == "rank_kernels")
      tables.push_back(rankKernelsTable(ranks));
  }
  return tables;
}

}  // namespace cuptitrace
