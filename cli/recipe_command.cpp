#include "cli/recipe_command.h"

#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "cli/command_line.h"
#include "cli/trace_globs.h"
#include "core/parse.h"
#include "reports/report_table.h"

extern char** environ;

namespace cuptitrace::cli {
namespace {

struct RecipeArgs {
  std::vector<std::string> inputs;  // the recipe's name, then the traces
  std::string workers, scheduler, format, timeUnit, top, nameWidth, python, measure, wait, perTask;
};

Command recipeForm(RecipeArgs& a) {
  Command c;
  c.name = "cuptitrace recipe";
  c.usage =
      "usage: cuptitrace recipe NAME TRACE... [--workers N | --scheduler tcp://HOST:PORT]\n"
      "                         [--format table|csv|json] [--time-unit UNIT] [--top N] [--name-width N]\n";
  c.about =
      "Runs the reports across ranks on Dask: one task per rank's trace (PREFIX.native or\n"
      "PREFIX.sqlite, read where it is), then the reports from the tasks' summaries. The\n"
      "output is that of `cuptitrace stats --report <the recipe's reports>` over the same\n"
      "traces. A trace that cannot be read is named on stderr, and the reports say how\n"
      "many ranks they cover.";
  std::string footer = "Recipes:\n";
  for (const Recipe& r : recipeCatalog()) {
    std::string name = r.name;
    name.resize(16, ' ');
    footer += "  " + name + r.description + "\n";
  }
  footer +=
      "\nWithout --scheduler, a local cluster of --workers workers (default: one per\n"
      "core) starts and stops with the command, inside it: it opens no socket another\n"
      "user could reach. With it, the traces and this cuptitrace must be at the same\n"
      "paths on the workers (a shared file system). A trace whose task fails is named,\n"
      "with why, and the reports cover the others.\n"
      "Python: CUPTITRACE_PYTHON, else the first of python3 and /usr/bin/python3 that has\n"
      "dask and distributed (Debian: python3-dask python3-distributed).";
  c.footer = footer;
  c.options = {
      {"--workers", "N", "local cluster: workers (default: one per core)", &a.workers},
      {"--scheduler", "ADDRESS", "an existing Dask scheduler (tcp://HOST:PORT) instead", &a.scheduler},
      {"--wait", "SECONDS", "with --scheduler: how long to wait for it and for a first\nworker (default 60)", &a.wait},
      {"--format", "FORMAT", "table (default), csv or json", &a.format},
      {"--time-unit", "UNIT", "as for cuptitrace stats", &a.timeUnit},
      {"--top", "N", "rows per report; 0 (default) prints all", &a.top},
      {"--name-width", "N", "as for cuptitrace stats", &a.nameWidth},
      {"--traces-per-task", "N",
       "traces a task summarizes, one after the other (default: about\n8 tasks per worker, at most 32 traces "
       "each)",
       &a.perTask},
      {"--python", "PATH", "the Python to run the recipe with", &a.python},
      {"--measure", "FILE", "write the run's times and peak memory as JSON (benchmarks)", &a.measure},
  };
  c.positionalName = "NAME TRACE";
  c.positionalHelp = "the recipe, then the ranks' traces (a quoted pattern works too)";
  c.positionals = &a.inputs;
  return c;
}

bool isFile(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0;
}

// Whether `python` runs and has Dask and its distributed scheduler. Found,
// not imported: importing them takes half a second, and the recipe does it again.
bool hasDask(const std::string& python) {
  const char* argv[] = {python.c_str(), "-c",
                        "import importlib.util as u, sys; "
                        "sys.exit(0 if u.find_spec('dask') and u.find_spec('distributed') else 1)",
                        nullptr};
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, python.c_str(), &quiet, nullptr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (rc != 0) return false;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string selfPath() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// Where python/cuptitrace_recipes is: CUPTITRACE_RECIPES_DIR, next to an
// installed binary (PREFIX/share/cuptitrace/python), or the source tree the
// binary was built from.
std::string recipesDir(const std::string& self) {
  if (const char* dir = std::getenv("CUPTITRACE_RECIPES_DIR"); dir != nullptr && *dir != '\0') return dir;
  const std::string binDir = self.substr(0, self.rfind('/'));
  const std::string installed = binDir + "/../share/cuptitrace/python";
  if (isFile(installed + "/cuptitrace_recipes/__main__.py")) return installed;
  return CUPTITRACE_SOURCE_PYTHON_DIR;
}

}  // namespace

const std::vector<Recipe>& recipeCatalog() {
  static const std::vector<Recipe> catalog = {
      {"rank_summary", "ranks,collectives,collective_spread,rank_findings",
       "the reports across ranks: ranks, collectives, collective_spread, rank_findings"},
      {"kernel_summary", "rank_kernels", "per kernel name over all ranks (report rank_kernels; nsys: cuda_gpu_kern_sum)"},
  };
  return catalog;
}

std::string recipeUsage() {
  RecipeArgs a;
  return commandHelp(recipeForm(a));
}

std::string recipeOptionWords() {
  RecipeArgs a;
  return optionWords(recipeForm(a));
}

int recipeCommand(int argc, char** argv) {
  RecipeArgs a;
  const Command command = recipeForm(a);
  std::string out, err;
  const int parsed = parseCommand(command, std::vector<std::string>(argv + 1, argv + argc), out, err);
  auto finish = [&](int rc) {
    std::fputs(out.c_str(), stdout);
    std::fputs(err.c_str(), stderr);
    return rc;
  };
  if (parsed != kParsed) return finish(parsed);
  auto usage = [&](const std::string& message) {
    err += usageError(command, message);
    return finish(2);
  };
  if (a.inputs.empty()) return usage("no recipe given");
  const Recipe* recipe = nullptr;
  for (const Recipe& r : recipeCatalog())
    if (a.inputs.front() == r.name) recipe = &r;
  if (recipe == nullptr) {
    std::string names;
    for (const Recipe& r : recipeCatalog()) names += std::string(names.empty() ? "" : ", ") + r.name;
    return usage("'" + a.inputs.front() + "' is not a recipe (accepted: " + names + ")");
  }
  if (a.inputs.size() < 2) return usage("no trace given");
  // Checked here, before a cluster starts: the reports' own step would refuse them only at the end.
  if (!a.format.empty() && !parseReportFormat(a.format))
    return usage("--format '" + a.format + "' is not valid (accepted: table, csv, json)");
  if (!a.timeUnit.empty() && !parseTimeUnit(a.timeUnit))
    return usage("--time-unit '" + a.timeUnit + "' is not valid (accepted: auto, ns, us, ms, s)");
  for (const auto& [flag, value, least] : {std::tuple{"--workers", &a.workers, 1}, std::tuple{"--top", &a.top, 0},
                                            std::tuple{"--name-width", &a.nameWidth, 0}, std::tuple{"--wait", &a.wait, 1}, std::tuple{"--traces-per-task", &a.perTask, 1}}) {
    const auto n = parseUint(*value);
    if (!value->empty() && (!n || value->find_first_not_of("0123456789") != std::string::npos ||
                            *n < static_cast<uint64_t>(least) || *n > 1000000))
      return usage(std::string(flag) + " '" + *value + "' is not valid (accepted: an integer from " +
                   std::to_string(least) + " to 1000000)");
  }
  if (!a.workers.empty() && !a.scheduler.empty()) return usage("--workers is for a local cluster, not with --scheduler");
  std::vector<std::string> traces;
  std::string error;
  if (!expandTraceArgs(std::vector<std::string>(a.inputs.begin() + 1, a.inputs.end()), traces, error)) {
    err += "cuptitrace recipe: " + error + "\n";
    return finish(1);
  }

  std::vector<std::string> candidates;
  if (!a.python.empty()) {
    candidates = {a.python};
  } else if (const char* p = std::getenv("CUPTITRACE_PYTHON"); p != nullptr && *p != '\0') {
    candidates = {p};
  } else {
    // A pyenv or virtualenv python3 first, then the system's, where Debian's packages go.
    candidates = {"python3", "/usr/bin/python3"};
  }
  std::string python;
  for (const std::string& c : candidates)
    if (python.empty() && hasDask(c)) python = c;
  if (python.empty()) {
    std::string tried;
    for (const std::string& c : candidates) tried += std::string(tried.empty() ? "" : ", ") + c;
    err += "cuptitrace recipe: no Python with Dask (tried " + tried +
           "): install python3-dask and python3-distributed (scripts/install-deps.sh), or name one with "
           "CUPTITRACE_PYTHON\n";
    return finish(1);
  }
  const std::string self = selfPath();
  const std::string dir = recipesDir(self);
  const char* oldPath = std::getenv("PYTHONPATH");
  const std::string pythonPath = dir + (oldPath != nullptr && *oldPath != '\0' ? ":" + std::string(oldPath) : "");
  ::setenv("PYTHONPATH", pythonPath.c_str(), 1);

  std::vector<std::string> args = {python, "-m", "cuptitrace_recipes", "--recipe", recipe->name, "--reports",
                                   recipe->reports, "--cuptitrace", self.empty() ? argv[0] : self};
  for (const auto& [flag, value] :
       {std::pair{"--workers", &a.workers}, std::pair{"--scheduler", &a.scheduler}, std::pair{"--format", &a.format},
        std::pair{"--time-unit", &a.timeUnit}, std::pair{"--top", &a.top}, std::pair{"--name-width", &a.nameWidth},
        std::pair{"--measure", &a.measure}, std::pair{"--wait", &a.wait}, std::pair{"--traces-per-task", &a.perTask}})
    if (!value->empty()) {
      args.push_back(flag);
      args.push_back(*value);
    }
  args.push_back("--");
  args.insert(args.end(), traces.begin(), traces.end());
  std::vector<char*> cargs;
  for (std::string& s : args) cargs.push_back(s.data());
  cargs.push_back(nullptr);
  std::fflush(stdout);
  ::execvp(python.c_str(), cargs.data());
  err += "cuptitrace recipe: cannot run " + python + "\n";
  return finish(1);
}

}  // namespace cuptitrace::cli
