// A stand-in for the tracer, built from its real lifecycle code
// (injection/signals.cpp, signal_view.cpp, redirected_calls.cpp,
// exec_calls.cpp, got_patch.cpp): loaded privately, as the CUDA driver loads
// the tracer, it installs the handlers and redirects the program's calls,
// and "writes the trace" by appending one line to a log, after a delay:
// "wrote signal 15", "wrote fault 11", "wrote exit-call _exit",
// "wrote exec execve", each with " durable" when the ending asks for the
// trace to be made durable first.
//
// endings_probe calls endings_sink_start; any other program (python3, a
// program under the cuptitrace command) loads it as CUDA_INJECTION64_PATH
// and calls InitializeInjection, which reads its settings from
//   ENDINGS_SINK_LOG       the log
//   ENDINGS_SINK_WRITE_MS  how long "writing" takes: N ms asleep, or busy:N
//                          ms of processor time
// and, for both ways in,
//   ENDINGS_SINK_STALL_MS  the stall limit of waiting threads (30 s)
//   ENDINGS_SINK_TOGGLE    a capture toggle signal, installed first
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "collectors/fork_guard.h"
#include "injection/redirected_calls.h"
#include "injection/signals.h"

#define SINK_API extern "C" __attribute__((visibility("default")))

namespace {

char gLog[512];
int gWriteMs = 0;
bool gBusy = false;
int gTogglePipe[2] = {-1, -1};
int gToggles = 0;

const char* kindName(cuptitrace::EndingKind k) {
  switch (k) {
    case cuptitrace::EndingKind::Exit: return "exit";
    case cuptitrace::EndingKind::Signal: return "signal";
    case cuptitrace::EndingKind::Fault: return "fault";
    case cuptitrace::EndingKind::ExitCall: return "exit-call";
    case cuptitrace::EndingKind::Exec: return "exec";
  }
  return "?";
}

double cpuSeconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void writeTrace(const cuptitrace::Ending& e) {
  if (gBusy) {
    const double until = cpuSeconds() + gWriteMs / 1000.0;
    while (cpuSeconds() < until) {
    }
  } else {
    ::usleep(static_cast<useconds_t>(gWriteMs) * 1000);
  }
  char line[96];
  int n;
  if (e.kind == cuptitrace::EndingKind::Signal || e.kind == cuptitrace::EndingKind::Fault)
    n = std::snprintf(line, sizeof(line), "wrote %s %d", kindName(e.kind), e.sig);
  else
    n = std::snprintf(line, sizeof(line), "wrote %s %s", kindName(e.kind), e.call != nullptr ? e.call : "-");
  n += std::snprintf(line + n, sizeof(line) - n, "%s\n", cuptitrace::writesDurableFirst(e) ? " durable" : "");
  const int fd = ::open(gLog, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)::write(fd, line, static_cast<size_t>(n));
  ::close(fd);
}

void setWriteTime(const char* text) {
  gBusy = text != nullptr && std::strncmp(text, "busy:", 5) == 0;
  gWriteMs = text != nullptr ? std::atoi(gBusy ? text + 5 : text) : 0;
}

}  // namespace

SINK_API void endings_sink_start(const char* log, const char* writeMs, const char* journal) {
  std::snprintf(gLog, sizeof(gLog), "%s", log);
  setWriteTime(writeMs);
  if (const char* stall = std::getenv("ENDINGS_SINK_STALL_MS")) cuptitrace::setStallLimitMsForTests(std::atoi(stall));
  cuptitrace::installForkGuard(false);
  // The capture toggle is installed before the other handlers, as the tracer does.
  if (const char* toggle = std::getenv("ENDINGS_SINK_TOGGLE")) {
    if (::pipe2(gTogglePipe, O_CLOEXEC | O_NONBLOCK) == 0)
      cuptitrace::installToggleSignal(std::atoi(toggle), gTogglePipe[1]);
  }
  // As the tracer's exit handler: a signal's ending under way is waited for.
  std::atexit([] { cuptitrace::waitForSignalEnding(); });
  cuptitrace::installSignalHandlers(writeTrace);
  cuptitrace::redirectProgramCalls();
  if (journal != nullptr) cuptitrace::noteJournal(journal);
}

// How many toggles came so far.
SINK_API int endings_sink_toggles() {
  char bytes[64];
  ssize_t n;
  while (gTogglePipe[0] >= 0 && (n = ::read(gTogglePipe[0], bytes, sizeof(bytes))) > 0) gToggles += static_cast<int>(n);
  return gToggles;
}

// As the CUDA driver calls the tracer.
SINK_API int InitializeInjection() {
  const char* log = std::getenv("ENDINGS_SINK_LOG");
  if (log == nullptr) return 0;
  endings_sink_start(log, std::getenv("ENDINGS_SINK_WRITE_MS"), nullptr);
  return 1;
}
