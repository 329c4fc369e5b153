#include "cli/run_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/options.h"
#include "core/config.h"

namespace cuptitrace::cli {
namespace {

std::string executableDir() {
  char path[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return ".";
  std::string p(path, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

// The library beside the command (installed or in the build tree).
std::string findLibrary() {
  const std::string dir = executableDir();
  for (const char* rel : {"/libcuptitrace.so", "/../lib/libcuptitrace.so", "/../injection/libcuptitrace.so"}) {
    const std::string candidate = dir + rel;
    if (::access(candidate.c_str(), R_OK) == 0) {
      char resolved[4096];
      if (::realpath(candidate.c_str(), resolved) != nullptr) return resolved;
      return candidate;
    }
  }
  return {};
}

// The Python start-up hook's folder: under share/ beside an installed
// command, or in the source tree the command was built from.
std::string findPythonHook() {
  const std::string installed = executableDir() + "/../share/cuptitrace/python/cuptitrace_pyhook";
  for (const std::string& folder : {installed, std::string(CUPTITRACE_SOURCE_PYTHON_DIR) + "/cuptitrace_pyhook"}) {
    if (::access((folder + "/sitecustomize.py").c_str(), R_OK) != 0) continue;
    char resolved[4096];
    return ::realpath(folder.c_str(), resolved) != nullptr ? std::string(resolved) : folder;
  }
  return {};
}

// Whether the configuration the program will read selects osrt.
Config programConfig() {
  std::vector<std::string> ignored;  // the library reports bad values itself
  return parseConfig([](const char* name) { return std::getenv(name); }, ignored);
}
bool selectsOsrt() { return (programConfig().activities & kActivityOsrt) != 0; }

}  // namespace

std::string accProfLibFor(const char* current, const std::string& library, std::string& note) {
  if (current == nullptr || *current == '\0' || library == current) return library;
  note = std::string("cuptitrace: ACC_PROFLIB is set (") + current +
         "): it is kept, and OpenACC events are not recorded (the OpenACC runtime loads one profiling library)";
  return {};
}

std::string watchLibraryBeside(const std::string& library) {
  const size_t slash = library.rfind('/');
  return (slash == std::string::npos ? std::string() : library.substr(0, slash + 1)) + "libcuptitrace-watch.so";
}

std::string osrtLibraryBeside(const std::string& library) {
  const size_t slash = library.rfind('/');
  return (slash == std::string::npos ? std::string() : library.substr(0, slash + 1)) + "libcuptitrace-osrt.so";
}

std::string pythonPathWith(const char* current, const std::string& folder) {
  const std::string list = current != nullptr ? current : "";
  size_t at = 0;
  while (at <= list.size()) {
    const size_t end = list.find(':', at);
    const size_t stop = end == std::string::npos ? list.size() : end;
    if (stop > at && list.compare(at, stop - at, folder) == 0) return list;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return list.empty() ? folder : folder + ":" + list;
}

std::string preloadWith(const char* current, const std::string& library) {
  const std::string list = current != nullptr ? current : "";
  // Already there: the list is left as it is.
  size_t at = 0;
  while (at <= list.size()) {
    const size_t end = list.find_first_of(": ", at);
    const size_t stop = end == std::string::npos ? list.size() : end;
    if (list.compare(at, stop - at, library) == 0 && stop > at) return list;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return list.empty() ? library : library + ":" + list;
}

int runCommand(int argc, char** argv) {
  RunRequest request;
  std::string out, err;
  const int rc = parseRunArgs(std::vector<std::string>(argv + 1, argv + argc), request, out, err);
  std::fputs(out.c_str(), stdout);
  std::fputs(err.c_str(), stderr);
  if (rc != kParsed) return rc;
  for (const auto& [var, value] : request.settings) ::setenv(var->name, value.c_str(), 1);
  std::string library = request.library;
  if (library.empty()) library = findLibrary();
  if (library.empty() || ::access(library.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "cuptitrace: cannot find libcuptitrace.so%s%s (use --library PATH)\n",
                 library.empty() ? "" : " at ", library.c_str());
    return 2;
  }
  ::setenv("CUDA_INJECTION64_PATH", library.c_str(), 1);
  ::setenv("NVTX_INJECTION64_PATH", library.c_str(), 1);
  // OpenACC runtimes load the library named by ACC_PROFLIB and call its
  // acc_register_library; programs without one never read the variable.
  if (const Config config = programConfig(); (config.activities & kActivityOpenAcc) != 0) {
    std::string note;
    const std::string value = accProfLibFor(std::getenv("ACC_PROFLIB"), library, note);
    if (!value.empty()) ::setenv("ACC_PROFLIB", value.c_str(), 1);
    if (!note.empty() && !config.quiet) std::fprintf(stderr, "%s\n", note.c_str());
  }
  // PyTorch operators and Python lines: a start-up hook on the program's
  // PYTHONPATH (inert in programs that never import torch).
  if (const Config config = programConfig(); config.pytorch != PytorchMode::Off || config.pythonBacktrace) {
    const std::string hook = findPythonHook();
    if (hook.empty()) {
      std::fprintf(stderr,
                   "cuptitrace: the Python start-up hook (cuptitrace_pyhook) is not beside this command; "
                   "PyTorch operators and Python lines will not be recorded\n");
    } else {
      ::setenv("PYTHONPATH", pythonPathWith(std::getenv("PYTHONPATH"), hook).c_str(), 1);
    }
  }
  // osrt: the wrappers of C library calls live in a small library of their
  // own, reached only when preloaded. The program and every process it starts
  // load it; only those that use CUDA load the tracer (and libcupti), which
  // then connects to it.
  if (selectsOsrt()) {
    const std::string osrt = osrtLibraryBeside(library);
    if (::access(osrt.c_str(), R_OK) != 0) {
      std::fprintf(stderr, "cuptitrace: osrt needs %s beside the library; C library calls will not be recorded\n",
                   osrt.c_str());
    } else {
      ::setenv("LD_PRELOAD", preloadWith(std::getenv("LD_PRELOAD"), osrt).c_str(), 1);
    }
  }
  // The program the command starts says so if it ends without ever starting
  // CUDA (libcuptitrace-watch.so; exec keeps this pid, its children do not).
  const std::string watch = watchLibraryBeside(library);
  if (::access(watch.c_str(), R_OK) == 0) {
    ::setenv("CUPTITRACE_COMMAND_PID", std::to_string(::getpid()).c_str(), 1);
    ::setenv("LD_PRELOAD", preloadWith(std::getenv("LD_PRELOAD"), watch).c_str(), 1);
  }
  std::vector<char*> programArgv;
  for (auto& arg : request.program) programArgv.push_back(arg.data());
  programArgv.push_back(nullptr);
  std::fflush(stdout);
  ::execvp(programArgv[0], programArgv.data());
  const int error = errno;
  std::fprintf(stderr, "cuptitrace: cannot run '%s': %s\n", programArgv[0], std::strerror(error));
  return error == ENOENT ? 127 : 126;
}

}  // namespace cuptitrace::cli
