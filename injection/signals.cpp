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

// Signals sent to the process whose default action ends it: the program may
// be inside any call (a CUDA call holding CUPTI's locks, malloc), so the
// handler only wakes our watcher thread and returns at once. The watcher
// writes the trace, then ends the process as the signal would have. The
// real-time signals SIGRTMIN..SIGRTMAX are of them too (installEnding).
constexpr int kSentSignals[] = {SIGINT,    SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
                                SIGVTALRM, SIGPROF, SIGXCPU, SIGIO,   SIGPWR,  SIGSTKFLT};
// Signals tied to the call that raised them: a write to a broken pipe, a
// write past the file size limit. Returning would let that thread go on
// with EPIPE or EFBIG, where untraced it is gone: it waits for the write.
constexpr int kCallSignals[] = {SIGPIPE, SIGXFSZ};
// Faults and abort: they belong to the program first (JVMs, Julia, Go take
// SIGSEGV on purpose). Only when the default action is about to end the
// process is a write tried, best effort, while the faulting thread waits.
constexpr int kFaultSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
// The least processor time the writer uses in a stall limit to be working.
constexpr int64_t kProgressNs = 5'000'000;

int gWakePipe[2] = {-1, -1};
int gDonePipe[2] = {-1, -1};
pid_t gTracedPid = 0;  // the traced process; a forked or vforked child has another pid
struct sigaction gFaultPrevious[NSIG];
// A one-shot handler of the program's for a fault (SA_RESETHAND) has run:
// the default action is the signal's disposition now.
std::atomic<bool> gOneShotSpent[NSIG];
// CLOCK_MONOTONIC time of the first ending handed to the watcher, 0 before.
std::atomic<int64_t> gFirstEndNs{0};
Ending gEnding;  // that ending: written before the watcher is woken
std::atomic<int> gWatcherEndsWith{0};  // its signal when the watcher ends the process
std::atomic<bool> gInstalled{false};
EndingWriter gWriteTrace = nullptr;
// The watcher's processor time, read by the threads that wait for its write.
clockid_t gWatcherClock;
std::atomic<bool> gWatcherClockSet{false};
int gStallLimitMs = kStallLimitMs;

template <size_t N>
bool among(const int (&list)[N], int sig) {
  for (int s : list)
    if (s == sig) return true;
  return false;
}
bool isFault(int sig) { return among(kFaultSignals, sig); }
bool isTiedToCall(int sig) { return among(kCallSignals, sig); }

int64_t nsOf(clockid_t clock) {
  timespec t{};
  if (::clock_gettime(clock, &t) != 0) return -1;
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}
int64_t monotonicNs() { return nsOf(CLOCK_MONOTONIC); }

// Not the traced process itself: a child of fork() or vfork() before exec.
bool notTheTracedProcess() { return inForkedChild() || ::getpid() != gTracedPid; }

void callHandler(const struct sigaction& a, int sig, siginfo_t* info, void* context) {
  if (a.sa_flags & SA_SIGINFO) a.sa_sigaction(sig, info, context);
  else a.sa_handler(sig);
}

bool ignoredBy(const struct sigaction& a) { return !(a.sa_flags & SA_SIGINFO) && a.sa_handler == SIG_IGN; }

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

// Async-signal-safe: wakes the watcher. False when the pipe is gone.
bool wakeWatcher() {
  const char byte = 1;
  ssize_t n;
  do n = ::write(gWakePipe[1], &byte, 1);
  while (n < 0 && errno == EINTR);
  return n == 1;
}

// Async-signal-safe: true when this call began the ending (and must wake
// the watcher); false when another one is under way.
bool beginEnding(const Ending& e) {
  int64_t expected = 0;
  if (!gFirstEndNs.compare_exchange_strong(expected, monotonicNs())) return false;
  gEnding = e;
  if (e.kind == EndingKind::Signal) gWatcherEndsWith.store(e.sig);
  return true;
}

bool writeDone(int timeoutMs) {
  pollfd done{gDonePipe[0], POLLIN, 0};
  int n;
  while ((n = ::poll(&done, 1, timeoutMs)) < 0 && errno == EINTR) {
  }
  return n > 0;
}

