#include "cli/stats_command.h"

#include <cstdio>
#include <fstream>
#include <optional>

#include "cli/command_line.h"
#include "cli/options.h"
#include "core/config.h"
#include "core/parse.h"
#include "core/trace.h"
#include "cli/trace_globs.h"
#include "exporters/native/native.h"
#include "cli/rank_reader.h"
#include "cli/rank_stats.h"
#include "reports/rank_reports.h"
#include "reports/reports.h"

namespace cuptitrace::cli {
namespace {

// What the parser fills.
struct StatsArgs {
  std::vector<std::string> inputs;
  std::string report = "all", format, top, timeUnit, nameWidth, stepRange, coverage, byLaunchConfig, byPython, jobs, summaries;
  bool stepRangeGiven = false, coverageGiven = false;
};

Command statsForm(StatsArgs& a) {
  Command c;
  c.name = "cuptitrace stats";
  c.usage =
      "usage: cuptitrace stats TRACE.native [--report NAME[,NAME...]] [--format table|csv|json]\n"
      "                        [--top N] [--time-unit auto|ns|us|ms|s] [--name-width N]\n"
      "                        [--step-range NAME] [--coverage PERCENT] [--by-launch-config] [--by-python]\n"
      "       cuptitrace stats RANK.native RANK.native... [--report NAME[,NAME...]] [--jobs N] ...\n"
      "       cuptitrace stats --summaries SUMMARIES... [--report NAME[,NAME...]] ...\n";
  c.about =
      "Prints reports of a saved trace. With several traces (one per rank of a job; a quoted\n"
      "pattern such as 't.*.native' works too) the reports are across ranks. Traces are read\n"
      "one at a time per job, so memory holds --jobs traces at most (default 2); processes\n"
      "without GPU work (the launcher) are skipped and named in the notes.";
  std::string reports = "Reports:\n";
  for (const auto& r : reportCatalog()) {
    std::string name = r.name;
    name.resize(16, ' ');
    reports += "  " + name + r.description + "\n";
  }
  reports += "\nReports across ranks (several traces):\n";
  for (const auto& r : rankReportCatalog()) {
    std::string name = r.name;
    name.resize(18, ' ');
    reports += "  " + name + r.description + "\n";
  }
  c.footer = reports;
  c.options = {
      {"--report", "NAMES", "reports to print, comma separated, or all (default: all)", &a.report},
      {"--format", "FORMAT", "table (aligned text, default), csv or json", &a.format},
      {"--top", "N", "rows per report; 0 (default) prints all", &a.top},
      {"--time-unit", "UNIT",
       "auto (default: tables pick a unit per value, CSV and JSON write ns),\nns, us, ms or s", &a.timeUnit},
      {"--name-width", "N", "tables cut longer names in the middle (default 80; 0: no limit)", &a.nameWidth},
      {"--step-range", "NAME",
       "NVTX range marking steps, for the breakdown report\n(default: the trace's CUPTITRACE_STEP_RANGE)",
       &a.stepRange, &a.stepRangeGiven},
      {"--coverage", "PERCENT",
       "share the coverage report covers (default: the trace's\nCUPTITRACE_COVERAGE, else 90)", &a.coverage,
       &a.coverageGiven},
      {"--by-launch-config", "", "the kernels report has a row per name, grid and block", &a.byLaunchConfig},
      {"--by-python", "", "the kernels report has a row per name and Python line (--python-backtrace)", &a.byPython},
      {"--jobs", "N", "with several traces: how many are read at once (default 2)", &a.jobs},
      {"--summaries", "",
       "the inputs are rank summaries written by cuptitrace summarize\n(- reads them from standard input): "
       "the reports across\nranks, from summaries made elsewhere (cuptitrace recipe)",
       &a.summaries},
  };
  c.positionalName = "TRACE.native";
  c.positionalHelp = "the saved trace (PREFIX.native); several: reports across ranks";
  c.positionals = &a.inputs;
  c.maxPositionals = 0;
  return c;
}

}  // namespace

std::string statsOptionWords() {
  StatsArgs a;
  return optionWords(statsForm(a));
}

std::string statsUsage() {
  StatsArgs a;
  return commandHelp(statsForm(a));
}

namespace {

// The names of --report for the reports across ranks; false (and `err`) when
// one is not such a report.
bool rankReportNames(const std::string& reportList, std::vector<std::string>& names, std::string& err) {
  if (reportList == "all") {
    for (const auto& r : rankReportCatalog()) names.push_back(r.name);
    return true;
  }
  for (const std::string& name : splitList(reportList)) {
    if (!isRankReport(name)) {
      std::string accepted;
      for (const auto& r : rankReportCatalog()) accepted += std::string(accepted.empty() ? "" : ", ") + r.name;
      err += "cuptitrace stats: --report '" + name + "' is not a report across ranks (accepted: " + accepted + ")\n";
      return false;
    }
    names.push_back(name);
  }
  return true;
}

// Several traces: the reports across ranks.
int runRankStats(const std::vector<std::string>& inputs, const std::string& reportList, unsigned jobs,
                 ReportFormat format, const RenderOptions& render, std::string& out, std::string& err) {
  std::vector<std::string> names;
  if (!rankReportNames(reportList, names, err)) return 2;
  RankReadResult read = summarizeTraceFiles(inputs, jobs);
  if (!read.errors.empty()) {
    for (const std::string& e : read.errors) err += "cuptitrace stats: " + e + "\n";
    return 1;
  }
  return reportAcrossRanks(std::move(read.summaries), {}, names, format, render, out, err);
}

// Summaries made elsewhere (cuptitrace summarize): the same reports. Traces
// that could not be read there are named, and the reports cover the others.
int runSummaryStats(const std::vector<std::string>& inputs, const std::string& reportList,
                    ReportFormat format, const RenderOptions& render, std::string& out, std::string& err) {
  std::vector<std::string> names;
  if (!rankReportNames(reportList, names, err)) return 2;
  RankBlobs blobs;
  for (const std::string& input : inputs) {
    std::string error;
    if (!readRankSummaries(input, blobs, error)) {
      err += "cuptitrace stats: " + error + "\n";
      return 1;
    }
  }
  return reportAcrossRanks(std::move(blobs.summaries), blobs.failures, names, format, render, out, err);
}

}  // namespace

int runStats(const std::vector<std::string>& args, std::string& out, std::string& err) {
  StatsArgs a;
  const Command command = statsForm(a);
  const int parsed = parseCommand(command, args, out, err);
  if (parsed != kParsed) return parsed;
  auto usageError = [&](const std::string& message) {
    err += cli::usageError(command, message);
    return 2;
  };
  unsigned jobs = 2;
  ReportFormat format = ReportFormat::Table;
  RenderOptions render;
  std::optional<std::string> stepRange;
  std::optional<uint32_t> coverage;
  if (!a.format.empty()) {
    const auto f = parseReportFormat(a.format);
    if (!f) return usageError("--format '" + a.format + "' is not valid (accepted: table, csv, json)");
    format = *f;
  }
  // A count option: false (and the message) when the value is not one.
  auto count = [&](const std::string& flag, const std::string& value, size_t& target) {
    if (value.empty()) return true;
    const auto n = parseUint(value);
    if (!n || value.find_first_not_of("0123456789") != std::string::npos || *n > 1000000) {
      usageError(flag + " '" + value + "' is not valid (accepted: an integer from 0 to 1000000)");
      return false;
    }
    target = static_cast<size_t>(*n);
    return true;
  };
  if (!count("--top", a.top, render.top) || !count("--name-width", a.nameWidth, render.nameWidth)) return 2;
  if (!a.timeUnit.empty()) {
    const auto u = parseTimeUnit(a.timeUnit);
    if (!u) return usageError("--time-unit '" + a.timeUnit + "' is not valid (accepted: auto, ns, us, ms, s)");
    render.timeUnit = *u;
  }
  for (const bool isStep : {true, false}) {
    if (!(isStep ? a.stepRangeGiven : a.coverageGiven)) continue;
    const std::string flag = isStep ? "--step-range" : "--coverage";
    const std::string& value = isStep ? a.stepRange : a.coverage;
    const ConfigVar* var = findConfigVar(isStep ? "CUPTITRACE_STEP_RANGE" : "CUPTITRACE_COVERAGE");
    Config c;
    if (var == nullptr || !var->apply(value, c))
      return usageError(flag + " '" + value + "' is not valid (accepted: " + (var ? var->accepted : "") + ")");
    if (isStep)
      stepRange = c.stepRange;
    else
      coverage = c.coverageBasisPoints;
  }
  if (!a.jobs.empty()) {
    const auto n = parseUint(a.jobs);
    if (!n || a.jobs.find_first_not_of("0123456789") != std::string::npos || *n < 1 || *n > 256)
      return usageError("--jobs '" + a.jobs + "' is not valid (accepted: an integer from 1 to 256)");
    jobs = static_cast<unsigned>(*n);
  }
  const bool byLaunchConfig = flagIsOn(a.byLaunchConfig);
  const std::vector<std::string>& patterns = a.inputs;
  const std::string& reportList = a.report;
  if (patterns.empty()) return usageError(flagIsOn(a.summaries) ? "no summaries given" : "no trace given");
  std::string error;
  std::vector<std::string> inputs;
  if (flagIsOn(a.summaries)) {
    if (patterns.size() == 1 && patterns.front() == "-") return runSummaryStats(patterns, reportList, format, render, out, err);
    if (!expandTraceArgs(patterns, inputs, error)) {
      err += "cuptitrace stats: " + error + "\n";
      return 1;
    }
    return runSummaryStats(inputs, reportList, format, render, out, err);
  }
  if (!expandTraceArgs(patterns, inputs, error)) {
    err += "cuptitrace stats: " + error + "\n";
    return 1;
  }
  if (inputs.size() > 1) return runRankStats(inputs, reportList, jobs, format, render, out, err);
  const std::string input = inputs.front();
  const auto names = parseReportNames(reportList, error);
  if (!names) return usageError("--report '" + reportList + "': " + error);

  std::ifstream in(input, std::ios::binary);
  if (!in) {
    err += "cuptitrace stats: cannot open " + input + "\n";
    return 1;
  }
  Trace trace;
  if (!readNative(in, trace, error)) {
    err += "cuptitrace stats: " + input + " is not a readable cuptitrace trace: " + error + "\n";
    return 1;
  }
  ReportOptions options = reportOptionsFromMetadata(trace.meta);
  if (stepRange) options.stepRange = *stepRange;
  if (coverage) options.coverageBasisPoints = *coverage;
  options.kernelsByLaunchConfig = byLaunchConfig;
  options.kernelsByPython = flagIsOn(a.byPython);
  out += renderTables(buildReports(trace, *names, options), format, render);
  return 0;
}

// argv[0] is "stats".
int statsCommand(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string out, err;
  const int rc = runStats(args, out, err);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  std::fwrite(err.data(), 1, err.size(), stderr);
  return rc;
}

}  // namespace cuptitrace::cli
