// Ends by signal: when a signal is about to end the program (SIGTERM, SIGINT
// with no handler of the program's own, a crash), the trace is written first,
// then the signal takes its course, so the exit status is the program's own.
#pragma once

#include <functional>

namespace cuptitrace {

// Installs the handlers once. `writeTrace` runs on a watcher thread of ours,
// never inside the signal handler; the handler waits for it at most a few seconds.
// In a forked child they only take the signal's course: the trace is the parent's.
void installSignalHandlers(std::function<void()> writeTrace);

// Capture windows toggled by a signal: each delivery of `sig` writes one byte
// to `fd` (non-blocking) and nothing else; a handler the program had for it
// runs after. The signal no longer ends the program. In a forked child the
// byte is not written. False when the handler could not be installed.
bool installToggleSignal(int sig, int fd);

}  // namespace cuptitrace
