// Reads many ranks' native traces into RankSummaries (reports/rank_summary.h),
// one trace per worker at a time: memory holds at most `workers` traces, never
// the sum of them, plus the summaries.
#pragma once

#include <string>
#include <vector>

#include "reports/rank_summary.h"

namespace cuptitrace {

struct RankReadResult {
  std::vector<RankSummary> summaries;  // in the order of the paths; failed ones left out
  std::vector<std::string> errors;     // one line per trace that could not be read
};

// `workers` threads (at least 1, at most one per path) read the traces in turn.
RankReadResult summarizeTraceFiles(const std::vector<std::string>& paths, unsigned workers);

}  // namespace cuptitrace
