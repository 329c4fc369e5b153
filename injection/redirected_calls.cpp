#include "injection/redirected_calls.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "core/log.h"
#include "injection/exec_calls.h"
#include "injection/got_patch.h"
#include "injection/signal_view.h"
#include "injection/signals.h"

namespace cuptitrace {
namespace {

[[noreturn]] void tracedExit(int status) {
  writeBeforeEnding(EndingKind::ExitCall, "_exit");
  ::_exit(status);
}

[[noreturn]] void tracedExitC(int status) {
  writeBeforeEnding(EndingKind::ExitCall, "_Exit");
  ::_Exit(status);
}

int tracedSigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  return signal_view::programSigaction(sig, act, old);
}

sighandler_t tracedSignal(int sig, sighandler_t handler) { return signal_view::programSignal(sig, handler); }
sighandler_t tracedSysvSignal(int sig, sighandler_t handler) { return signal_view::programSysvSignal(sig, handler); }
sighandler_t tracedSigset(int sig, sighandler_t disposition) { return signal_view::programSigset(sig, disposition); }
int tracedSiginterrupt(int sig, int interrupt) { return signal_view::programSiginterrupt(sig, interrupt); }

void beforeQuickExit() { writeBeforeEnding(EndingKind::ExitCall, "quick_exit"); }

}  // namespace

void redirectProgramCalls() {
  static const GotRedirect kRedirects[] = {
      {"_exit", reinterpret_cast<void*>(&tracedExit)},
      {"_Exit", reinterpret_cast<void*>(&tracedExitC)},
      {"sigaction", reinterpret_cast<void*>(&tracedSigaction)},
      {"signal", reinterpret_cast<void*>(&tracedSignal)},
      {"bsd_signal", reinterpret_cast<void*>(&tracedSignal)},
      {"sysv_signal", reinterpret_cast<void*>(&tracedSysvSignal)},
      {"__sysv_signal", reinterpret_cast<void*>(&tracedSysvSignal)},
      {"sigset", reinterpret_cast<void*>(&tracedSigset)},
      {"siginterrupt", reinterpret_cast<void*>(&tracedSiginterrupt)},
  };
  constexpr size_t kOwn = sizeof(kRedirects) / sizeof(kRedirects[0]);
  size_t execCount = 0;
  const GotRedirect* exec = execRedirects(execCount);
  GotRedirect all[kOwn + 16];
  size_t n = 0;
  for (size_t i = 0; i < kOwn; ++i) all[n++] = kRedirects[i];
  for (size_t i = 0; i < execCount && n < sizeof(all) / sizeof(all[0]); ++i) all[n++] = exec[i];
  const GotPatchResult r = redirectImports(all, n, reinterpret_cast<void*>(&tracedExit));
  // quick_exit() calls _exit inside the C library, out of reach of the table.
  std::at_quick_exit(beforeQuickExit);
  logger().debug("exit, exec and signal calls of {} objects ({} entries) now reach the tracer", r.objects, r.entries);
  if (r.refused != 0)
    logger().info("{} table entries of {} could not be made writable (sealed or unreadable): their exit, exec and "
                  "signal calls reach the C library directly",
                  r.refused, r.refusedObjects);
}

}  // namespace cuptitrace
