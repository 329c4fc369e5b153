// The command line: the run form's flags (from the configuration table), the
// commands' own options and help, one-line mistakes with exit code 2, the
// completion script, and (with CTest's CUPTITRACE_CLI set) the real binary.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cli/command_line.h"
#include "cli/completion.h"
#include "cli/convert_command.h"
#include "cli/merge_command.h"
#include "cli/options.h"
#include "cli/recover_command.h"
#include "cli/report_command.h"
#include "cli/stats_command.h"

namespace cuptitrace {
namespace {

struct Parsed {
  int rc = 0;
  cli::RunRequest request;
  std::string out, err;

  // The value the command line gives `name`, or "(unset)".
  std::string setting(const std::string& name) const {
    for (const auto& [var, value] : request.settings)
      if (name == var->name) return value;
    return "(unset)";
  }
};

Parsed parse(const std::vector<std::string>& args) {
  Parsed p;
  p.rc = cli::parseRunArgs(args, p.request, p.out, p.err);
  return p;
}

size_t lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("run form: boolean options are plain flags", "[cli]") {
  Parsed p = parse({"--quiet", "--overwrite", "-o", "t", "--", "./app", "arg"});
  REQUIRE(p.rc == cli::kParsed);
  CHECK(p.err.empty());
  CHECK(p.setting("CUPTITRACE_QUIET") == "1");
  CHECK(p.setting("CUPTITRACE_OVERWRITE") == "1");
  CHECK(p.setting("CUPTITRACE_OUTPUT") == "t");
  CHECK(p.setting("CUPTITRACE_FORMAT") == "(unset)");  // only what is given is set
  CHECK(p.request.program == Strings{"./app", "arg"});

  // Without "--" the program starts at the first word that is not ours.
  p = parse({"--quiet", "./app", "-o", "x"});
  REQUIRE(p.rc == cli::kParsed);
  CHECK(p.setting("CUPTITRACE_QUIET") == "1");
  CHECK(p.setting("CUPTITRACE_OUTPUT") == "(unset)");
  CHECK(p.request.program == Strings{"./app", "-o", "x"});

  // A value after '=', in any of the words the variable takes.
  for (const auto& [given, want] :
       std::vector<std::pair<std::string, std::string>>{{"--quiet=0", "0"},
                                                        {"--quiet=no", "0"},
                                                        {"--quiet=off", "0"},
                                                        {"--quiet=yes", "1"},
                                                        {"--quiet=true", "1"}}) {
    INFO(given);
    p = parse({given, "./app"});
    REQUIRE(p.rc == cli::kParsed);
    CHECK(p.setting("CUPTITRACE_QUIET") == want);
  }
}

TEST_CASE("run form: options with values, and the program's own options", "[cli]") {
  Parsed p = parse({"--format", "json,csv", "--buffer-size=16M", "--step-range=", "python3",
                    "train.py", "--quiet", "--", "x"});
  REQUIRE(p.rc == cli::kParsed);
  CHECK(p.setting("CUPTITRACE_FORMAT") == "json,csv");
  CHECK(p.setting("CUPTITRACE_BUFFER_SIZE") == "16M");
  CHECK(p.setting("CUPTITRACE_STEP_RANGE").empty());
  CHECK(p.setting("CUPTITRACE_QUIET") == "(unset)");  // the program's --quiet is the program's
  CHECK(p.request.program == Strings{"python3", "train.py", "--quiet", "--", "x"});

  // Given twice, the last one counts.
  p = parse({"--format", "json", "--format=csv", "--quiet", "--quiet=0", "./app"});
  REQUIRE(p.rc == cli::kParsed);
  CHECK(p.setting("CUPTITRACE_FORMAT") == "csv");
  CHECK(p.setting("CUPTITRACE_QUIET") == "0");

  // An empty value after '=' is empty, not the next word; the program's own
  // words are left as they are, empty ones too.
  p = parse({"--step-range=", "./app", "--output=", "", "x"});
  REQUIRE(p.rc == cli::kParsed);
  CHECK(p.setting("CUPTITRACE_STEP_RANGE").empty());
  CHECK(p.setting("CUPTITRACE_OUTPUT") == "(unset)");
  CHECK(p.request.program == Strings{"./app", "--output=", "", "x"});

  p = parse({"--library", "/opt/lib/libcuptitrace.so", "--", "--strange-name"});
  REQUIRE(p.rc == cli::kParsed);
  CHECK(p.request.library == "/opt/lib/libcuptitrace.so");
  CHECK(p.request.program == Strings{"--strange-name"});
}

TEST_CASE("run form: every variable's flag sets it, with its default", "[cli]") {
  for (const auto& var : configTable()) {
    INFO(var.name);
    const std::string flag = cli::flagFor(var);
    const Strings args = cli::isPlainFlag(var) ? Strings{flag, "./app"}
                                               : Strings{flag + "=" + var.defaultValue, "./app"};
    const Parsed p = parse(args);
    REQUIRE(p.rc == cli::kParsed);
    CHECK(p.setting(var.name) == (cli::isPlainFlag(var) ? "1" : var.defaultValue));
    CHECK(p.request.settings.size() == 1);
  }
}

TEST_CASE("run form: a mistake is one line and exit code 2", "[cli]") {
  const std::vector<std::pair<Strings, std::string>> bad = {
      {{"--bogus", "./app"}, "unknown option '--bogus'"},
      {{"--bogus=1", "./app"}, "unknown option '--bogus'"},
      {{"--quiet=maybe", "./app"}, "--quiet 'maybe' is not valid"},
      {{"--format", "xml", "./app"}, "--format 'xml' is not valid (accepted: "},
      {{"--buffer-size", "1", "./app"}, "--buffer-size '1' is not valid"},
      {{"--format"}, "--format"},
      {{}, "no program to run"},
      {{"--quiet"}, "no program to run"},
      {{"--completion", "zsh"}, "--completion 'zsh' is not valid"},
  };
  for (const auto& [args, message] : bad) {
    const Parsed p = parse(args);
    INFO(p.err);
    CHECK(p.rc == 2);
    CHECK(p.out.empty());
    CHECK(lines(p.err) == 1);
    CHECK_THAT(p.err, Catch::StartsWith("cuptitrace: ") && Catch::Contains(message) &&
                          Catch::EndsWith("(see cuptitrace --help)\n"));
    CHECK(p.request.program.empty());
  }
}

TEST_CASE("run form: --help, --version, --env-markdown, --completion", "[cli]") {
  for (const std::string help : {"--help", "-h"}) {
    const Parsed p = parse({help});
    CHECK(p.rc == 0);
    CHECK(p.err.empty());
    CHECK(p.out == cli::helpText());
  }
  CHECK_THAT(cli::helpText(), Catch::StartsWith("Usage:\n  cuptitrace [options] [--] PROGRAM"));
  // A flag shows no value in the help; an option its kind.
  CHECK_THAT(cli::helpText(),
             Catch::Contains("  --quiet  ") && Catch::Contains("  --buffer-size SIZE  "));
  Parsed p = parse({"--version"});
  CHECK(p.rc == 0);
  CHECK_THAT(p.out, Catch::StartsWith("cuptitrace "));
  p = parse({"--env-markdown"});
  CHECK(p.rc == 0);
  CHECK(p.out == cli::envMarkdownTable());
  p = parse({"--completion", "bash"});
  CHECK(p.rc == 0);
  CHECK(p.out == cli::bashCompletion());
}

TEST_CASE("commands: each has its own --help, and mistakes are one line", "[cli]") {
  using Run = int (*)(const std::vector<std::string>&, std::string&, std::string&);
  const std::vector<std::tuple<std::string, Run, Strings>> commands = {
      {"convert", cli::runConvert, {"--to", "-o", "--split", "--overwrite"}},
      {"stats", cli::runStats, {"--report", "--format", "--top", "--by-launch-config"}},
      {"merge", cli::runMerge, {"-o", "--output", "--overwrite"}},
      {"recover", cli::runRecover, {"--to", "-o", "--overwrite"}},
      {"report", cli::runReport, {"-o", "--output", "--overwrite", "--step-range"}},
  };
  for (const auto& [name, run, options] : commands) {
    INFO(name);
    std::string out, err;
    CHECK(run({"--help"}, out, err) == 0);
    CHECK(err.empty());
    CHECK_THAT(out, Catch::StartsWith("usage: cuptitrace " + name + " "));
    for (const auto& option : options) CHECK_THAT(out, Catch::Contains(option));
    for (const Strings& args :
         {Strings{"--bogus"}, Strings{"a", "b", "c"}, Strings{"--overwrite=maybe"}, Strings{}}) {
      // merge and stats (across ranks) take any number of traces
      if ((name == "merge" || name == "stats" || name == "report") && args.size() == 3) continue;
      out.clear();
      err.clear();
      INFO(args.size() << " arguments: " << err);
      CHECK(run(args, out, err) == 2);
      CHECK(out.empty());
      CHECK(lines(err) == 1);
      CHECK_THAT(err, Catch::StartsWith("cuptitrace " + name + ": ") &&
                          Catch::EndsWith("(see cuptitrace " + name + " --help)\n"));
    }
  }
  std::string out, err;
  CHECK(cli::runConvert({"x.native", "--to", "xml"}, out, err) == 2);
  CHECK_THAT(err, Catch::Contains("--to 'xml' is not valid"));
  err.clear();
  CHECK(cli::runConvert({"x.native"}, out, err) == 2);
  CHECK_THAT(err, Catch::Contains("no formats given"));
  err.clear();
  // Parsed, then the missing trace is the error (exit 1), not the flag.
  CHECK(cli::runConvert({"/nonexistent/x.native", "--to=json", "--overwrite=0"}, out, err) == 1);
  CHECK_THAT(err, Catch::Contains("cannot open /nonexistent/x.native"));
}

TEST_CASE("completion: the bash script names every option of every command", "[cli]") {
  const std::string script = cli::bashCompletion();
  for (const auto& var : configTable())
    CHECK_THAT(script, Catch::Contains(" " + cli::flagFor(var) + " "));
  for (const std::string word :
       {"convert", "stats", "merge", "recover", "--by-launch-config", "--by-python", "--split", "--library",
        "complete -o filenames -o bashdefault -F _cuptitrace cuptitrace"})
    CHECK_THAT(script, Catch::Contains(word));
  // bash reads it (when there is a bash).
  if (std::system("command -v bash >/dev/null 2>&1") == 0) {
    const std::string path = "/tmp/cuptitrace-completion-" + std::to_string(::getpid()) + ".bash";
    std::ofstream(path) << script;
    CHECK(std::system(("bash -n " + path).c_str()) == 0);
    const std::string use = "bash -c 'source " + path +
                            " && COMP_WORDS=(cuptitrace stats --by-l) COMP_CWORD=2 && _cuptitrace && "
                            "[ \"${COMPREPLY[*]}\" = --by-launch-config ]'";
    CHECK(std::system(use.c_str()) == 0);
    std::remove(path.c_str());
  }
}

// The real binary, run by CTest with CUPTITRACE_CLI set (tests/unit/CMakeLists.txt).
TEST_CASE("the cuptitrace binary: flags reach the program's environment", "[.binary]") {
  const char* binary = std::getenv("CUPTITRACE_CLI");
  REQUIRE(binary != nullptr);
  const std::string cuptitrace = std::string("'") + binary + "'";
  // Any readable file stands in for the library: /usr/bin/env loads no CUDA.
  auto run = [&](const std::string& args, std::string& out) {
    out.clear();
    FILE* pipe = ::popen((cuptitrace + " " + args + " 2>&1").c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buf[4096];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    const int status = ::pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  std::string out;
  CHECK(run("--quiet --overwrite -o t --library " + cuptitrace + " -- /usr/bin/env", out) == 0);
  CHECK_THAT(out, Catch::Contains("CUPTITRACE_QUIET=1\n") &&
                      Catch::Contains("CUPTITRACE_OVERWRITE=1\n") &&
                      Catch::Contains("CUPTITRACE_OUTPUT=t\n") &&
                      Catch::Contains("CUDA_INJECTION64_PATH=" + std::string(binary) + "\n"));
  CHECK(run("--quiet=0 --library " + cuptitrace + " /usr/bin/env", out) == 0);
  CHECK_THAT(out, Catch::Contains("CUPTITRACE_QUIET=0\n"));
  // The program's exit code is the command's.
  CHECK(run("--quiet --library " + cuptitrace + " -- /bin/sh -c 'exit 7'", out) == 7);
  CHECK(run("--bogus /bin/true", out) == 2);
  CHECK(out == "cuptitrace: unknown option '--bogus' (see cuptitrace --help)\n");
  CHECK(run("convert --help", out) == 0);
  CHECK_THAT(out, Catch::StartsWith("usage: cuptitrace convert"));
  CHECK(run("stats", out) == 2);
  CHECK(lines(out) == 1);
}

TEST_CASE("run form: --gpu-metrics adds the gpu_metrics activity to the kinds asked for", "[cli]") {
  unsetenv("CUPTITRACE_ACTIVITIES");
  Parsed alone = parse({"--gpu-metrics", "--", "./app"});
  REQUIRE(alone.rc == cli::kParsed);
  CHECK(alone.setting("CUPTITRACE_ACTIVITIES") == "default,gpu_metrics");
  Parsed with = parse({"--activities", "kernel,memory", "--gpu-metrics", "--gpu-metrics-rate", "20kHz",
                       "--gpu-metrics-list", "default,lts__throughput.avg.pct_of_peak_sustained_elapsed",
                       "--", "./app"});
  REQUIRE(with.rc == cli::kParsed);
  CHECK(with.setting("CUPTITRACE_ACTIVITIES") == "kernel,memory,gpu_metrics");
  CHECK(with.setting("CUPTITRACE_GPU_METRICS_RATE") == "20kHz");
  Parsed off = parse({"--gpu-metrics=0", "--", "./app"});
  REQUIRE(off.rc == cli::kParsed);
  CHECK(off.setting("CUPTITRACE_ACTIVITIES") == "(unset)");
  Parsed bad = parse({"--gpu-metrics-rate", "3MHz", "--", "./app"});
  CHECK(bad.rc == 2);
  CHECK_THAT(bad.err, Catch::Contains("--gpu-metrics-rate"));
}

}  // namespace cuptitrace
