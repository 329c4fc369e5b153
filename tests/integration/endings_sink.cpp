// A stand-in for the tracer, built from its real lifecycle code
// (injection/signals.cpp, signal_view.cpp, exit_calls.cpp, got_patch.cpp):
// loaded privately by endings_probe, as the CUDA driver loads the tracer, it
// installs the handlers and redirects the program's calls, and "writes the
// trace" by appending one line to a log after a delay.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "collectors/fork_guard.h"
#include "injection/exit_calls.h"
#include "injection/signals.h"

#define SINK_API extern "C" __attribute__((visibility("default")))

namespace {

char gLog[512];
int gWriteMs = 0;

void writeTrace(int sig) {
  ::usleep(static_cast<useconds_t>(gWriteMs) * 1000);
  char line[32];
  const int n = std::snprintf(line, sizeof(line), "wrote %d\n", sig);
  const int fd = ::open(gLog, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return;
  (void)::write(fd, line, static_cast<size_t>(n));
  ::close(fd);
}

}  // namespace

SINK_API void endings_sink_start(const char* log, int writeMs, const char* journal) {
  std::snprintf(gLog, sizeof(gLog), "%s", log);
  gWriteMs = writeMs;
  cuptitrace::installForkGuard(false);
  cuptitrace::installSignalHandlers(writeTrace);
  cuptitrace::redirectExitCalls();
  if (journal != nullptr) cuptitrace::noteJournal(journal);
}
