#include "cli/convert_command.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/options.h"
#include "core/config.h"
#include "core/trace.h"
#include "exporters/export_all.h"
#include "exporters/native/native.h"
#include "exporters/sqlite/sqlite.h"

namespace cuptitrace::cli {
namespace {

struct ConvertArgs {
  std::vector<std::string> inputs;
  std::string to, prefix, split, overwrite;
  bool splitGiven = false;
};

// The accepted values of a variable, for an option's help.
std::string accepted(const char* name) {
  const ConfigVar* var = findConfigVar(name);
  return var != nullptr ? var->accepted : "";
}

Command convertForm(ConvertArgs& a) {
  Command c;
  c.name = "cuptitrace convert";
  c.usage =
      "usage: cuptitrace convert TRACE.native --to FORMATS [-o PREFIX] [--split SIZE] [--overwrite]\n"
      "       cuptitrace convert TRACE.native TRACE.native... --to sqlite -o PREFIX [--overwrite]\n"
      "         (several processes or ranks in one database, PREFIX.sqlite, on wall-clock time)\n";
  c.about = "Writes other outputs from a saved trace.";
  c.options = {
      {"--to", "FORMATS", "formats to write\nAccepted: " + accepted("CUPTITRACE_FORMAT"), &a.to},
      {"-o,--output", "PREFIX", "prefix of the files written (default: the trace's name without .native)",
       &a.prefix},
      {"--split", "SIZE", "split timelines into parts of about SIZE (see CUPTITRACE_SPLIT)\nAccepted: " +
                              accepted("CUPTITRACE_SPLIT"),
       &a.split, &a.splitGiven},
      {"--overwrite", "", "replace files that exist (otherwise they are kept and the command fails)",
       &a.overwrite},
  };
  c.positionalName = "TRACE.native";
  c.positionalHelp = "the saved trace (PREFIX.native); several with --to sqlite";
  c.positionals = &a.inputs;
  c.maxPositionals = 0;
  return c;
}


// Several traces go into one SQLite database (the other formats hold one process).
int convertMany(const std::vector<std::string>& inputs, uint32_t formats, const std::string& prefix,
                bool overwrite, std::string& out, std::string& err) {
  if (formats != kFormatSqlite) {
    err += "cuptitrace convert: several traces go into one database only: use --to sqlite "
           "(or cuptitrace merge for one timeline)\n";
    return 2;
  }
  if (prefix.empty()) {
    err += "cuptitrace convert: several traces need -o PREFIX (the database is PREFIX.sqlite)\n";
    return 2;
  }
  std::vector<std::unique_ptr<Trace>> traces;
  std::vector<SqliteSource> sources;
  for (const std::string& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      err += "cuptitrace convert: cannot open " + path + "\n";
      return 1;
    }
    traces.push_back(std::make_unique<Trace>());
    std::string error;
    if (!readNative(in, *traces.back(), error)) {
      err += "cuptitrace convert: " + path + " is not a readable cuptitrace trace: " + error + "\n";
      return 1;
    }
    sources.push_back({traces.back().get(), path});
  }
  const std::string output = prefix + ".sqlite";
  const SqliteResult result = writeSqlite(sources, output, overwrite);
  if (!result.error.empty()) {
    err += "cuptitrace convert: " + result.error + "\n";
    return 1;
  }
  out += output + "\n";
  return 0;
}

}  // namespace

std::string convertOptionWords() {
  ConvertArgs a;
  return optionWords(convertForm(a));
}

int runConvert(const std::vector<std::string>& args, std::string& out, std::string& err) {
  ConvertArgs a;
  const Command command = convertForm(a);
  const int parsed = parseCommand(command, args, out, err);
  if (parsed != kParsed) return parsed;
  auto usageError = [&](const std::string& message) {
    err += cli::usageError(command, message);
    return 2;
  };
  if (a.inputs.empty()) return usageError("no trace given");
  if (a.to.empty()) return usageError("no formats given (--to FORMATS)");
  const std::string& input = a.inputs[0];
  Config formats;
  const ConfigVar* formatVar = findConfigVar("CUPTITRACE_FORMAT");
  if (formatVar == nullptr || !formatVar->apply(a.to, formats))
    return usageError("--to '" + a.to + "' is not valid (accepted: " + accepted("CUPTITRACE_FORMAT") + ")");
  const ConfigVar* splitVar = findConfigVar("CUPTITRACE_SPLIT");
  if (a.splitGiven && (splitVar == nullptr || !splitVar->apply(a.split, formats)))
    return usageError("--split '" + a.split + "' is not valid (accepted: " + accepted("CUPTITRACE_SPLIT") + ")");
  std::string prefix = a.prefix;
  if (a.inputs.size() > 1)
    return convertMany(a.inputs, formats.formats, prefix, flagIsOn(a.overwrite), out, err);
  if (prefix.empty()) {
    prefix = input;
    const std::string suffix = ".native";
    if (prefix.size() > suffix.size() && prefix.compare(prefix.size() - suffix.size(), suffix.size(), suffix) == 0)
      prefix.resize(prefix.size() - suffix.size());
  }

  std::ifstream in(input, std::ios::binary);
  if (!in) {
    err += "cuptitrace convert: cannot open " + input + "\n";
    return 1;
  }
  Trace trace;
  std::string error;
  if (!readNative(in, trace, error)) {
    err += "cuptitrace convert: " + input + " is not a readable cuptitrace trace: " + error + "\n";
    return 1;
  }
  const bool overwrite = flagIsOn(a.overwrite);
  const ExportResult result = exportAll(trace, formats.formats, prefix, overwrite, formats.splitBytes);
  for (const auto& e : result.errors) err += "cuptitrace convert: " + e + "\n";
  for (const auto& w : result.written) out += w + "\n";
  return result.errors.empty() ? 0 : 1;
}

// argv[0] is "convert".
int convertCommand(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::string out, err;
  const int rc = runConvert(args, out, err);
  std::fputs(out.c_str(), stdout);
  std::fputs(err.c_str(), stderr);
  return rc;
}

}  // namespace cuptitrace::cli
