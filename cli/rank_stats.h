// The cross-rank step of `cuptitrace stats`, whether the summaries were made
// here from traces or elsewhere by `cuptitrace summarize` (a Dask task of
// `cuptitrace recipe`, a job array): one function renders the reports, so
// both ways print the same bytes.
#pragma once

#include <string>
#include <vector>

#include "reports/rank_summary.h"
#include "reports/rank_summary_blob.h"
#include "reports/report_table.h"

namespace cuptitrace::cli {

// Appends the summaries and failures of `path` ("-": standard input) to
// `blobs`; false with `error` (one line naming it) when it cannot be read.
bool readRankSummaries(const std::string& path, RankBlobs& blobs, std::string& error);

// The reports `names` over `summaries` into `out`, their messages into `err`;
// returns the exit code. Each of `failures` (traces that could not be read)
// is one line in `err`, and the reports say how many ranks they cover.
int reportAcrossRanks(std::vector<RankSummary> summaries, const std::vector<RankFailure>& failures,
                      const std::vector<std::string>& names, ReportFormat format, const RenderOptions& render,
                      std::string& out, std::string& err);

}  // namespace cuptitrace::cli
