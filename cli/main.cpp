#include <cstring>

#include "cli/convert_command.h"
#include "cli/merge_command.h"
#include "cli/recipe_command.h"
#include "cli/recover_command.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "cli/stats_command.h"
#include "cli/summarize_command.h"

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "convert") == 0)
    return cuptitrace::cli::convertCommand(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "merge") == 0)
    return cuptitrace::cli::mergeCommand(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "stats") == 0)
    return cuptitrace::cli::statsCommand(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "report") == 0)
    return cuptitrace::cli::reportCommand(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "summarize") == 0)
    return cuptitrace::cli::summarizeCommand(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "recipe") == 0)
    return cuptitrace::cli::recipeCommand(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "recover") == 0)
    return cuptitrace::cli::recoverCommand(argc - 1, argv + 1);
  return cuptitrace::cli::runCommand(argc, argv);
}
