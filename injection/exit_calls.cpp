#include "injection/exit_calls.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include "core/log.h"
#include "injection/got_patch.h"
#include "injection/signal_view.h"
#include "injection/signals.h"

namespace cuptitrace {
namespace {

[[noreturn]] void tracedExit(int status) {
  writeBeforeExitCall();
  ::_exit(status);
}

[[noreturn]] void tracedExitC(int status) {
  writeBeforeExitCall();
  ::_Exit(status);
}

int tracedSigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  return signal_view::programSigaction(sig, act, old);
}

sighandler_t tracedSignal(int sig, sighandler_t handler) { return signal_view::programSignal(sig, handler); }
sighandler_t tracedSysvSignal(int sig, sighandler_t handler) { return signal_view::programSysvSignal(sig, handler); }

void beforeQuickExit() { writeBeforeExitCall(); }

}  // namespace

void redirectExitCalls() {
  static const GotRedirect kRedirects[] = {
      {"_exit", reinterpret_cast<void*>(&tracedExit)},
      {"_Exit", reinterpret_cast<void*>(&tracedExitC)},
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
