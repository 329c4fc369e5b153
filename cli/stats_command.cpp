#include "cli/stats_command.h"

#include <cstdio>
#include <fstream>

#include "core/config.h"
#include "core/parse.h"
#include "core/trace.h"
#include "cli/trace_globs.h"
#include "exporters/native.h"
#include "exporters/rank_reader.h"
#include "exporters/rank_reports.h"
#include "exporters/reports.h"

namespace cuptitrace::cli {
namespace {

const ConfigVar* configVar(const std::string& name) {
  for (const auto& v : configTable())
    if (name == v.name) return &v;
  return nullptr;
}

}  // namespace

std::string statsUsage() {
  std::string text =
      "usage: cuptitrace stats TRACE.native [--report NAME[,NAME...]] [--format table|csv|json]\n"
      "                        [--top N] [--time-unit auto|ns|us|ms|s] [--name-width N]\n"
      "                        [--step-range NAME] [--coverage PERCENT] [--by-launch-config]\n"
      "       cuptitrace stats RANK.native RANK.native... [--report NAME[,NAME...]] [--jobs N] ...\n"
      "\n"
      "With several traces (one per rank of a job; a quoted pattern such as 't.*.native'\n"
      "works too) the reports are across ranks. Traces are read one at a time per job,\n"
      "so memory holds --jobs traces at most (default 2); processes without GPU work\n"
      "(the launcher) are skipped and named in the notes.\n"
      "\n"
      "  --report NAMES      reports to print, comma separated, or all (default: all)\n"
      "  --format FORMAT     table (aligned text, default), csv or json\n"
      "  --top N             rows per report; 0 (default) prints all\n"
      "  --time-unit UNIT    auto (default: tables pick a unit per value, CSV and JSON write ns),\n"
      "                      ns, us, ms or s\n"
      "  --name-width N      tables cut longer names in the middle (default 80; 0: no limit)\n"
      "  --step-range NAME   NVTX range marking steps, for the breakdown report\n"
      "                      (default: the trace's CUPTITRACE_STEP_RANGE)\n"
      "  --coverage PERCENT  share the coverage report covers (default: the trace's\n"
      "                      CUPTITRACE_COVERAGE, else 90)\n"
      "  --by-launch-config  the kernels report has a row per name, grid and block\n"
      "\n"
      "Reports:\n";
  for (const auto& r : reportCatalog()) {
    std::string name = r.name;
    name.resize(16, ' ');
    text += "  " + name + r.description + "\n";
  }
  text += "\nReports across ranks (several traces):\n";
  for (const auto& r : rankReportCatalog()) {
    std::string name = r.name;
    name.resize(18, ' ');
    text += "  " + name + r.description + "\n";
  }
  return text;
}

namespace {

// Several traces: the reports across ranks.
int runRankStats(const std::vector<std::string>& inputs, const std::string& reportList, unsigned jobs,
                 ReportFormat format, const RenderOptions& render, std::string& out, std::string& err) {
  std::vector<std::string> names;
  if (reportList == "all") {
    for (const auto& r : rankReportCatalog()) names.push_back(r.name);
  } else {
    for (const std::string& name : splitList(reportList)) {
      if (!isRankReport(name)) {
        err += "cuptitrace stats: --report '" + name +
               "' is not a report across ranks (accepted: ranks, collectives, collective_spread, rank_findings)\n";
        return 2;
      }
      names.push_back(name);
    }
  }
  RankReadResult read = summarizeTraceFiles(inputs, jobs);
  if (!read.errors.empty()) {
    for (const std::string& e : read.errors) err += "cuptitrace stats: " + e + "\n";
    return 1;
  }
  std::vector<std::string> skipped;
  const std::vector<RankSummary> ranks = orderRanks(std::move(read.summaries), skipped);
  for (const std::string& s : skipped) err += "cuptitrace stats: skipped " + s + "\n";
  if (ranks.empty()) {
    err += "cuptitrace stats: none of the traces holds GPU work\n";
    return 1;
  }
  out += renderTables(buildRankReports(ranks, names, skipped), format, render);
  return 0;
}

}  // namespace

int runStats(const std::vector<std::string>& args, std::string& out, std::string& err) {
  std::vector<std::string> patterns;
  unsigned jobs = 2;
  std::string reportList = "all";
  ReportFormat format = ReportFormat::Table;
  RenderOptions render;
  std::optional<std::string> stepRange;
  std::optional<uint32_t> coverage;
  bool byLaunchConfig = false;

  auto usageError = [&](const std::string& message) {
    err += "cuptitrace stats: " + message + "\n" + statsUsage();
    return 2;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      out += statsUsage();
      return 0;
    }
    if (arg == "--by-launch-config") {
      byLaunchConfig = true;
      continue;
    }
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      std::string flag = arg, value;
      const auto eq = arg.find('=');
      if (eq != std::string::npos) {
        flag = arg.substr(0, eq);
        value = arg.substr(eq + 1);
      } else {
        if (i + 1 >= args.size()) return usageError("option '" + flag + "' needs a value");
        value = args[++i];
      }
      if (flag == "--report") {
        reportList = value;
      } else if (flag == "--format") {
        const auto f = parseReportFormat(value);
        if (!f)
          return usageError("--format '" + value + "' is not valid (accepted: table, csv, json)");
        format = *f;
      } else if (flag == "--top" || flag == "--name-width") {
        const auto n = parseUint(value);
        if (!n || value.find_first_not_of("0123456789") != std::string::npos || *n > 1000000)
          return usageError(flag + " '" + value +
                            "' is not valid (accepted: an integer from 0 to 1000000)");
        (flag == "--top" ? render.top : render.nameWidth) = static_cast<size_t>(*n);
      } else if (flag == "--jobs") {
        const auto n = parseUint(value);
        if (!n || *n < 1 || *n > 256)
          return usageError("--jobs '" + value + "' is not valid (accepted: an integer from 1 to 256)");
        jobs = static_cast<unsigned>(*n);
      } else if (flag == "--time-unit") {
        const auto u = parseTimeUnit(value);
        if (!u)
          return usageError("--time-unit '" + value +
                            "' is not valid (accepted: auto, ns, us, ms, s)");
        render.timeUnit = *u;
      } else if (flag == "--step-range" || flag == "--coverage") {
        const ConfigVar* var =
            configVar(flag == "--step-range" ? "CUPTITRACE_STEP_RANGE" : "CUPTITRACE_COVERAGE");
        Config c;
        if (var == nullptr || !var->apply(value, c))
          return usageError(flag + " '" + value +
                            "' is not valid (accepted: " + (var ? var->accepted : "") + ")");
        if (flag == "--step-range")
          stepRange = c.stepRange;
        else
          coverage = c.coverageBasisPoints;
      } else {
        return usageError("unknown option '" + flag + "'");
      }
      continue;
    }
    if (!arg.empty() && arg[0] != '-') {
      patterns.push_back(arg);
      continue;
    }
    return usageError("unexpected argument '" + arg + "'");
  }
  if (patterns.empty()) return usageError("no trace given");
  std::string error;
  std::vector<std::string> inputs;
  if (!expandTraceArgs(patterns, inputs, error)) {
    err += "cuptitrace stats: " + error + "\n";
    return 1;
  }
  if (inputs.size() > 1) return runRankStats(inputs, reportList, jobs, format, render, out, err);
  const std::string input = inputs.front();
  const auto names = parseReportNames(reportList, error);
  if (!names)
    return usageError("--report '" + reportList + "': " + error + " (see the list below)");

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
