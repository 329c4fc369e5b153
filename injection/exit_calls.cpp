#include "injection/exit_calls.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "core/log.h"
#include "injection/got_patch.h"
#include "injection/signal_view.h"
#include "injection/signals.h"

namespace cuptitrace {
namespace {

[[noreturn]] void tracedExit(int status) {
  writeBeforeExitCall("_exit");
  ::_exit(status);
}

[[noreturn]] void tracedExitC(int status) {
  writeBeforeExitCall("_Exit");
  ::_Exit(status);
}

// exec replaces the process: no exit handler runs, so its trace is written
// first. Should exec fail, the program goes on, untraced from here: said once.
int afterFailedExec(const char* call, int result) {
  const int saved = errno;
  char line[160];
  const int n = std::snprintf(line, sizeof(line),
                              "cuptitrace: %s failed after the trace was written: the program goes on untraced\n", call);
  if (n > 0) (void)::write(2, line, static_cast<size_t>(n) < sizeof(line) ? static_cast<size_t>(n) : sizeof(line) - 1);
  errno = saved;
  return result;
}

int tracedExecve(const char* path, char* const argv[], char* const envp[]) {
  writeBeforeExitCall("execve");
  return afterFailedExec("execve", ::execve(path, argv, envp));
}
int tracedExecv(const char* path, char* const argv[]) {
  writeBeforeExitCall("execv");
  return afterFailedExec("execv", ::execv(path, argv));
}
int tracedExecvp(const char* file, char* const argv[]) {
  writeBeforeExitCall("execvp");
  return afterFailedExec("execvp", ::execvp(file, argv));
}
int tracedExecvpe(const char* file, char* const argv[], char* const envp[]) {
  writeBeforeExitCall("execvpe");
  return afterFailedExec("execvpe", ::execvpe(file, argv, envp));
}

int tracedSigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  return signal_view::programSigaction(sig, act, old);
}

sighandler_t tracedSignal(int sig, sighandler_t handler) { return signal_view::programSignal(sig, handler); }
sighandler_t tracedSysvSignal(int sig, sighandler_t handler) { return signal_view::programSysvSignal(sig, handler); }

void beforeQuickExit() { writeBeforeExitCall("quick_exit"); }

}  // namespace

void redirectExitCalls() {
  static const GotRedirect kRedirects[] = {
      {"_exit", reinterpret_cast<void*>(&tracedExit)},
      {"_Exit", reinterpret_cast<void*>(&tracedExitC)},
      {"execve", reinterpret_cast<void*>(&tracedExecve)},
      {"execv", reinterpret_cast<void*>(&tracedExecv)},
      {"execvp", reinterpret_cast<void*>(&tracedExecvp)},
      {"execvpe", reinterpret_cast<void*>(&tracedExecvpe)},
      {"sigaction", reinterpret_cast<void*>(&tracedSigaction)},
      {"signal", reinterpret_cast<void*>(&tracedSignal)},
      {"bsd_signal", reinterpret_cast<void*>(&tracedSignal)},
      {"sysv_signal", reinterpret_cast<void*>(&tracedSysvSignal)},
      {"__sysv_signal", reinterpret_cast<void*>(&tracedSysvSignal)},
  };
  const GotPatchResult r =
      redirectImports(kRedirects, sizeof(kRedirects) / sizeof(kRedirects[0]), reinterpret_cast<void*>(&tracedExit));
  // quick_exit() calls _exit inside the C library, out of reach of the table.
  std::at_quick_exit(beforeQuickExit);
  logger().debug("exit and signal calls of {} objects ({} entries) now reach the tracer{}", r.objects, r.entries,
                 r.refused != 0 ? " (" + std::to_string(r.refused) + " entries could not be rewritten)" : "");
}

}  // namespace cuptitrace