// True when the write is done. Waits as long as the watcher works: false
// once it used less than kProgressNs of processor time in a stall limit (a
// lock this thread holds, a disk that no longer answers).
bool waitForWrite() {
  int64_t before = gWatcherClockSet.load(std::memory_order_acquire) ? nsOf(gWatcherClock) : -1;
  while (true) {
    if (writeDone(gStallLimitMs)) return true;
    const int64_t now = gWatcherClockSet.load(std::memory_order_acquire) ? nsOf(gWatcherClock) : -1;
    if (before < 0 || now < 0 || now - before < kProgressNs) return false;
    before = now;
  }
}

// A signal sent by a process (kill, a terminal, a launcher), not one the
// kernel or a timer repeats on its own.
bool sentByProcess(const siginfo_t* info) {
  return info != nullptr && (info->si_code == SI_USER || info->si_code == SI_TKILL || info->si_code == SI_QUEUE);
}

// A signal tied to the call this thread made: the thread must not go on.
void endOnThisThread(int sig) {
  // The tracer's own write (a broken stderr, an output past the limit) fails instead.
  if (ownThreadName(currentThreadId()) != nullptr) return;
  if (beginEnding(Ending{EndingKind::Fault, sig, nullptr}) && !wakeWatcher()) return takeDefaultAction(sig);
  if (!waitForWrite()) signal_text::sayNotWritten(signal_text::signalName(sig), gStallLimitMs);
  takeDefaultAction(sig);
}

// A signal of the first two families (signals.h).
void onEndingSignal(int sig, siginfo_t* info, void* context) {
  const struct sigaction program = signal_view::current(sig);
  if (signal_view::hasOwnHandler(program)) {  // the program decides (Python turns SIGINT into an exception)
    signal_view::resetIfOneShot(sig);
    callHandler(program, sig, info, context);
    return;
  }
  if (ignoredBy(program)) return;
  // A forked child shares the watcher's pipe with its parent: it ends at once.
  if (notTheTracedProcess()) return takeDefaultAction(sig);
  if (isTiedToCall(sig)) return endOnThisThread(sig);
  if (beginEnding(Ending{EndingKind::Signal, sig, nullptr})) {
    if (!wakeWatcher()) takeDefaultAction(sig);
    return;
  }
  // The trace is written already (an exec failed after it): as untraced.
  if (writeDone(0)) return takeDefaultAction(sig);
  // The same ending again (the process group, a launcher forwarding it, the
  // kernel's SIGXCPU each second): the write under way goes on.
  if (monotonicNs() - gFirstEndNs.load() < kRepeatWindowNs || !sentByProcess(info)) return;
  // Seconds later: the user means it.
  signal_text::sayCutShort(sig);
  takeDefaultAction(sig);
}

void onFault(int sig, siginfo_t* info, void* context) {
  const char* own = ownThreadName(currentThreadId());
  if (own != nullptr && !notTheTracedProcess()) signal_text::sayOwnFault(sig, info, own);
  const struct sigaction& previous = gFaultPrevious[sig];
  // Never ahead of the program's own handler; a one-shot one runs once, as
  // the kernel would have reset it, and a fault again takes the default.
  const bool oneShotSpent = (previous.sa_flags & SA_RESETHAND) != 0 && gOneShotSpent[sig].exchange(true);
  if (signal_view::hasOwnHandler(previous) && !oneShotSpent) {
    callHandler(previous, sig, info, context);
    return;
  }
  if (sig != SIGABRT) signal_text::sayWhere(sig, info);
  // On the tracer's own threads no write can finish: the fault is said, and
  // the process ends as it would untraced.
  if (own == nullptr && !notTheTracedProcess()) {
    // The first end writes; a fault while another ending's write is under
    // way waits for that one.
    if (beginEnding(Ending{EndingKind::Fault, sig, nullptr})) wakeWatcher();
    if (!waitForWrite()) signal_text::sayNotWritten(signal_text::signalName(sig), gStallLimitMs);
  }
  takeDefaultAction(sig);
}

