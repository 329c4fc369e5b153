// The run form's command line, `cuptitrace [options] [--] PROGRAM [ARGS...]`,
// derived from the configuration table: every CUPTITRACE_* variable has a
// flag (CUPTITRACE_BUFFER_SIZE is --buffer-size; a bool variable is a plain
// flag, --quiet), and a flag only sets its variable, so flags, variables,
// --help and the README never disagree.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config.h"

namespace cuptitrace::cli {

// "--buffer-size" for "CUPTITRACE_BUFFER_SIZE".
std::string flagFor(const ConfigVar& var);
// The variable a flag sets, or nullptr ("-o" is --output).
const ConfigVar* varForFlag(const std::string& flag);
// The table's row of a variable ("CUPTITRACE_FORMAT"), or nullptr.
const ConfigVar* findConfigVar(const std::string& name);
// Whether a variable's flag takes no value (its type is bool).
bool isPlainFlag(const ConfigVar& var);
// The help text: usage, commands, and every variable with its flag and default.
std::string helpText();
// The variable reference of docs/configuration.md, a Markdown table made from the
// configuration table (`cuptitrace --env-markdown`); a unit test keeps the page equal to it.
std::string envMarkdownTable();

// The run form's option names, for shell completion.
std::string runOptionWords();

// What the run form's command line asks for.
struct RunRequest {
  // The variables to set, in the table's order, each with its checked value.
  std::vector<std::pair<const ConfigVar*, std::string>> settings;
  std::string library;               // --library; empty: the one beside the command
  std::vector<std::string> program;  // the program and its arguments
};

// Parses the run form's arguments (after the command's name). Returns
// kParsed (command_line.h) with `request` filled, or the exit code when
// nothing is to run: 0 for --help, --version, --env-markdown, --completion
// (their text in `out`), 2 for a mistake (one line in `err`).
int parseRunArgs(const std::vector<std::string>& args, RunRequest& request, std::string& out,
                 std::string& err);

}  // namespace cuptitrace::cli
