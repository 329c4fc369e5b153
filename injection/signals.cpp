#include "injection/signals.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "collectors/fork_guard.h"
#include "collectors/osrt_state.h"
#include "core/own_threads.h"
#include "injection/signal_text.h"
#include "injection/signal_view.h"

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
// Longest wait of a crashing thread, or of a thread calling _exit(), for
// the write. Such a thread may hold a lock the writer needs; the spill
// journal is the durable path. Slurm and Kubernetes allow 30 s after SIGTERM.
constexpr int kWriteTimeoutMs = 30000;
// The watcher's byte for an exit call (signals are 1..NSIG-1).
constexpr char kExitCall = 0;

int gWakePipe[2] = {-1, -1};
int gDonePipe[2] = {-1, -1};
pid_t gOwner = 0;  // the traced process; a forked or vforked child has another pid
struct sigaction gCrashPrevious[NSIG];
// CLOCK_MONOTONIC time of the first ending handed to the watcher, 0 before.
std::atomic<int64_t> gFirstEndNs{0};
std::atomic<int> gEndingSignal{0};  // its signal; 0 for an exit call or a crash
std::atomic<bool> gInstalled{false};
SignalWriter gWriteTrace = nullptr;

bool isCrash(int sig) {
  for (int s : kCrashSignals)
    if (s == sig) return true;
  return false;
}

int64_t monotonicNs() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// Not the traced process itself: a child of fork() or vfork() before exec.
bool notTheTracedProcess() { return inForkedChild() || ::getpid() != gOwner; }

