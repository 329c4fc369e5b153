// Ends by signal: when a signal is about to end the program (SIGTERM, SIGINT
// with no handler of the program's own, a crash), the trace is written first,
// then the signal takes its course, so the exit status is the program's own.
#pragma once

#include <functional>

namespace cuptitrace {

// Installs the handlers once. `writeTrace` runs on a watcher thread of ours,
// never inside the signal handler; the handler waits for it at most a few seconds.
void installSignalHandlers(std::function<void()> writeTrace);

}  // namespace cuptitrace
