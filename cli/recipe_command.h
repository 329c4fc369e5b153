// `cuptitrace recipe NAME TRACE... [--workers N | --scheduler tcp://HOST:PORT]`:
// the reports across ranks, with the reading of the traces spread over a
// Dask cluster, as Nsight Systems' recipes do. This command picks the recipe
// and a Python that has Dask, then runs the recipes' package
// (python/cuptitrace_recipes): a task per trace runs `cuptitrace summarize`
// where the trace is, and the driver makes the reports from the summaries
// with `cuptitrace stats --summaries`. Both halves are this binary, so the
// reports are those of `cuptitrace stats` over the same traces.
#pragma once

#include <string>
#include <vector>

namespace cuptitrace::cli {

struct Recipe {
  const char* name;
  const char* reports;  // --report of cuptitrace stats
  const char* description;
};
const std::vector<Recipe>& recipeCatalog();

std::string recipeUsage();
// argv[0] is "recipe". Replaces the process with Python's on success.
int recipeCommand(int argc, char** argv);

std::string recipeOptionWords();

}  // namespace cuptitrace::cli
