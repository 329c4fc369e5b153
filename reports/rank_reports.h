// Reports across ranks (`cuptitrace stats a.native b.native ...`): where each
// rank's GPU time went, how long each NCCL collective took on each rank, and
// which rank the others wait for.
//
//   ranks              per rank: compute, communication, copies, idle; the share of
//                      communication overlapped by compute on the same GPU
//   collectives        per collective and rank: instances, durations, how often the
//                      rank arrived last, how long it waited for the others
//   collective_spread  per collective: how far apart the ranks' durations are, and
//                      which rank arrives last most often
//   rank_findings      the straggler, in words, with the numbers behind it
//   rank_kernels       per kernel name over all ranks (reports/rank_kernels.h)
//
// Who waits for whom. An NCCL collective's kernel starts on each GPU when
// that rank reaches it, and cannot finish on any rank before the last rank
// has arrived: every rank's kernel ends at about the same time. So the rank
// that arrives FIRST has the LONGEST kernel (it waits for everyone) and the
// rank that arrives LAST, the straggler, has the SHORTEST. A rank with a lot
// of time in all-reduce kernels is not slow at communicating: it is early,
// waiting for a rank that is late with its compute. Durations are read on
// each GPU's own clock, so the conclusion holds across hosts whose clocks
// disagree. The i-th instance of a collective on one rank is matched with
// the i-th on every other (NCCL runs the collectives of a communicator in the
// same order on all its ranks); a collective of a different count on some
// rank is matched up to the smallest count, and the notes say so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/rank_summary.h"
#include "reports/report_table.h"

namespace cuptitrace {

// A straggler finding needs at least this many matched instances ...
inline constexpr uint64_t kStragglerMinInstances = 3;
// ... the same rank last at this share of them or more ...
inline constexpr double kStragglerMinShare = 2.0 / 3.0;
// ... and a median spread (longest duration minus shortest) of at least this.
inline constexpr uint64_t kStragglerMinSpreadNs = 10'000;

// One collective over the ranks (indices into the ranks given).
struct CollectiveSpread {
  std::string collective;
  uint64_t instances = 0;              // matched on every rank
  std::vector<uint64_t> counts;        // per rank: instances it ran
  std::vector<uint64_t> lastArrivals;  // per rank: instances where its kernel was the shortest
  std::vector<uint64_t> waitedNs;      // per rank: sum of (its duration - the shortest)
  uint64_t medianSpreadNs = 0;         // spread: longest duration minus shortest, per instance
  uint64_t maxSpreadNs = 0;
  uint64_t totalSpreadNs = 0;
  size_t mostOftenLast = 0;  // the rank index that was last most often (lowest on ties)
};

CollectiveSpread collectiveSpread(const std::string& collective,
                                  const std::vector<RankSummary>& ranks);

// The ranks of `summaries` with GPU work, in rank order (ranks first, then
// the processes without one, in the order given); the others are named in
// `skipped` ("torchrun (pid 12, t.pid12.native): no GPU work").
std::vector<RankSummary> orderRanks(std::vector<RankSummary> summaries,
                                    std::vector<std::string>& skipped);

// "rank 3", or "pid 1234" for a process without one.
std::string rankName(const RankSummary& r);

struct RankReportInfo {
  const char* name;
  const char* description;
};
const std::vector<RankReportInfo>& rankReportCatalog();
bool isRankReport(const std::string& name);

// The named reports over `ranks` (ordered by orderRanks); `skipped` goes into
// the notes of the ranks report.
std::vector<ReportTable> buildRankReports(const std::vector<RankSummary>& ranks,
                                          const std::vector<std::string>& names,
                                          const std::vector<std::string>& skipped);

}  // namespace cuptitrace
