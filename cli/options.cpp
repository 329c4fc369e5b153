#include "cli/options.h"

#include <cctype>
#include <cstdlib>

#include "cli/command_line.h"
#include "cli/completion.h"
#include "core/version.h"

namespace cuptitrace::cli {
namespace {

constexpr const char* kUsage =
    "Usage:\n"
    "  cuptitrace [options] [--] PROGRAM [ARGS...]   trace PROGRAM; returns its exit code\n"
    "  cuptitrace convert TRACE.native... --to FORMATS [-o PREFIX] [--split SIZE] [--overwrite]\n"
    "                                               write other outputs from a saved trace\n"
    "                                               (several traces: --to sqlite, one database)\n"
    "  cuptitrace stats TRACE.native [--report NAME[,NAME]] [--format table|csv|json]\n"
    "                   [--top N] [--time-unit auto|ns|us|ms|s] [--name-width N]\n"
    "                                               print reports of a saved trace\n"
    "  cuptitrace report TRACE.native... -o FILE.html  one HTML page of the reports as charts,\n"
    "                                               offline (several traces: across ranks)\n"
    "  cuptitrace merge TRACE.native... -o OUT.json|OUT.pftrace|OUT.sqlite [--overwrite]\n"
    "                                               put several processes' saved traces on one\n"
    "                                               timeline, clocks aligned\n"
    "  cuptitrace recipe NAME TRACE... [--workers N | --scheduler tcp://HOST:PORT]\n"
    "                   [--format table|csv|json]   the reports across ranks as Dask tasks,\n"
    "                                               one per rank's trace (docs/scale.md)\n"
    "  cuptitrace summarize TRACE... [-o FILE]       the per-rank step of those reports, alone\n"
    "  cuptitrace recover JOURNAL.spill [-o PREFIX] [--to FORMATS] [--overwrite]\n"
    "                                               rebuild the trace of a killed run from its\n"
    "                                               spill journal (see --spill)\n"
    "  cuptitrace COMMAND --help                     the options of a command\n"
    "  cuptitrace --help | --version | --completion bash\n";

constexpr const char* kAbout =
    "Each option sets the environment variable its help names; the variables work\n"
    "without this command too, with CUDA_INJECTION64_PATH=libcuptitrace.so. A flag\n"
    "(like --quiet) takes no value, or one after '=' (--quiet=0).";

constexpr const char* kFooter =
    "Output files (PREFIX from --output): PREFIX.json (open in https://ui.perfetto.dev),\n"
    "PREFIX.native (for 'cuptitrace convert'), PREFIX.kernels.csv, .memcpy.csv, .memset.csv,\n"
    ".api.csv, .nvtx.csv (and .sync.csv, .overhead.csv when recorded), and PREFIX.reports.txt\n"
    "(every report; see --summary).";

std::string typeName(const ConfigVar& var) {
  std::string name = var.type;
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

// What the run form's parser fills.
struct RunArgs {
  std::vector<std::string> values = std::vector<std::string>(configTable().size());
  std::unique_ptr<bool[]> given = std::make_unique<bool[]>(configTable().size());
  std::string library, completion, version, envMarkdown, gpuMetrics;
  std::vector<std::string> program;
};

Command runForm(RunArgs& args) {
  Command command;
  command.name = "cuptitrace";
  command.usage = kUsage;
  command.about = kAbout;
  command.footer = kFooter;
  const auto& table = configTable();
  for (size_t i = 0; i < table.size(); ++i) {
    const ConfigVar& var = table[i];
    Option option;
    option.names = flagFor(var);
    if (option.names == "--output") option.names = "-o,--output";
    option.typeName = isPlainFlag(var) ? "" : typeName(var);
    option.help = std::string(var.help) + "\nAccepted: " + var.accepted + "\nSets " + var.name +
                  " (default: " + var.defaultValue + ")";
    option.value = &args.values[i];
    option.given = &args.given[i];
    command.options.push_back(option);
  }
  command.options.push_back(
      {"--gpu-metrics", "",
       "Sample each GPU's performance counters (SM active, SM issue, tensor, DRAM, PCIe and NVLink "
       "traffic) while the program runs, as Nsight Systems' --gpu-metrics-devices does: counter tracks "
       "on the timeline, GPU_METRICS in SQLite, the gpu_metrics report\nAdds gpu_metrics to "
       "CUPTITRACE_ACTIVITIES; see --gpu-metrics-rate and --gpu-metrics-list",
       &args.gpuMetrics});
  command.options.push_back(
      {"--library", "PATH", "libcuptitrace.so to inject (default: the one beside this command)", &args.library});
  command.options.push_back({"--version", "", "Print the version and exit", &args.version});
  command.options.push_back(
      {"--env-markdown", "", "Print the variables as docs/configuration.md's Markdown table and exit", &args.envMarkdown});
  command.options.push_back(
      {"--completion", "SHELL", "Print a completion script for SHELL (bash) and exit", &args.completion});
  command.program = &args.program;
  return command;
}

}  // namespace

std::string flagFor(const ConfigVar& var) {
  std::string flag = "--";
  for (const char* p = var.name + sizeof("CUPTITRACE_") - 1; *p; ++p)
    flag += *p == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  return flag;
}

const ConfigVar* varForFlag(const std::string& flag) {
  const std::string wanted = flag == "-o" ? "--output" : flag;
  for (const auto& var : configTable())
    if (flagFor(var) == wanted) return &var;
  return nullptr;
}

const ConfigVar* findConfigVar(const std::string& name) {
  for (const auto& var : configTable())
    if (name == var.name) return &var;
  return nullptr;
}

bool isPlainFlag(const ConfigVar& var) { return std::string(var.type) == "bool"; }

std::string runOptionWords() {
  RunArgs args;
  return optionWords(runForm(args));
}

std::string helpText() {
  RunArgs args;
  return commandHelp(runForm(args));
}

int parseRunArgs(const std::vector<std::string>& argv, RunRequest& request, std::string& out,
                 std::string& err) {
  RunArgs args;
  const Command command = runForm(args);
  const int rc = parseCommand(command, argv, out, err);
  if (rc != kParsed) return rc;
  if (!args.version.empty()) {
    out += std::string("cuptitrace ") + kVersion + "\n";
    return 0;
  }
  if (!args.envMarkdown.empty()) {
    out += envMarkdownTable();
    return 0;
  }
  if (!args.completion.empty()) {
    if (args.completion != "bash") {
      err += usageError(command, "--completion '" + args.completion + "' is not valid (accepted: bash)");
      return 2;
    }
    out += bashCompletion();
    return 0;
  }
  const auto& table = configTable();
  for (size_t i = 0; i < table.size(); ++i) {
    if (!args.given[i]) continue;
    Config scratch;
    if (!table[i].apply(args.values[i], scratch)) {
      err += usageError(command, flagFor(table[i]) + " '" + args.values[i] + "' is not valid (accepted: " +
                                     table[i].accepted + ")");
      return 2;
    }
    request.settings.emplace_back(&table[i], args.values[i]);
  }
  if (flagIsOn(args.gpuMetrics)) {
    // Added to the activities asked for: by --activities, the environment, or the default.
    const ConfigVar* activities = findConfigVar("CUPTITRACE_ACTIVITIES");
    std::string* list = nullptr;
    for (auto& [var, value] : request.settings)
      if (var == activities) list = &value;
    if (list == nullptr) {
      const char* env = std::getenv("CUPTITRACE_ACTIVITIES");
      request.settings.emplace_back(activities, env != nullptr && *env != 0 ? env : activities->defaultValue);
      list = &request.settings.back().second;
    }
    *list += ",gpu_metrics";
  }
  if (args.program.empty()) {
    err += usageError(command, "no program to run");
    return 2;
  }
  request.library = args.library;
  request.program = std::move(args.program);
  return kParsed;
}

std::string envMarkdownTable() {
  std::string text =
      "| Variable | Flag | Default | Accepted | What it does |\n"
      "| --- | --- | --- | --- | --- |\n";
  for (const auto& var : configTable()) {
    // An empty default shows as such (an empty code span would print two backticks).
    const std::string def = *var.defaultValue ? "`" + std::string(var.defaultValue) + "`" : "(empty)";
    text += "| `" + std::string(var.name) + "` | `" + flagFor(var) + "` | " + def + " | " + var.accepted +
            " | " + var.help + " |\n";
  }
  return text;
}

}  // namespace cuptitrace::cli
