#include "cli/completion.h"

#include <utility>

#include "cli/convert_command.h"
#include "cli/merge_command.h"
#include "cli/options.h"
#include "cli/recipe_command.h"
#include "cli/recover_command.h"
#include "cli/report_command.h"
#include "cli/stats_command.h"
#include "cli/summarize_command.h"

namespace cuptitrace::cli {

std::string bashCompletion() {
  // Options complete after a dash; anything else is a file name (a trace, a
  // program, an option's value), or, first, a command's name. After "--" the
  // words are the program's, and bash's own completion takes over.
  std::string script =
      "# bash completion for cuptitrace: eval \"$(cuptitrace --completion bash)\"\n"
      "_cuptitrace() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} words i\n"
      "  case ${COMP_WORDS[1]} in\n";
  const std::pair<const char*, std::string> commands[] = {
      {"convert", convertOptionWords()},
      {"stats", statsOptionWords()},
      {"merge", mergeOptionWords()},
      {"recover", recoverOptionWords()},
      {"recipe", recipeOptionWords()},
      {"summarize", summarizeOptionWords()},
      {"report", reportOptionWords()},
  };
  for (const auto& [name, words] : commands)
    script +=
        std::string("    ") + name + ") [ $COMP_CWORD -gt 1 ] && words=\"" + words + "\" ;;\n";
  script +=
      "  esac\n"
      "  if [ -z \"$words\" ]; then\n"
      "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "      [ \"${COMP_WORDS[i]}\" = \"--\" ] && return 0\n"
      "    done\n"
      "    words=\"" +
      runOptionWords() +
      "\"\n"
      "  fi\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "  elif [ $COMP_CWORD -eq 1 ]; then\n"
      "    COMPREPLY=($(compgen -W \"convert stats report merge recover recipe summarize\" -- \"$cur\") $(compgen -f -- "
      "\"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  fi\n"
      "}\n"
      "complete -o filenames -o bashdefault -F _cuptitrace cuptitrace\n";
  return script;
}

}  // namespace cuptitrace::cli
