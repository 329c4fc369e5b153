// Trace arguments that are patterns: `cuptitrace merge 't.*.native'` works
// when the shell did not expand the pattern (it was quoted, or the command
// runs from a launcher script that passes it on as is).
#pragma once

#include <string>
#include <vector>

namespace cuptitrace::cli {

// Each argument that names no existing file and holds a wildcard (*, ?, [)
// is replaced by the files it matches, sorted; others are kept. False (and
// `error` names the pattern) when a pattern matches nothing.
bool expandTraceArgs(const std::vector<std::string>& args, std::vector<std::string>& out,
                     std::string& error);

}  // namespace cuptitrace::cli
