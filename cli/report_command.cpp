#include "cli/report_command.h"

#include <cstdio>
#include <fstream>

#include "cli/command_line.h"
#include "cli/options.h"
#include "cli/rank_reader.h"
#include "cli/rank_stats.h"
#include "cli/trace_globs.h"
#include "core/config.h"
#include "core/file_output.h"
#include "core/parse.h"
#include "exporters/html/html_report.h"
#include "exporters/native/native.h"
#include "reports/rank_reports.h"

namespace cuptitrace::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> inputs;
  std::string output, stepRange, jobs, summaries, overwrite;
  bool stepRangeGiven = false;
};

Command reportForm(ReportArgs& a) {
  Command c;
  c.name = "cuptitrace report";
  c.usage =
      "usage: cuptitrace report TRACE.native -o FILE.html [--step-range NAME] [--overwrite]\n"
      "       cuptitrace report RANK.native RANK.native... -o FILE.html [--jobs N]\n"
      "       cuptitrace report --summaries SUMMARIES... -o FILE.html\n";
  c.about =
      "Writes one HTML page with the reports as charts and tables: the overview (the run, the\n"
      "GPU summary, the step-time breakdown, recommendations), operators, kernels, GPU metrics,\n"
      "memory, ranks, and the CUDA API and NVTX tables. The page is self-contained: it opens\n"
      "from file:// in any browser, with no network.";
  c.options = {
      {"-o,--output", "FILE", "the page to write (FILE.html)", &a.output},
      {"--step-range", "NAME", "NVTX range marking steps (default: the trace's CUPTITRACE_STEP_RANGE)", &a.stepRange,
       &a.stepRangeGiven},
      {"--jobs", "N", "with several traces: how many are read at once (default 2)", &a.jobs},
      {"--summaries", "", "the inputs are rank summaries written by cuptitrace summarize", &a.summaries},
      {"--overwrite,-f,--force", "", "replace FILE if it exists", &a.overwrite},
  };
  c.positionalName = "TRACE.native";
  c.positionalHelp = "the saved trace (PREFIX.native); several: one page across ranks";
  c.positionals = &a.inputs;
  return c;
}

// The page of several ranks, from their summaries.
int rankPage(std::vector<RankSummary> summaries, const std::vector<RankFailure>& failures, const std::string& path,
             const HtmlOptions& options, bool overwrite, std::string& err) {
  std::vector<std::string> notes;
  for (const RankFailure& f : failures) {
    err += "cuptitrace report: " + f.error + "\n";
    notes.push_back("not covered: " + f.error);
  }
  std::vector<std::string> skipped;
  const std::vector<RankSummary> ranks = orderRanks(std::move(summaries), skipped);
  for (const std::string& s : skipped) notes.push_back("skipped " + s);
  if (ranks.empty()) {
    err += "cuptitrace report: none of the traces holds GPU work\n";
    return 1;
  }
  std::vector<std::string> names;
  for (const auto& r : rankReportCatalog()) names.push_back(r.name);
  const std::vector<ReportTable> tables = buildRankReports(ranks, names, skipped);
  const std::string error = writeFileSafely(
      path, [&](std::ostream& out) { writeHtmlRankReport(ranks, tables, notes, options, out); }, overwrite);
  if (!error.empty()) {
    err += "cuptitrace report: " + error + "\n";
    return 1;
  }
  return 0;
}

}  // namespace

std::string reportUsage() {
  ReportArgs a;
  return commandHelp(reportForm(a));
}

std::string reportOptionWords() {
  ReportArgs a;
  return optionWords(reportForm(a));
}

int runReport(const std::vector<std::string>& args, std::string& out, std::string& err) {
  ReportArgs a;
  const Command command = reportForm(a);
  const int parsed = parseCommand(command, args, out, err);
  if (parsed != kParsed) return parsed;
  if (a.inputs.empty()) {
    err += usageError(command, flagIsOn(a.summaries) ? "no summaries given" : "no trace given");
    return 2;
  }
  if (a.output.empty()) {
    err += usageError(command, "no output given (-o FILE.html)");
    return 2;
  }
  unsigned jobs = 2;
  if (!a.jobs.empty()) {
    const auto n = parseUint(a.jobs);
    if (!n || a.jobs.find_first_not_of("0123456789") != std::string::npos || *n < 1 || *n > 256) {
      err += usageError(command, "--jobs '" + a.jobs + "' is not valid (accepted: an integer from 1 to 256)");
      return 2;
    }
    jobs = static_cast<unsigned>(*n);
  }
  const bool overwrite = flagIsOn(a.overwrite);
  std::vector<std::string> inputs;
  std::string error;
  if (!expandTraceArgs(a.inputs, inputs, error)) {
    err += "cuptitrace report: " + error + "\n";
    return 1;
  }
  HtmlOptions options;
  options.source = inputs.size() == 1 ? inputs.front() : std::to_string(inputs.size()) + " traces";
  if (flagIsOn(a.summaries)) {
    RankBlobs blobs;
    for (const std::string& input : inputs) {
      if (!readRankSummaries(input, blobs, error)) {
        err += "cuptitrace report: " + error + "\n";
        return 1;
      }
    }
    return rankPage(std::move(blobs.summaries), blobs.failures, a.output, options, overwrite, err);
  }
  if (inputs.size() > 1) {
    RankReadResult read = summarizeTraceFiles(inputs, jobs);
    if (!read.errors.empty()) {
      for (const std::string& e : read.errors) err += "cuptitrace report: " + e + "\n";
      return 1;
    }
    return rankPage(std::move(read.summaries), {}, a.output, options, overwrite, err);
  }
  std::ifstream in(inputs.front(), std::ios::binary);
  if (!in) {
    err += "cuptitrace report: cannot open " + inputs.front() + "\n";
    return 1;
  }
  Trace trace;
  if (!readNative(in, trace, error)) {
    err += "cuptitrace report: " + inputs.front() + " is not a readable cuptitrace trace: " + error + "\n";
    return 1;
  }
  ReportOptions reportOptions = reportOptionsFromMetadata(trace.meta);
  if (a.stepRangeGiven) {
    const ConfigVar* var = findConfigVar("CUPTITRACE_STEP_RANGE");
    Config c;
    if (var == nullptr || !var->apply(a.stepRange, c)) {
      err += usageError(command, "--step-range '" + a.stepRange + "' is not valid");
      return 2;
    }
    reportOptions.stepRange = c.stepRange;
  }
  error = writeFileSafely(
      a.output, [&](std::ostream& out) { writeHtmlReport(trace, reportOptions, options, out); }, overwrite);
  if (!error.empty()) {
    err += "cuptitrace report: " + error + "\n";
    return 1;
  }
  return 0;
}

int reportCommand(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string out, err;
  const int rc = runReport(args, out, err);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  std::fwrite(err.data(), 1, err.size(), stderr);
  return rc;
}

}  // namespace cuptitrace::cli
