#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/parse.h"

namespace cuptitrace::cli {
namespace {

constexpr size_t kHelpColumn = 30;  // where option descriptions start
constexpr size_t kHelpWidth = 100;  // the longest help line

// Help as the project writes it: the command's own usage lines (CLI11's would
// say "[OPTIONS]" only), then what it does, the options and the footer.
class Formatter : public CLI::Formatter {
 public:
  Formatter(std::string usage, std::string about)
      : usage_(std::move(usage)), about_(std::move(about)) {
    column_width(kHelpColumn);
  }
  std::string make_usage(const CLI::App*, std::string) const override {
    return usage_ + (about_.empty() ? "" : "\n" + about_ + "\n");
  }
  std::string make_description(const CLI::App*) const override { return ""; }

 private:
  std::string usage_, about_;
};

// `text` with its lines broken at spaces to fit beside the option names.
std::string wrap(const std::string& text) {
  constexpr size_t width = kHelpWidth - kHelpColumn;
  std::string out;
  size_t lineStart = 0;  // in `out`
  size_t lastSpace = std::string::npos;
  for (const char c : text) {
    out += c;
    if (c == '\n') {
      lineStart = out.size();
      lastSpace = std::string::npos;
      continue;
    }
    if (c == ' ') lastSpace = out.size() - 1;
    if (out.size() - lineStart > width && lastSpace != std::string::npos && lastSpace > lineStart) {
      out[lastSpace] = '\n';
      lineStart = lastSpace + 1;
      lastSpace = std::string::npos;
    }
  }
  return out;
}

std::unique_ptr<CLI::App> buildApp(const Command& command) {
  auto app = std::make_unique<CLI::App>(command.about, command.name);
  app->formatter(std::make_shared<Formatter>(command.usage, command.about));
  app->footer(command.footer);
  app->set_help_flag("-h,--help", "Print this help and exit");
  for (const Option& option : command.options) {
    CLI::Option* added = option.typeName.empty()
                             ? app->add_flag(option.names, *option.value, wrap(option.help))
                             : app->add_option(option.names, *option.value, wrap(option.help))
                                   ->type_name(option.typeName);
    // Given twice, the last one counts (as a later assignment of a variable would).
    added->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  if (command.positionals != nullptr) {
    auto* positional =
        app->add_option(command.positionalName, *command.positionals, command.positionalHelp);
    positional->type_name("");
    if (command.maxPositionals != 0)
      positional->expected(0, static_cast<int>(command.maxPositionals));
  }
  if (command.program != nullptr) app->prefix_command();
  return app;
}

// The names of `option` ("-o,--output": "-o" and "--output").
std::vector<std::string> namesOf(const Option& option) {
  std::vector<std::string> names;
  size_t at = 0;
  for (size_t comma; (comma = option.names.find(',', at)) != std::string::npos; at = comma + 1)
    names.push_back(option.names.substr(at, comma - at));
  names.push_back(option.names.substr(at));
  return names;
}

// `args` with "--name=" (an empty value after '=') split into "--name" and "":
// CLI11 would take the next word as the value instead. Only our own options
// are split, and in the run form only those before the program.
std::vector<std::string> splitEmptyValues(const Command& command,
                                          const std::vector<std::string>& args) {
  auto takesValue = [&](const std::string& name) {
    for (const Option& option : command.options) {
      if (option.typeName.empty()) continue;
      const auto names = namesOf(option);
      if (std::find(names.begin(), names.end(), name) != names.end()) return true;
    }
    return false;
  };
  std::vector<std::string> out;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') {
      if (command.program != nullptr) break;  // the program starts here
      out.push_back(arg);
      continue;
    }
    if (arg.size() > 3 && arg.back() == '=' && takesValue(arg.substr(0, arg.size() - 1))) {
      out.push_back(arg.substr(0, arg.size() - 1));
      out.emplace_back();
      continue;
    }
    out.push_back(arg);
    if (takesValue(arg) && i + 1 < args.size())
      out.push_back(args[++i]);  // its value, whatever it is
  }
  out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  return out;
}

}  // namespace

std::string usageError(const Command& command, const std::string& message) {
  return command.name + ": " + message + " (see " + command.name + " --help)\n";
}

bool flagIsOn(const std::string& value) { return value == "1"; }

std::string optionWords(const Command& command) {
  std::string words = "--help";
  for (const Option& option : command.options) {
    std::string names = option.names;
    std::replace(names.begin(), names.end(), ',', ' ');
    words += " " + names;
  }
  return words;
}

std::string commandHelp(const Command& command) { return buildApp(command)->help(); }

int parseCommand(const Command& command, const std::vector<std::string>& args, std::string& out,
                 std::string& err) {
  const auto app = buildApp(command);
  // CLI11 takes the arguments last first.
  const std::vector<std::string> split = splitEmptyValues(command, args);
  std::vector<std::string> reversed(split.rbegin(), split.rend());
  try {
    app->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out += app->help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    err += usageError(command, what);
    return 2;
  }
  for (const Option& option : command.options) {
    const bool given = app->count(namesOf(option).front()) > 0;
    if (option.given != nullptr) *option.given = given;
    if (!given || !option.typeName.empty()) continue;
    // A flag: bare it reads "true"; --flag=VALUE must be a boolean. Either way
    // the value becomes 1 or 0, as the variables are written.
    const auto on = parseBool(*option.value);
    if (!on) {
      err +=
          usageError(command, namesOf(option).back() + " '" + *option.value +
                                  "' is not valid (accepted: 1, true, yes, on, 0, false, no, off)");
      return 2;
    }
    *option.value = *on ? "1" : "0";
  }
  if (command.program == nullptr) return kParsed;
  // The run form: CLI11 leaves the program and its arguments, with the "--"
  // before them if there was one; what still looks like an option before the
  // program is one of ours misspelled.
  std::vector<std::string> rest = app->remaining();
  if (!rest.empty() && rest.front() == "--") {
    rest.erase(rest.begin());
  } else if (!rest.empty() && rest.front().size() > 1 && rest.front()[0] == '-') {
    err += usageError(command,
                      "unknown option '" + rest.front().substr(0, rest.front().find('=')) + "'");
    return 2;
  }
  *command.program = std::move(rest);
  return kParsed;
}

}  // namespace cuptitrace::cli