void onSignal(int sig, siginfo_t* info, void* context) {
  const int savedErrno = errno;
  if (isFault(sig)) onFault(sig, info, context);
  else onEndingSignal(sig, info, context);
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
  const Ending ending = gEnding;
  if (gWriteTrace != nullptr) gWriteTrace(ending);
  const char done = 1;
  (void)::write(gDonePipe[1], &done, 1);
  // A fault, an exit call or exec: the thread that waits ends the process.
  if (ending.kind != EndingKind::Signal) return;
  // End as the signal would have: its default action, delivered to this
  // thread, ends the whole process with the signal's status (and its core).
  const int sig = ending.sig;
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
// signal that ends the process: the program's mask and flags, so that its
// calls are interrupted (or restarted) as they would be untraced. CPython
// installs its SIGINT handler without SA_RESTART on purpose: Ctrl-C must
// interrupt a blocking queue.get() or input(). With the default action, the
// program would not see the signal at all: its calls are restarted.
struct sigaction endingAction(int, const struct sigaction& program) {
  struct sigaction ours {};
  ours.sa_sigaction = onSignal;
  ours.sa_mask = program.sa_mask;
  ours.sa_flags = SA_SIGINFO;
  if (signal_view::hasOwnHandler(program)) ours.sa_flags |= program.sa_flags & (SA_RESTART | SA_NODEFER | SA_ONSTACK);
  else ours.sa_flags |= SA_RESTART | (program.sa_flags & SA_ONSTACK);
  return ours;
}

void installEnding(int sig) {
  // The capture toggle's, or the program's from the start: left as they are.
  if (signal_view::tracked(sig)) return;
  struct sigaction previous {};
  if (::sigaction(sig, nullptr, &previous) != 0) return;
  // Ignored (nohup, a shell's background job, CPython's SIGPIPE): kept so,
  // but followed, so that a handler the program installs later is ours too.
  if (!ignoredBy(previous)) {
    const struct sigaction ours = endingAction(sig, previous);
    if (::sigaction(sig, &ours, nullptr) != 0) return;
  }
  signal_view::track(sig, previous, endingAction);
}

void installFault(int sig) {
  struct sigaction previous {};
  if (::sigaction(sig, nullptr, &previous) != 0) return;
  if (ignoredBy(previous)) return;  // ignored: keep it so
  gFaultPrevious[sig] = previous;
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
    signal_view::resetIfOneShot(sig);
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
  if (gTracedPid == 0) gTracedPid = ::getpid();
  signal_view::track(sig, previous, toggleAction);
  return true;
}

void installSignalHandlers(EndingWriter writeTrace) {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  if (::pipe2(gWakePipe, O_CLOEXEC) != 0 || ::pipe2(gDonePipe, O_CLOEXEC) != 0) return;
  gWriteTrace = writeTrace;
  gTracedPid = ::getpid();
  try {
    std::thread watcher(watch);
    // Known before the watcher first runs: an _exit right after the start
    // judges its progress too.
    if (::pthread_getcpuclockid(watcher.native_handle(), &gWatcherClock) == 0)
      gWatcherClockSet.store(true, std::memory_order_release);
    watcher.detach();
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
  signal_text::prepareNames();
  for (int s : kSentSignals) installEnding(s);
  // Those the C library keeps for itself lie below SIGRTMIN: never touched.
  for (int s = SIGRTMIN; s <= SIGRTMAX; ++s) installEnding(s);
  for (int s : kCallSignals) installEnding(s);
  for (int s : kFaultSignals) installFault(s);
  gInstalled.store(true, std::memory_order_release);
}

bool tracesThisProcess() { return gInstalled.load(std::memory_order_acquire) && !notTheTracedProcess(); }

bool writeBeforeEnding(EndingKind kind, const char* call) {
  if (!tracesThisProcess()) return false;
  // On the watcher (or while this thread writes the trace) there is nothing to wait for.
  if (ownThreadName(currentThreadId()) != nullptr) return false;
  if (beginEnding(Ending{kind, 0, call}) && !wakeWatcher()) return false;
  if (waitForWrite()) return true;
  signal_text::sayNotWritten(call, gStallLimitMs);
  return false;
}

bool waitForSignalEnding() {
  if (!gInstalled.load(std::memory_order_acquire) || gWatcherEndsWith.load() == 0) return false;
  if (ownThreadName(currentThreadId()) != nullptr) return false;
  waitForWrite();
  // The watcher raises the signal once the write is done: it ends the process.
  for (int i = 0; i < 100; ++i) ::usleep(50'000);
  return true;
}

void noteJournal(const char* path) { signal_text::setJournal(path); }
void noteJournalSealed() { signal_text::setJournalSealed(); }
void setStallLimitMsForTests(int ms) { gStallLimitMs = ms; }

}  // namespace cuptitrace
