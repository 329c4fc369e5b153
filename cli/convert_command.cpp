#include "cli/convert_command.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/trace.h"
#include "exporters/export_all.h"
#include "exporters/native.h"
#include "exporters/sqlite.h"

namespace cuptitrace::cli {
namespace {

// Several traces go into one SQLite database (the other formats hold one process).
int convertMany(const std::vector<std::string>& inputs, uint32_t formats, const std::string& prefix,
                bool overwrite) {
  if (formats != kFormatSqlite) {
    std::fprintf(stderr, "cuptitrace convert: several traces go into one database only: use --to sqlite "
                         "(or cuptitrace merge for one timeline)\n");
    return 2;
  }
  if (prefix.empty()) {
    std::fprintf(stderr, "cuptitrace convert: several traces need -o PREFIX (the database is PREFIX.sqlite)\n");
    return 2;
  }
  std::vector<std::unique_ptr<Trace>> traces;
  std::vector<SqliteSource> sources;
  for (const std::string& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cuptitrace convert: cannot open %s\n", path.c_str());
      return 1;
    }
    traces.push_back(std::make_unique<Trace>());
    std::string error;
    if (!readNative(in, *traces.back(), error)) {
      std::fprintf(stderr, "cuptitrace convert: %s is not a readable cuptitrace trace: %s\n", path.c_str(),
                   error.c_str());
      return 1;
    }
    sources.push_back({traces.back().get(), path});
  }
  const std::string output = prefix + ".sqlite";
  const SqliteResult result = writeSqlite(sources, output, overwrite);
  if (!result.error.empty()) {
    std::fprintf(stderr, "cuptitrace convert: %s\n", result.error.c_str());
    return 1;
  }
  std::printf("%s\n", output.c_str());
  return 0;
}

}  // namespace

// argv[0] is "convert".
int convertCommand(int argc, char** argv) {
  std::vector<std::string> inputs;
  std::string to, prefix, split;
  bool overwrite = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--overwrite") {
      overwrite = true;
    } else if ((arg == "--to" || arg == "-o" || arg == "--output") && i + 1 < argc) {
      (arg == "--to" ? to : prefix) = argv[++i];
    } else if (arg == "--split" && i + 1 < argc) {
      split = argv[++i];
    } else if (arg.rfind("--split=", 0) == 0) {
      split = arg.substr(8);
    } else if (arg.rfind("--to=", 0) == 0) {
      to = arg.substr(5);
    } else if (arg.rfind("--output=", 0) == 0) {
      prefix = arg.substr(9);
    } else if (!arg.empty() && arg[0] != '-') {
      inputs.push_back(arg);
    } else {
      std::fprintf(stderr, "cuptitrace convert: unexpected argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  if (inputs.empty() || to.empty()) {
    std::fprintf(stderr,
                 "usage: cuptitrace convert TRACE.native --to json|json.gz|csv|native|pftrace|sqlite[,...] "
                 "[-o PREFIX] [--split SIZE] [--overwrite]\n"
                 "       cuptitrace convert TRACE.native TRACE.native... --to sqlite -o PREFIX [--overwrite]\n"
                 "         (several processes or ranks in one database, PREFIX.sqlite, on wall-clock time)\n");
    return 2;
  }
  Config formats;
  const ConfigVar* formatVar = nullptr;
  const ConfigVar* splitVar = nullptr;
  for (const auto& v : configTable()) {
    if (std::string(v.name) == "CUPTITRACE_FORMAT") formatVar = &v;
    if (std::string(v.name) == "CUPTITRACE_SPLIT") splitVar = &v;
  }
  if (formatVar == nullptr || !formatVar->apply(to, formats)) {
    std::fprintf(stderr, "cuptitrace convert: --to '%s' is not valid (accepted: %s)\n", to.c_str(),
                 formatVar ? formatVar->accepted : "json, json.gz, csv, native, pftrace, sqlite");
    return 2;
  }
  if (!split.empty() && (splitVar == nullptr || !splitVar->apply(split, formats))) {
    std::fprintf(stderr, "cuptitrace convert: --split '%s' is not valid (accepted: %s)\n", split.c_str(),
                 splitVar ? splitVar->accepted : "a size");
    return 2;
  }
  if (inputs.size() > 1) return convertMany(inputs, formats.formats, prefix, overwrite);
  const std::string& input = inputs[0];
  if (prefix.empty()) {
    prefix = input;
    const std::string suffix = ".native";
    if (prefix.size() > suffix.size() && prefix.compare(prefix.size() - suffix.size(), suffix.size(), suffix) == 0)
      prefix.resize(prefix.size() - suffix.size());
  }

  std::ifstream in(input, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cuptitrace convert: cannot open %s\n", input.c_str());
    return 1;
  }
  Trace trace;
  std::string error;
  if (!readNative(in, trace, error)) {
    std::fprintf(stderr, "cuptitrace convert: %s is not a readable cuptitrace trace: %s\n", input.c_str(),
                 error.c_str());
    return 1;
  }
  const ExportResult result = exportAll(trace, formats.formats, prefix, overwrite, formats.splitBytes);
  for (const auto& e : result.errors) std::fprintf(stderr, "cuptitrace convert: %s\n", e.c_str());
  for (const auto& w : result.written) std::printf("%s\n", w.c_str());
  return result.errors.empty() ? 0 : 1;
}

}  // namespace cuptitrace::cli
