// Command-line flags derived from the configuration table: every
// CUPTITRACE_FOO_BAR variable is the flag --foo-bar, so flags, variables,
// --help and the README never disagree.
#pragma once

#include <string>
#include <vector>

#include "core/config.h"

namespace cuptitrace::cli {

// "--foo-bar" for "CUPTITRACE_FOO_BAR".
std::string flagFor(const ConfigVar& var);
// The variable a flag sets, or nullptr ("-o" is --output).
const ConfigVar* varForFlag(const std::string& flag);
// The help text: usage, commands, and every variable with its flag and default.
std::string helpText();
// The README's variable reference, a Markdown table made from the configuration
// table (`cuptitrace --env-markdown`); a unit test keeps the README equal to it.
std::string envMarkdownTable();

}  // namespace cuptitrace::cli
