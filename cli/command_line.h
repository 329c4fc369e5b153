// The command line of every cuptitrace command, parsed by CLI11. A command
// describes its options here; only command_line.cpp includes CLI11, so one
// file pays for its compile time and the commands stay plain code.
//
// Conventions, for every command: options are GNU style (--name VALUE,
// --name=VALUE, -o VALUE); a boolean is a plain flag (--overwrite), which
// also takes --overwrite=0; --help and -h print the command's help and exit 0;
// a mistake prints one line, "cuptitrace CMD: what is wrong (see
// cuptitrace CMD --help)", and exits 2.
#pragma once

#include <string>
#include <vector>

namespace cuptitrace::cli {

struct Option {
  std::string names;     // "-o,--output" or "--top"
  std::string typeName;  // "PREFIX" for an option with a value; empty for a flag
  std::string help;      // may hold line breaks
  // Where the value goes when the option is given (left alone otherwise). A
  // flag writes "1", or for --flag=VALUE "1" or "0" as VALUE says.
  std::string* value = nullptr;
  bool* given = nullptr;  // when set: whether the option was given
};

struct Command {
  std::string name;    // "cuptitrace stats"
  std::string usage;   // the usage lines, "usage: cuptitrace stats TRACE.native [options]"
  std::string about;   // what the command does, after the usage
  std::string footer;  // after the options
  std::vector<Option> options;
  // Arguments that are not options; at most `maxPositionals` (0: any number).
  std::string positionalName;  // "TRACE.native"
  std::string positionalHelp;  // "the saved trace"
  std::vector<std::string>* positionals = nullptr;
  size_t maxPositionals = 0;
  // The run form: the first argument that is not an option (or what follows
  // "--") starts a program, whose arguments are not options of ours.
  std::vector<std::string>* program = nullptr;
};

// What parseCommand returns when the command should go on and do its work.
inline constexpr int kParsed = -1;

// Parses `args` (without the program name) for `command`, filling its
// options' values. Returns kParsed, or the exit code when the command is
// done: 0 with the help in `out` (--help), 2 with one line in `err`.
int parseCommand(const Command& command, const std::vector<std::string>& args, std::string& out,
                 std::string& err);

// The help text of `command`, as --help prints it.
std::string commandHelp(const Command& command);

// One line for a mistake found after parsing, in the same form as those
// parseCommand writes: "cuptitrace stats: MESSAGE (see cuptitrace stats --help)\n".
std::string usageError(const Command& command, const std::string& message);

// Every option name of `command` and --help, space separated (for shell completion).
std::string optionWords(const Command& command);

// Whether a flag's value (set by parseCommand: "1" or "0", empty when not given) is on.
bool flagIsOn(const std::string& value);

}  // namespace cuptitrace::cli
