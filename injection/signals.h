// Ends by signal, and by the calls that end a process with no exit handler.
//
// Polite signals (TERM, INT, HUP, QUIT) whose disposition, as the program
// sees it, is the default: the handler only wakes a watcher thread of ours
// and returns at once, so the thread it interrupted (inside a CUDA call,
// holding locks) goes on. The watcher writes the trace, the spill journal
// first, then ends the process as the signal would have: the exit status is
// the signal's. Real senders signal a whole process group, and launchers
// forward what they get: the same ending often arrives twice or more,
// microseconds apart. A polite signal within kRepeatWindowNs of the first is
// that same ending and is ignored; one later means it (a user pressing
// Ctrl-C again): one line says what was kept, then the process ends at once.
//
// The tracer's handler stays installed for these signals: the program's
// later sigaction() and signal() calls for them change only what it sees and
// what runs on its behalf (injection/signal_view.h). A handler of its own
// runs as it would untraced (CPython turns SIGINT into KeyboardInterrupt);
// when it later sets SIG_DFL and raises the signal again, the trace is
// written then.
//
// Faults and abort (SEGV, BUS, FPE, ILL, ABRT): a handler the program
// installed runs first. With the default action, the faulting thread wakes
// the watcher and waits (bounded) for a best-effort write before the default
// action ends the process. A fault on one of the tracer's own threads (or on
// the thread writing the trace) says so at once and ends as the signal would:
// no write can finish there.
//
// _exit(), _Exit() and quick_exit() (injection/exit_calls.h): the calling
// thread hands the write to the watcher and waits for it, bounded, then ends.
//
// In a forked (or vforked) child they only take the signal's course: the
// trace is the parent's.
#pragma once

#include <cstdint>

namespace cuptitrace {

// Polite signals this close to the first one are the same ending.
constexpr int64_t kRepeatWindowNs = 2'000'000'000;

// Writes the trace on the watcher thread: `sig` is the signal that ends the
// process, or 0 for an exit call (_exit, quick_exit).
using SignalWriter = void (*)(int sig);

// Installs the handlers once, and redirects the program's sigaction() and
// signal() calls for the polite signals to the program's view.
void installSignalHandlers(SignalWriter writeTrace);

// Capture windows toggled by a signal: each delivery of `sig` writes one byte
// to `fd` (non-blocking) and nothing else; a handler the program had for it
// runs after. The signal no longer ends the program. In a forked child the
// byte is not written. False when the handler could not be installed.
bool installToggleSignal(int sig, int fd);

// An exit call (`call`: "_exit", "execve", ...) is about to end the process,
// or replace it: the watcher writes the trace while this thread waits (bounded). Nothing in a forked child, or before
// the handlers are installed. Async-signal-safe on the calling side.
void writeBeforeExitCall(const char* call);

// At exit(): true when a polite signal's ending is under way, so that the
// watcher writes and then ends the process with the signal's status; this
// waits (bounded) for that instead of writing a second time.
bool waitForSignalEnding();

// What a repeated signal's line says was kept. The journal's path, once it
// is known; then that it holds the whole trace.
void noteJournal(const char* path);
void noteJournalSealed();

}  // namespace cuptitrace
