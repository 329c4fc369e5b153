// `cuptitrace stats TRACE.native [options]`: prints reports of a saved trace
// (reports/reports.h) as text tables, CSV or JSON.
#pragma once

#include <string>
#include <vector>

namespace cuptitrace::cli {

// argv[0] is "stats". Prints to stdout, errors to stderr; returns the exit code.
int statsCommand(int argc, char** argv);

// The same with the arguments after "stats", writing into `out` and `err` (for tests).
// Exit codes: 0 done, 1 the trace cannot be read, 2 bad usage.
int runStats(const std::vector<std::string>& args, std::string& out, std::string& err);

// The usage text of `cuptitrace stats`.
std::string statsUsage();

// The command's option names, for shell completion.
std::string statsOptionWords();

}  // namespace cuptitrace::cli
