#include "injection/signals.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>

#include "collectors/fork_guard.h"
#include "collectors/osrt_state.h"

namespace cuptitrace {
namespace {

// Signals whose default action ends the process. For the first four a handler
// of the program's own means it decides (Python turns SIGINT into an exception
// and may go on): we only write first when the default action would apply.
// Crash signals end the process whatever the handler does next: write first.
constexpr int kPoliteSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr int kCrashSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
// Longest wait inside the handler: the interrupted thread may hold a lock the
// writer needs (inside CUPTI or malloc); past this the signal goes on regardless.
constexpr int kWriteTimeoutMs = 10000;

int gWakePipe[2] = {-1, -1};
int gDonePipe[2] = {-1, -1};
struct sigaction gPrevious[NSIG];
std::atomic<bool> gWriting{false};
std::function<void()>* gWriteTrace = nullptr;

bool isCrash(int sig) {
  for (int s : kCrashSignals)
    if (s == sig) return true;
  return false;
}

bool hasOwnHandler(const struct sigaction& a) {
  if (a.sa_flags & SA_SIGINFO) return a.sa_sigaction != nullptr;
  return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

// Async-signal-safe: wakes the watcher and waits (bounded) for it to finish.
void writeTraceFromHandler(int sig) {
  bool expected = false;
  if (!gWriting.compare_exchange_strong(expected, true)) return;  // one write per process
  const char byte = static_cast<char>(sig);
  if (::write(gWakePipe[1], &byte, 1) != 1) return;
  pollfd done{gDonePipe[0], POLLIN, 0};
  while (::poll(&done, 1, kWriteTimeoutMs) < 0 && errno == EINTR) {
  }
}

void onSignal(int sig, siginfo_t* info, void* context) {
  const int savedErrno = errno;
  const struct sigaction& previous = gPrevious[sig];
  // A forked child shares the watcher's pipe with its parent: writing to it
  // would have the parent write its trace.
  if (!inForkedChild() && (isCrash(sig) || !hasOwnHandler(previous))) writeTraceFromHandler(sig);
  errno = savedErrno;
  if (hasOwnHandler(previous)) {
    if (previous.sa_flags & SA_SIGINFO) previous.sa_sigaction(sig, info, context);
    else previous.sa_handler(sig);
    return;
  }
  // The default action: put it back and raise the signal again; it stays
  // blocked while this handler runs and takes effect as the handler returns
  // (a fault sent by kill() would otherwise not come back).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

void watch() {
  osrt::markTracerThread();  // its waits are the tracer's, not the program's
  // Signals go to the program's threads, never this one.
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
  char byte = 0;
  while (true) {
    const ssize_t n = ::read(gWakePipe[0], &byte, 1);
    if (n == 1) break;
    if (n < 0 && errno == EINTR) continue;
    return;
  }
  if (gWriteTrace != nullptr) (*gWriteTrace)();
  const char done = 1;
  (void)::write(gDonePipe[1], &done, 1);
}

void install(int sig) {
  struct sigaction previous {};
  if (::sigaction(sig, nullptr, &previous) != 0) return;
  if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN) return;  // ignored: keep it so
  gPrevious[sig] = previous;
  struct sigaction ours {};
  ours.sa_sigaction = onSignal;
  ours.sa_flags = SA_SIGINFO | SA_RESTART | (previous.sa_flags & SA_ONSTACK);
  sigemptyset(&ours.sa_mask);
  ::sigaction(sig, &ours, nullptr);
}

int gToggleFd = -1;
int gToggleSignal = 0;

// Async-signal-safe: one byte to the capture thread, then the program's own handler.
void onToggle(int sig, siginfo_t* info, void* context) {
  const int savedErrno = errno;
  if (!inForkedChild() && gToggleFd >= 0) {
    const char byte = 'S';
    (void)::write(gToggleFd, &byte, 1);
  }
  errno = savedErrno;
  const struct sigaction& previous = gPrevious[sig];
  if (!hasOwnHandler(previous)) return;
  if (previous.sa_flags & SA_SIGINFO) previous.sa_sigaction(sig, info, context);
  else previous.sa_handler(sig);
}

}  // namespace

bool installToggleSignal(int sig, int fd) {
  if (sig <= 0 || sig >= NSIG || fd < 0 || gToggleSignal != 0) return false;
  struct sigaction previous {};
  if (::sigaction(sig, nullptr, &previous) != 0) return false;
  gPrevious[sig] = previous;
  gToggleFd = fd;
  gToggleSignal = sig;
  struct sigaction ours {};
  ours.sa_sigaction = onToggle;
  ours.sa_flags = SA_SIGINFO | SA_RESTART | (previous.sa_flags & SA_ONSTACK);
  sigemptyset(&ours.sa_mask);
  return ::sigaction(sig, &ours, nullptr) == 0;
}

void installSignalHandlers(std::function<void()> writeTrace) {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  if (::pipe2(gWakePipe, O_CLOEXEC) != 0 || ::pipe2(gDonePipe, O_CLOEXEC) != 0) return;
  gWriteTrace = new std::function<void()>(std::move(writeTrace));  // lives as long as the process
  std::thread(watch).detach();
  for (int s : kPoliteSignals) install(s);
  for (int s : kCrashSignals) install(s);
}

}  // namespace cuptitrace
