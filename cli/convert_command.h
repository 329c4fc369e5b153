// `cuptitrace convert TRACE.native --to FORMATS [-o PREFIX] [--split SIZE] [--overwrite]`.
#pragma once

#include <string>
#include <vector>

namespace cuptitrace::cli {

// argv[0] is "convert". Returns the exit code.
int convertCommand(int argc, char** argv);

// The same with the arguments after "convert", writing into `out` (the files
// written, one a line) and `err`. Exit codes: 0 written, 1 the trace cannot be
// read or an output failed, 2 bad usage.
int runConvert(const std::vector<std::string>& args, std::string& out, std::string& err);

// The command's option names, for shell completion.
std::string convertOptionWords();

}  // namespace cuptitrace::cli
