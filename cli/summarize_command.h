// `cuptitrace summarize TRACE... [-o FILE]`: the per-rank step of the reports
// across ranks, alone. Each trace (native or SQLite) is reduced to its rank
// summary (reports/rank_summary_blob.h) and written out; `cuptitrace stats
// --summaries` makes the reports from them. The two halves let the reading be
// spread over machines: a Dask task per trace (`cuptitrace recipe`), or a job
// array, with the reports made where the summaries are gathered.
#pragma once

#include <string>
#include <vector>

namespace cuptitrace::cli {

std::string summarizeUsage();
// Runs the command on `args` (after "summarize"); the summaries go to `out`
// when written to standard output. Returns the exit status.
int runSummarize(const std::vector<std::string>& args, std::string& out, std::string& err);
// argv[0] is "summarize".
int summarizeCommand(int argc, char** argv);

std::string summarizeOptionWords();

}  // namespace cuptitrace::cli
