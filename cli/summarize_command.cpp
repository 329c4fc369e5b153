#include "cli/summarize_command.h"

#include <cstdio>
#include <fstream>

#include "cli/command_line.h"
#include "cli/rank_reader.h"
#include "cli/trace_globs.h"
#include "reports/rank_summary_blob.h"

namespace cuptitrace::cli {
namespace {

struct SummarizeArgs {
  std::vector<std::string> inputs;
  std::string output = "-";
};

Command summarizeForm(SummarizeArgs& a) {
  Command c;
  c.name = "cuptitrace summarize";
  c.usage = "usage: cuptitrace summarize TRACE... [-o FILE]\n";
  c.about =
      "Reduces each rank's trace (PREFIX.native or PREFIX.sqlite) to the summary the reports\n"
      "across ranks need, for `cuptitrace stats --summaries`. One trace is read at a time.";
  c.options = {
      {"-o,--output", "FILE", "where the summaries go (default -: standard output)", &a.output},
  };
  c.positionalName = "TRACE";
  c.positionalHelp = "the ranks' traces (a quoted pattern works too)";
  c.positionals = &a.inputs;
  c.footer =
      "A trace that cannot be read (missing, truncated, of another version) is named on\n"
      "stderr and written as such among the summaries, so that the reports name it and\n"
      "say how many ranks they cover; the command still succeeds. Summaries are binary,\n"
      "versioned, and read only by the same version of cuptitrace.";
  return c;
}

}  // namespace

std::string summarizeUsage() {
  SummarizeArgs a;
  return commandHelp(summarizeForm(a));
}

std::string summarizeOptionWords() {
  SummarizeArgs a;
  return optionWords(summarizeForm(a));
}

int runSummarize(const std::vector<std::string>& args, std::string& out, std::string& err) {
  SummarizeArgs a;
  const Command command = summarizeForm(a);
  const int parsed = parseCommand(command, args, out, err);
  if (parsed != kParsed) return parsed;
  if (a.inputs.empty()) {
    err += usageError(command, "no trace given");
    return 2;
  }
  std::vector<std::string> inputs;
  std::string error;
  // A pattern that matches nothing is a mistake of the command line, not a rank's failure.
  if (!expandTraceArgs(a.inputs, inputs, error)) {
    err += "cuptitrace summarize: " + error + "\n";
    return 1;
  }
  std::string blobs;
  for (const std::string& path : inputs) {
    RankSummary s;
    if (summarizeTraceFile(path, s, error)) {
      blobs += encodeRankSummary(s);
    } else {
      err += "cuptitrace summarize: " + error + "\n";
      blobs += encodeRankFailure({path, error});
    }
  }
  if (a.output == "-") {
    out += blobs;
    return 0;
  }
  // Written whole, then renamed: a reader never sees half a file.
  const std::string partial = a.output + ".partial";
  {
    std::ofstream file(partial, std::ios::binary | std::ios::trunc);
    file.write(blobs.data(), static_cast<std::streamsize>(blobs.size()));
    if (!file.flush()) {
      err += "cuptitrace summarize: cannot write " + partial + "\n";
      std::remove(partial.c_str());
      return 1;
    }
  }
  if (std::rename(partial.c_str(), a.output.c_str()) != 0) {
    err += "cuptitrace summarize: cannot write " + a.output + "\n";
    std::remove(partial.c_str());
    return 1;
  }
  return 0;
}

int summarizeCommand(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string out, err;
  const int rc = runSummarize(args, out, err);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  std::fwrite(err.data(), 1, err.size(), stderr);
  return rc;
}

}  // namespace cuptitrace::cli
