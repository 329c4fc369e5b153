// `cuptitrace report TRACE... -o run.html`: the HTML report
// (exporters/html/html_report.h) of one trace, or of several ranks' traces
// or their summaries (`cuptitrace summarize`, a Dask task of `cuptitrace
// recipe`): one self-contained page that opens offline.
#pragma once

#include <string>
#include <vector>

namespace cuptitrace::cli {

// argv[0] is "report". Messages to stderr; returns the exit code.
int reportCommand(int argc, char** argv);

// The same with the arguments after "report" (for tests). Exit codes: 0 done,
// 1 a trace cannot be read or the page cannot be written, 2 bad usage.
int runReport(const std::vector<std::string>& args, std::string& out, std::string& err);

std::string reportUsage();
std::string reportOptionWords();

}  // namespace cuptitrace::cli
