#include "injection/signals.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <thread>

#include "collectors/fork_guard.h"
#include "collectors/osrt_state.h"

namespace cuptitrace {
namespace {

// Signals whose default action ends the process politely: the program may
// be inside any call (a CUDA call holding CUPTI's locks, malloc), so the
// handler only wakes our watcher thread and returns at once. The watcher
// writes the trace, then ends the process as the signal would have.
constexpr int kPoliteSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
// Faults and abort: they belong to the program first (JVMs, Julia, Go take
// SIGSEGV on purpose). Only when the default action is about to end the
// process is a write tried, best effort, while the faulting thread waits.
constexpr int kCrashSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
// Longest wait of a crashing thread for that write. The thread that faulted
// may hold a lock the writer needs; the spill journal is the durable path.
constexpr int kCrashWriteTimeoutMs = 30000;

int gWakePipe[2] = {-1, -1};
int gDonePipe[2] = {-1, -1};
struct sigaction gPrevious[NSIG];
// Set by the first signal that hands the process to the watcher.
std::atomic<bool> gEnding{false};
SignalWriter gWriteTrace = nullptr;

bool isCrash(int sig) {
  for (int s : kCrashSignals)
    if (s == sig) return true;
  return false;
}

bool hasOwnHandler(const struct sigaction& a) {
  if (a.sa_flags & SA_SIGINFO) return a.sa_sigaction != nullptr;
  return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

void callOwnHandler(int sig, siginfo_t* info, void* context) {
  const struct sigaction& previous = gPrevious[sig];
  if (previous.sa_flags & SA_SIGINFO) previous.sa_sigaction(sig, info, context);
  else previous.sa_handler(sig);
}

// Async-signal-safe: the default action again, raised now; the signal stays
// blocked while the handler runs and takes effect as it returns (a fault sent
// by kill() would otherwise not come back).
void takeDefaultAction(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

// Async-signal-safe: one byte to the watcher. False when the pipe is gone.
bool wakeWatcher(int sig) {
  const char byte = static_cast<char>(sig);
  ssize_t n;
  do n = ::write(gWakePipe[1], &byte, 1);
  while (n < 0 && errno == EINTR);
  return n == 1;
}

void waitForWrite(int timeoutMs) {
  pollfd done{gDonePipe[0], POLLIN, 0};
  while (::poll(&done, 1, timeoutMs) < 0 && errno == EINTR) {
  }
}

void onPolite(int sig, siginfo_t* info, void* context) {
  if (hasOwnHandler(gPrevious[sig])) {  // the program decides (Python turns SIGINT into an exception)
    callOwnHandler(sig, info, context);
    return;
  }
  // A forked child shares the watcher's pipe with its parent: it ends at once.
  // So does a second polite signal while the trace is being written (a user
  // pressing Ctrl-C twice): the spill journal holds what was recorded.
  if (inForkedChild() || gEnding.exchange(true) || !wakeWatcher(sig)) takeDefaultAction(sig);
}

void onCrash(int sig, siginfo_t* info, void* context) {
  if (hasOwnHandler(gPrevious[sig])) {  // never ahead of the program's own handler
    callOwnHandler(sig, info, context);
    return;
  }
  if (!inForkedChild()) {
    // The first end writes; a crash while a polite signal's write is under
    // way waits for that one.
    if (!gEnding.exchange(true)) wakeWatcher(sig);
    waitForWrite(kCrashWriteTimeoutMs);
  }
  takeDefaultAction(sig);
}

void onSignal(int sig, siginfo_t* info, void* context) {
  const int savedErrno = errno;
  if (isCrash(sig)) onCrash(sig, info, context);
  else onPolite(sig, info, context);
  errno = savedErrno;
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
  const int sig = static_cast<unsigned char>(byte);
  if (gWriteTrace != nullptr) gWriteTrace(sig);
  const char done = 1;
  (void)::write(gDonePipe[1], &done, 1);
  if (isCrash(sig)) return;  // the crashing thread takes the default action
  // End as the signal would have: its default action, delivered to this
  // thread, ends the whole process with the signal's status.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  ::raise(sig);
  // Stopped, or the signal ignored meanwhile: the process goes on.
}

// An alternate stack for the thread that starts tracing (often the main
// thread), so that a stack overflow there still reaches the handler.
void giveThisThreadAnAltStack() {
  stack_t current{};
  if (::sigaltstack(nullptr, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return;
  constexpr size_t kAltStackBytes = 64 * 1024;
  void* memory = std::malloc(kAltStackBytes);  // lives as long as the thread: never freed
  if (memory == nullptr) return;
  stack_t alt{};
  alt.ss_sp = memory;
  alt.ss_size = kAltStackBytes;
  if (::sigaltstack(&alt, nullptr) != 0) std::free(memory);
}

void install(int sig) {
  struct sigaction previous {};
  if (::sigaction(sig, nullptr, &previous) != 0) return;
  if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN) return;  // ignored: keep it so
  gPrevious[sig] = previous;
  struct sigaction ours {};
  ours.sa_sigaction = onSignal;
  ours.sa_flags = SA_SIGINFO | SA_RESTART | (isCrash(sig) ? SA_ONSTACK : (previous.sa_flags & SA_ONSTACK));
  // The program's own handler runs with the mask it asked for.
  ours.sa_mask = previous.sa_mask;
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
  if (hasOwnHandler(gPrevious[sig])) callOwnHandler(sig, info, context);
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

void installSignalHandlers(SignalWriter writeTrace) {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  if (::pipe2(gWakePipe, O_CLOEXEC) != 0 || ::pipe2(gDonePipe, O_CLOEXEC) != 0) return;
  gWriteTrace = writeTrace;
  try {
    std::thread(watch).detach();
  } catch (...) {
    return;  // no watcher, no handlers: signals take their course untouched
  }
  giveThisThreadAnAltStack();
  for (int s : kPoliteSignals) install(s);
  for (int s : kCrashSignals) install(s);
}

}  // namespace cuptitrace
