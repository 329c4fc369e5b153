#include "cli/options.h"

#include <cctype>

namespace cuptitrace::cli {

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

std::string helpText() {
  std::string text =
      "Usage:\n"
      "  cuptitrace [options] [--] PROGRAM [ARGS...]   trace PROGRAM; returns its exit code\n"
      "  cuptitrace convert TRACE.native... --to json|json.gz|csv|native|pftrace|sqlite[,...]\n"
      "                     [-o PREFIX] [--split SIZE] [--overwrite]\n"
      "                                               write other outputs from a saved trace\n"
      "                                               (several traces: --to sqlite, one database)\n"
      "  cuptitrace stats TRACE.native [--report NAME[,NAME]] [--format table|csv|json]\n"
      "                   [--top N] [--time-unit auto|ns|us|ms|s] [--name-width N]\n"
      "                                               print reports of a saved trace\n"
      "                                               (cuptitrace stats --help lists them)\n"
      "  cuptitrace merge TRACE.native... -o OUT.json|OUT.pftrace|OUT.sqlite [--overwrite]\n"
      "                                               put several processes' saved traces on one\n"
      "                                               timeline, clocks aligned\n"
      "  cuptitrace recover JOURNAL.spill [-o PREFIX] [--to FORMATS] [--overwrite]\n"
      "                                               rebuild the trace of a killed run from its\n"
      "                                               spill journal (see --spill)\n"
      "  cuptitrace --help | --version\n"
      "\n"
      "Options (each sets the environment variable after it; the variables work\n"
      "without this command too, with CUDA_INJECTION64_PATH=libcuptitrace.so):\n";
  for (const auto& var : configTable()) {
    std::string flag = flagFor(var);
    if (flag == "--output") flag = "-o, --output";
    text += "  " + flag + " VALUE";
    text += std::string(flag.size() + 6 < 28 ? 28 - flag.size() - 6 : 1, ' ');
    text += std::string(var.name) + " (default: " + var.defaultValue + ")\n";
    text += "        " + std::string(var.help) + "\n";
    text += "        Accepted: " + std::string(var.accepted) + "\n";
  }
  text +=
      "  --library PATH            libcuptitrace.so to inject (default: next to this command)\n"
      "\n"
      "Output files (PREFIX from --output): PREFIX.json (open in https://ui.perfetto.dev),\n"
      "PREFIX.native (for 'cuptitrace convert'), PREFIX.kernels.csv, .memcpy.csv, .memset.csv,\n"
      ".api.csv, .nvtx.csv (and .sync.csv, .overhead.csv when recorded), and PREFIX.reports.txt\n"
      "(every report; see --summary).\n";
  return text;
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
