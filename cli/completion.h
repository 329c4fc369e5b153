// `cuptitrace --completion bash`: a bash completion script made from the
// commands' own option lists (the run form's from the configuration table),
// so it names every option there is and no other.
#pragma once

#include <string>

namespace cuptitrace::cli {

std::string bashCompletion();

}  // namespace cuptitrace::cli
