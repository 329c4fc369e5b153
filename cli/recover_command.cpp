#include "cli/recover_command.h"

#include <cstdio>

#include "cli/command_line.h"
#include "cli/options.h"
#include "core/config.h"
#include "core/journal.h"
#include "core/trace.h"
#include "exporters/export_all.h"

namespace cuptitrace::cli {
namespace {

// "run.spill" -> "run"; "run.spill.2" (a second journal of the prefix) -> "run.2".
std::string defaultPrefix(const std::string& input) {
  const size_t at = input.rfind(".spill");
  if (at == std::string::npos || at == 0 || input.find('/', at) != std::string::npos) return input + ".recovered";
  return input.substr(0, at) + input.substr(at + 6);
}

std::string countsLine(const Trace& trace) {
  std::string line;
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    if (trace.store.count(kind) == 0) continue;
    line += std::string(line.empty() ? "" : ", ") + recordKindName(kind) + " " +
            std::to_string(trace.store.count(kind));
  }
  return line.empty() ? "no records" : line;
}

}  // namespace

namespace {

struct RecoverArgs {
  std::vector<std::string> inputs;
  std::string prefix, to = "json,native", overwrite;
};

Command recoverForm(RecoverArgs& a) {
  const ConfigVar* formatVar = findConfigVar("CUPTITRACE_FORMAT");
  Command c;
  c.name = "cuptitrace recover";
  c.usage = "usage: cuptitrace recover JOURNAL.spill [-o PREFIX] [--to FORMATS] [--overwrite]\n";
  c.about =
      "Rebuilds a trace from the spill journal of a process that ended without writing its outputs\n"
      "(killed with SIGKILL, or _exit()). Writes PREFIX.json and PREFIX.native by default.";
  c.options = {
      {"-o,--output", "PREFIX", "prefix of the files written (default: the journal's name without .spill)",
       &a.prefix},
      {"--to", "FORMATS",
       std::string("formats to write (default: json,native)\nAccepted: ") +
           (formatVar != nullptr ? formatVar->accepted : ""),
       &a.to},
      {"--overwrite", "", "replace files that exist (otherwise they are kept and the command fails)",
       &a.overwrite},
  };
  c.positionalName = "JOURNAL.spill";
  c.positionalHelp = "the spill journal of the run (PREFIX.spill)";
  c.positionals = &a.inputs;
  c.maxPositionals = 1;
  return c;
}

}  // namespace

std::string recoverUsage() {
  RecoverArgs a;
  return commandHelp(recoverForm(a));
}

std::string recoverOptionWords() {
  RecoverArgs a;
  return optionWords(recoverForm(a));
}

int runRecover(const std::vector<std::string>& args, std::string& out, std::string& err) {
  RecoverArgs a;
  const Command command = recoverForm(a);
  const int parsed = parseCommand(command, args, out, err);
  if (parsed != kParsed) return parsed;
  if (a.inputs.empty()) {
    err += usageError(command, "no journal given");
    return 2;
  }
  const std::string& input = a.inputs[0];
  std::string prefix = a.prefix;
  const bool overwrite = flagIsOn(a.overwrite);
  Config formats;
  const ConfigVar* formatVar = findConfigVar("CUPTITRACE_FORMAT");
  if (formatVar == nullptr || !formatVar->apply(a.to, formats)) {
    err += usageError(command, "--to '" + a.to + "' is not valid (accepted: " +
                                   (formatVar ? formatVar->accepted : "") + ")");
    return 2;
  }
  if (prefix.empty()) prefix = defaultPrefix(input);

  Trace trace;
  RecoveryReport report;
  std::string error;
  if (!recoverJournal(input, trace, report, error)) {
    err += "cuptitrace recover: " + error + "\n";
    return 1;
  }
  err += "cuptitrace recover: " + input + ": " + std::to_string(report.readBytes) + " of " +
         std::to_string(report.fileBytes) + " bytes read, " + std::to_string(report.blocks) + " blocks, " +
         std::to_string(report.chunks) + " chunks of records (" + countsLine(trace) + "), " +
         std::to_string(report.strings) + " strings" + (report.metadata ? "" : ", no metadata") + "\n";
  if (!report.stoppedAt.empty()) err += "cuptitrace recover: reading stopped at " + report.stoppedAt + "\n";
  if (report.ignoredBytes != 0) {
    err += "cuptitrace recover: " + std::to_string(report.ignoredBytes) + " bytes ignored";
    if (report.skippedChunks != 0)
      err += " (" + std::to_string(report.skippedChunks) + " chunks whose checksum failed)";
    err += "\n";
  }
  if (report.missingChunks != 0)
    err += "cuptitrace recover: " + std::to_string(report.missingChunks) +
           " chunks of the sequence are missing; the records around them are kept\n";
  std::string mode;
  for (const auto& [name, value] : trace.meta.config)
    if (name == "CUPTITRACE_SPILL") mode = value;
  std::string period;
  for (const auto& [name, value] : trace.meta.config)
    if (name == "CUPTITRACE_JOURNAL_PERIOD") period = value;
  if (mode == "always" && report.tails != 0) {
    err += "cuptitrace recover: not in the journal: what was recorded in the last CUPTITRACE_JOURNAL_PERIOD (" +
           period + ") before the end\n";
  } else if (mode == "always") {
    err += "cuptitrace recover: not in the journal: the last records of each kind (fewer than 4096), which "
           "were still in memory\n";
  } else {
    err += "cuptitrace recover: not in the journal: the records still in memory (with CUPTITRACE_SPILL=auto only "
           "the oldest records past CUPTITRACE_MAX_MEMORY reach it; =always keeps nearly all)\n";
  }

  const ExportResult result = exportAll(trace, formats.formats, prefix, overwrite);
  for (const auto& e : result.errors) err += "cuptitrace recover: " + e + "\n";
  for (const auto& w : result.written) out += w + "\n";
  return result.errors.empty() ? 0 : 1;
}

// argv[0] is "recover".
int recoverCommand(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string out, err;
  const int rc = runRecover(args, out, err);
  std::fputs(err.c_str(), stderr);
  std::fputs(out.c_str(), stdout);
  return rc;
}

}  // namespace cuptitrace::cli
