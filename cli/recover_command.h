// `cuptitrace recover JOURNAL.spill [-o PREFIX] [--to FORMATS] [--overwrite]`:
// rebuilds a trace from the spill journal a process left when it died
// without writing its outputs (SIGKILL, _exit()).
#pragma once

#include <string>
#include <vector>

namespace cuptitrace::cli {

// argv[0] is "recover". Returns the exit code.
int recoverCommand(int argc, char** argv);

// The same with the arguments after "recover", writing into `out` (the
// files written, one a line) and `err` (what was found, and errors).
// Exit codes: 0 written, 1 the journal cannot be read or an output failed, 2 bad usage.
int runRecover(const std::vector<std::string>& args, std::string& out, std::string& err);

std::string recoverUsage();

// The command's option names, for shell completion.
std::string recoverOptionWords();

}  // namespace cuptitrace::cli
