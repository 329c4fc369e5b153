#include "cli/trace_globs.h"

#include <glob.h>
#include <sys/stat.h>

namespace cuptitrace::cli {

bool expandTraceArgs(const std::vector<std::string>& args, std::vector<std::string>& out,
                     std::string& error) {
  for (const std::string& arg : args) {
    struct stat st {};
    if (arg.find_first_of("*?[") == std::string::npos || ::stat(arg.c_str(), &st) == 0) {
      out.push_back(arg);
      continue;
    }
    glob_t matches{};
    const int rc = ::glob(arg.c_str(), 0, nullptr, &matches);  // sorted, as a shell lists them
    if (rc != 0) {
      ::globfree(&matches);
      error = "'" + arg + "' matches no file";
      return false;
    }
    for (size_t i = 0; i < matches.gl_pathc; ++i) out.emplace_back(matches.gl_pathv[i]);
    ::globfree(&matches);
  }
  return true;
}

}  // namespace cuptitrace::cli
