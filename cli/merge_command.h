// `cuptitrace merge A.native B.native ... -o OUT.json|OUT.pftrace [--overwrite]`.
#pragma once

#include <string>
#include <vector>

namespace cuptitrace::cli {

std::string mergeUsage();
// Runs the command on `args` (after "merge"): what it prints goes to `out`
// and `err`; returns the exit status.
int runMerge(const std::vector<std::string>& args, std::string& out, std::string& err);
// argv[0] is "merge".
int mergeCommand(int argc, char** argv);

// The command's option names, for shell completion.
std::string mergeOptionWords();

}  // namespace cuptitrace::cli
