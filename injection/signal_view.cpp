#include "injection/signal_view.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "collectors/fork_guard.h"

// sigset() and siginterrupt() are obsolescent, and still called.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace cuptitrace::signal_view {
namespace {

// Each signal's disposition is written to the next of a few slots, then
// published by index: a handler reading it on another thread never sees a
// half-written one (unless the program changes it kSlots times meanwhile).
// No lock: sigaction() may itself be called from a signal handler.
constexpr unsigned kSlots = 8;
struct View {
  std::atomic<bool> tracked{false};
  std::atomic<Installer> installer{nullptr};
  std::atomic<unsigned> published{0};
  struct sigaction slots[kSlots];
};
View gViews[NSIG];
// The process whose handlers these are. A child made by vfork() shares its
// memory with it, and its calls must not change the parent's view; a child
// made by fork() has a copy of its own (inForkedChild()).
std::atomic<pid_t> gViewOwnerPid{0};

bool validTracked(int sig) { return sig > 0 && sig < NSIG && gViews[sig].tracked.load(std::memory_order_acquire); }

void publish(int sig, const struct sigaction& a) {
  View& v = gViews[sig];
  const unsigned next = v.published.load(std::memory_order_relaxed) + 1;
  v.slots[next % kSlots] = a;
  v.published.store(next, std::memory_order_release);
}

bool ignoredBy(const struct sigaction& a) { return !(a.sa_flags & SA_SIGINFO) && a.sa_handler == SIG_IGN; }

bool sharesParentMemory() { return !inForkedChild() && ::getpid() != gViewOwnerPid.load(std::memory_order_relaxed); }

// The program's calls for `sig` go to the kernel untouched.
bool passesThrough(int sig) { return !validTracked(sig) || sharesParentMemory(); }

sighandler_t asSignalHandler(const struct sigaction& a) {
  if (!(a.sa_flags & SA_SIGINFO)) return a.sa_handler;
  sighandler_t handler;  // the same address, seen as the other kind of handler
  static_assert(sizeof(handler) == sizeof(a.sa_sigaction));
  std::memcpy(&handler, &a.sa_sigaction, sizeof(handler));
  return handler;
}

}  // namespace

void track(int sig, const struct sigaction& program, Installer installer) {
  if (sig <= 0 || sig >= NSIG || validTracked(sig)) return;
  gViews[sig].installer.store(installer, std::memory_order_release);
  gViewOwnerPid.store(::getpid(), std::memory_order_relaxed);
  publish(sig, program);
  gViews[sig].tracked.store(true, std::memory_order_release);
}

bool tracked(int sig) { return validTracked(sig); }

struct sigaction current(int sig) {
  const View& v = gViews[sig];
  return v.slots[v.published.load(std::memory_order_acquire) % kSlots];
}

bool hasOwnHandler(const struct sigaction& a) {
  if (a.sa_flags & SA_SIGINFO) return a.sa_sigaction != nullptr;
  return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

void resetIfOneShot(int sig) {
  struct sigaction a = current(sig);
  if (!(a.sa_flags & SA_RESETHAND)) return;
  a.sa_flags &= ~(SA_RESETHAND | SA_SIGINFO);
  a.sa_handler = SIG_DFL;
  publish(sig, a);
}

int programSigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (passesThrough(sig)) return ::sigaction(sig, act, old);
  const Installer installer = gViews[sig].installer.load(std::memory_order_acquire);
  const struct sigaction previous = current(sig);
  if (act != nullptr) {
    if (ignoredBy(*act)) {
      if (::sigaction(sig, act, nullptr) != 0) return -1;
    } else {
      const struct sigaction ours = installer(sig, *act);
      if (::sigaction(sig, &ours, nullptr) != 0) return -1;
    }
    publish(sig, *act);
  }
  if (old != nullptr) *old = previous;
  return 0;
}

namespace {

sighandler_t installFromSignalCall(int sig, sighandler_t handler, bool sysv) {
  struct sigaction act {};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (sysv) {
    // System V: the handler runs once, the signal not blocked meanwhile.
    act.sa_flags = SA_RESETHAND | SA_NODEFER;
  } else {
    // glibc's signal(): BSD semantics, restarted calls, the signal blocked in its handler.
    sigaddset(&act.sa_mask, sig);
    act.sa_flags = SA_RESTART;
  }
  struct sigaction old {};
  if (programSigaction(sig, &act, &old) != 0) return SIG_ERR;
  return asSignalHandler(old);
}

}  // namespace

sighandler_t programSignal(int sig, sighandler_t handler) {
  if (passesThrough(sig)) return ::signal(sig, handler);
  return installFromSignalCall(sig, handler, false);
}

sighandler_t programSysvSignal(int sig, sighandler_t handler) {
  if (passesThrough(sig)) return ::sysv_signal(sig, handler);
  return installFromSignalCall(sig, handler, true);
}

// System V's sigset(): SIG_HOLD adds the signal to the thread's mask and
// leaves the disposition; anything else sets it (no flags, an empty mask)
// and takes the signal out of the mask. Answers SIG_HOLD when it was held.
sighandler_t programSigset(int sig, sighandler_t disposition) {
  if (passesThrough(sig)) return ::sigset(sig, disposition);
  sigset_t one, before;
  sigemptyset(&one);
  sigaddset(&one, sig);
  if (disposition == SIG_HOLD) {
    if (::pthread_sigmask(SIG_BLOCK, &one, &before) != 0) return SIG_ERR;
    return sigismember(&before, sig) ? SIG_HOLD : asSignalHandler(current(sig));
  }
  struct sigaction act {};
  act.sa_handler = disposition;
  sigemptyset(&act.sa_mask);
  struct sigaction old {};
  if (programSigaction(sig, &act, &old) != 0) return SIG_ERR;
  if (::pthread_sigmask(SIG_UNBLOCK, &one, &before) != 0) return SIG_ERR;
  return sigismember(&before, sig) ? SIG_HOLD : asSignalHandler(old);
}

// siginterrupt(): whether the signal's handler interrupts blocking calls
// (no SA_RESTART) or not, the disposition otherwise kept.
int programSiginterrupt(int sig, int interrupt) {
  if (passesThrough(sig)) return ::siginterrupt(sig, interrupt);
  struct sigaction a = current(sig);
  if (interrupt) a.sa_flags &= ~SA_RESTART;
  else a.sa_flags |= SA_RESTART;
  return programSigaction(sig, &a, nullptr);
}

}  // namespace cuptitrace::signal_view