void callHandler(const struct sigaction& a, int sig, siginfo_t* info, void* context) {
  if (a.sa_flags & SA_SIGINFO) a.sa_sigaction(sig, info, context);
  else a.sa_handler(sig);
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
bool wakeWatcher(char byte) {
  ssize_t n;
  do n = ::write(gWakePipe[1], &byte, 1);
  while (n < 0 && errno == EINTR);
  return n == 1;
}

// Async-signal-safe: true when this call began the ending (woke the watcher).
bool beginEnding(int sig) {
  int64_t expected = 0;
  if (!gFirstEndNs.compare_exchange_strong(expected, monotonicNs())) return false;
  gEndingSignal.store(isCrash(sig) ? 0 : sig);
  return true;
}

// True when the write is done; false when `timeoutMs` passed first.
bool waitForWrite(int timeoutMs) {
  pollfd done{gDonePipe[0], POLLIN, 0};
  int n;
  while ((n = ::poll(&done, 1, timeoutMs)) < 0 && errno == EINTR) {
  }
  return n > 0;
}

void onPolite(int sig, siginfo_t* info, void* context) {
  const struct sigaction program = signal_view::current(sig);
  if (signal_view::hasOwnHandler(program)) {  // the program decides (Python turns SIGINT into an exception)
    signal_view::handlerRuns(sig);
    callHandler(program, sig, info, context);
    return;
  }
  if (!(program.sa_flags & SA_SIGINFO) && program.sa_handler == SIG_IGN) return;
  // A forked child shares the watcher's pipe with its parent: it ends at once.
  if (notTheTracedProcess()) {
    takeDefaultAction(sig);
    return;
  }
  if (beginEnding(sig)) {
    if (!wakeWatcher(static_cast<char>(sig))) takeDefaultAction(sig);
    return;
  }
  // The same ending again (the process group, a launcher forwarding it): the
  // write under way goes on.
  if (monotonicNs() - gFirstEndNs.load() < kRepeatWindowNs) return;
  // Seconds later: the user means it.
  signal_text::sayCutShort(sig);
  takeDefaultAction(sig);
}

void onCrash(int sig, siginfo_t* info, void* context) {
  const char* own = ownThreadName(currentThreadId());
  if (own != nullptr && !notTheTracedProcess()) signal_text::sayOwnFault(sig, info, own);
  const struct sigaction& previous = gCrashPrevious[sig];
  if (signal_view::hasOwnHandler(previous)) {  // never ahead of the program's own handler
    callHandler(previous, sig, info, context);
    return;
  }
  if (sig != SIGABRT) signal_text::sayWhere(sig, info);
  // On the tracer's own threads no write can finish: the fault is said, and
  // the process ends as it would untraced.
  if (own == nullptr && !notTheTracedProcess()) {
    // The first end writes; a crash while another ending's write is under
    // way waits for that one.
    if (beginEnding(sig)) wakeWatcher(static_cast<char>(sig));
    if (!waitForWrite(kWriteTimeoutMs)) signal_text::sayNotWritten(signal_text::signalName(sig), kWriteTimeoutMs);
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
  registerOwnThread("signal watcher");
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
  // A crashing thread, or one calling _exit(), ends the process itself.
  if (sig == kExitCall || isCrash(sig)) return;
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

// Our handler in the kernel for the program's disposition `program` of a
// polite signal: the program's mask and flags, so that its calls are
// interrupted (or restarted) as they would be untraced. CPython installs its
// SIGINT handler without SA_RESTART on purpose: Ctrl-C must interrupt a
// blocking queue.get() or input(). With the default action, the program
// would not see the signal at all: its calls are restarted.
struct sigaction politeAction(int, const struct sigaction& program) {
  struct sigaction ours {};
  ours.sa_sigaction = onSignal;
  ours.sa_mask = program.sa_mask;
  ours.sa_flags = SA_SIGINFO;
  if (signal_view::hasOwnHandler(program)) ours.sa_flags |= program.sa_flags & (SA_RESTART | SA_NODEFER | SA_ONSTACK);
  else ours.sa_flags |= SA_RESTART | (program.sa_flags & SA_ONSTACK);
  return ours;
}

void installPolite(int sig) {
  struct sigaction previous {};
  if (::sigaction(sig, nullptr, &previous) != 0) return;
  // Ignored (nohup, a shell's background job): kept so, but followed, so
  // that a handler the program installs later is ours too.
  const bool ignored = !(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN;
  if (!ignored) {
    const struct sigaction ours = politeAction(sig, previous);
    if (::sigaction(sig, &ours, nullptr) != 0) return;
  }
  signal_view::track(sig, previous, politeAction);
}

void installCrash(int sig) {
  struct sigaction previous {};
  if (::sigaction(sig, nullptr, &previous) != 0) return;
  if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN) return;  // ignored: keep it so
  gCrashPrevious[sig] = previous;
  struct sigaction ours {};
  ours.sa_sigaction = onSignal;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK | (previous.sa_flags & (SA_RESTART | SA_NODEFER));
  // The program's own handler runs with the mask it asked for.
  ours.sa_mask = previous.sa_mask;
  ::sigaction(sig, &ours, nullptr);
}

int gToggleFd = -1;
int gToggleSignal = 0;

// Async-signal-safe: one byte to the capture thread, then the program's own handler.
void onToggle(int sig, siginfo_t* info, void* context) {
  const int savedErrno = errno;
  if (!notTheTracedProcess() && gToggleFd >= 0) {
    const char byte = 'S';
    (void)::write(gToggleFd, &byte, 1);
  }
  errno = savedErrno;
  const struct sigaction program = signal_view::current(sig);
  if (signal_view::hasOwnHandler(program)) {
    signal_view::handlerRuns(sig);
    callHandler(program, sig, info, context);
  }
}

struct sigaction toggleAction(int, const struct sigaction& program) {
  struct sigaction ours {};
  ours.sa_sigaction = onToggle;
  ours.sa_flags = SA_SIGINFO | SA_RESTART | (program.sa_flags & (SA_ONSTACK | SA_NODEFER));
  if (signal_view::hasOwnHandler(program)) ours.sa_flags = SA_SIGINFO | (program.sa_flags & (SA_RESTART | SA_NODEFER | SA_ONSTACK));
  ours.sa_mask = program.sa_mask;
  return ours;
}

}  // namespace

bool installToggleSignal(int sig, int fd) {
  if (sig <= 0 || sig >= NSIG || fd < 0 || gToggleSignal != 0) return false;
  struct sigaction previous {};
  if (::sigaction(sig, nullptr, &previous) != 0) return false;
  gToggleFd = fd;
  gToggleSignal = sig;
  // A toggle that also means "end" would end the program: the signal is ours now.
  const struct sigaction ours = toggleAction(sig, previous);
  if (::sigaction(sig, &ours, nullptr) != 0) return false;
  if (gOwner == 0) gOwner = ::getpid();
  signal_view::track(sig, previous, toggleAction);
  return true;
}

void installSignalHandlers(SignalWriter writeTrace) {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  if (::pipe2(gWakePipe, O_CLOEXEC) != 0 || ::pipe2(gDonePipe, O_CLOEXEC) != 0) return;
  gWriteTrace = writeTrace;
  gOwner = ::getpid();
  try {
    std::thread(watch).detach();
  } catch (...) {
    // No watcher, no handlers: signals take their course untouched.
    static const char kLine[] =
        "cuptitrace: no thread could be started to answer signals: a signal, _exit() or exec ends the process "
        "without a trace (CUPTITRACE_SPILL=always keeps a journal)\n";
    (void)::write(2, kLine, sizeof(kLine) - 1);
    return;
  }
  giveThisThreadAnAltStack();
  signal_text::prepareWhere();
  for (int s : kPoliteSignals) installPolite(s);
  for (int s : kCrashSignals) installCrash(s);
  gInstalled.store(true, std::memory_order_release);
}

void writeBeforeExitCall(const char* call) {
  if (!gInstalled.load(std::memory_order_acquire) || notTheTracedProcess()) return;
  // On the watcher (or while this thread writes the trace) there is nothing to wait for.
  if (ownThreadName(currentThreadId()) != nullptr) return;
  if (beginEnding(0) && !wakeWatcher(kExitCall)) return;
  if (!waitForWrite(kWriteTimeoutMs)) signal_text::sayNotWritten(call, kWriteTimeoutMs);
}

bool waitForSignalEnding() {
  if (!gInstalled.load(std::memory_order_acquire) || gEndingSignal.load() == 0) return false;
  if (ownThreadName(currentThreadId()) != nullptr) return false;
  waitForWrite(kWriteTimeoutMs);
  // The watcher raises the signal once the write is done: it ends the process.
  for (int i = 0; i < 100; ++i) ::usleep(50'000);
  return true;
}

void noteJournal(const char* path) { signal_text::setJournal(path); }
void noteJournalSealed() { signal_text::setJournalSealed(); }

}  // namespace cuptitrace
