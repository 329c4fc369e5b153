// Reads many ranks' traces into RankSummaries (reports/rank_summary.h),
// one trace per worker at a time: memory holds at most `workers` traces, never
// the sum of them, plus the summaries. A trace is a native file or a SQLite
// database written by the tracer (cli/rank_sqlite.h), told apart by its first bytes.
#pragma once

#include <string>
#include <vector>

#include "reports/rank_summary.h"

namespace cuptitrace {

struct RankReadResult {
  std::vector<RankSummary> summaries;  // in the order of the paths; failed ones left out
  std::vector<std::string> errors;     // one line per trace that could not be read
};

// One trace's summary. On failure, false with `error`: one line naming the path.
bool summarizeTraceFile(const std::string& path, RankSummary& summary, std::string& error);

// `workers` threads (at least 1, at most one per path) read the traces in turn.
RankReadResult summarizeTraceFiles(const std::vector<std::string>& paths, unsigned workers);

}  // namespace cuptitrace
