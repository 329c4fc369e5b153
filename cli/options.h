// Command-line flags derived from the configuration table: every
// CUPTITRACE_* variable has a flag: CUPTITRACE_BUFFER_SIZE is --buffer-size, so flags, variables,
// --help and the README never disagree.
#pragma once

#include <string>
#include <vector>

#include "core/config.h"

namespace cuptitrace::cli {

// "--buffer-size" for "CUPTITRACE_BUFFER_SIZE".
std::string flagFor(const ConfigVar& var);
// The variable a flag sets, or nullptr ("-o" is --output).
const ConfigVar* varForFlag(const std::string& flag);
// The help text: usage, commands, and every variable with its flag and default.
std::string helpText();
// The README's variable reference, a Markdown table made from the configuration
// table (`cuptitrace --env-markdown`); a unit test keeps the README equal to it.
std::string envMarkdownTable();

}  // namespace cuptitrace::cli
