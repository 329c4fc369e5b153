// Ends by signal, and by the calls that end a process with no exit handler.
//
// Signals whose default action ends the process, that the program leaves at
// that default (or later handles, or resets to it), fall in three families:
//
// - Sent to the process (TERM, INT, HUP, QUIT, USR1, USR2, ALRM, VTALRM,
//   PROF, XCPU, IO, PWR, STKFLT, and the real-time signals SIGRTMIN to
//   SIGRTMAX; never those the C library keeps below SIGRTMIN): the handler
//   only wakes a watcher thread of ours and returns at once, so the thread
//   it interrupted (inside a CUDA call, holding locks) goes on. The watcher
//   writes the trace, the spill journal first, then ends the process as the
//   signal would have: the exit status (and a core, for QUIT and XCPU) is
//   the signal's. Real senders signal a whole process group, and launchers
//   forward what they get: the same ending often arrives twice or more,
//   microseconds apart. A signal within kRepeatWindowNs of the first is that
//   same ending and is ignored; one sent by a process later means it (a user
//   pressing Ctrl-C again): one line says what was kept, then the process
//   ends at once. The kernel's own repeats (SIGXCPU each second) never do.
// - Tied to the call that raised it (PIPE after a write to a broken pipe,
//   XFSZ past the file size limit): the thread that made the call must not
//   go on, so it waits while the watcher writes, then the signal's default
//   action ends the process.
// - Faults and abort (SEGV, BUS, FPE, ILL, ABRT, TRAP, SYS): a handler the
//   program installed runs first (a one-shot one, SA_RESETHAND or ISO C's
//   signal(), once). With the default action, the faulting thread wakes the
//   watcher and waits for a best-effort write before the default action
//   ends the process. A fault on one of the tracer's own threads (or on the
//   thread writing the trace) says so at once and ends as the signal would:
//   no write can finish there.
//
// For the first two families the tracer's handler stays installed: the
// program's later calls for them change only what it sees and what runs on
// its behalf (injection/signal_view.h). A handler of its own runs as it
// would untraced (CPython turns SIGINT into KeyboardInterrupt); when it
// later sets SIG_DFL and raises the signal again, the trace is written
// then. Signals the program ignores stay ignored, and those it blocks stay
// blocked.
//
// _exit(), _Exit(), quick_exit() and exec (injection/redirected_calls.h): the
// calling thread hands the write to the watcher and waits for it, then ends.
//
// A thread that waits for the write waits as long as the writer works: it
// gives up (one line says so) only once the watcher has used no processor
// time for kStallLimitMs, stuck on a lock the waiting thread may hold.
//
// In a forked (or vforked) child they only take the signal's course: the
// trace is the parent's.
#pragma once

#include <cstdint>

#include "injection/ending.h"

namespace cuptitrace {

// Signals this close to the first one are the same ending.
constexpr int64_t kRepeatWindowNs = 2'000'000'000;
// How long a writer may make no progress before a waiting thread gives up.
// Slurm and Kubernetes allow 30 s after SIGTERM.
constexpr int kStallLimitMs = 30000;

// Writes the trace on the watcher thread, for the ending `e`.
using EndingWriter = void (*)(const Ending& e);

// Installs the handlers once, and redirects the program's signal calls for
// the signals answered to the program's view.
void installSignalHandlers(EndingWriter writeTrace);

// Capture windows toggled by a signal: each delivery of `sig` writes one byte
// to `fd` (non-blocking) and nothing else; a handler the program had for it
// runs after. The signal no longer ends the program. In a forked child the
// byte is not written. False when the handler could not be installed.
bool installToggleSignal(int sig, int fd);

// True in the process that installed the handlers; false before, and in a
// forked or vforked child. Async-signal-safe.
bool tracesThisProcess();

// An exit call or exec (`kind`, `call`: "_exit", "execve", ...) is about to
// end the process, or replace it: the watcher writes the trace while this
// thread waits. True once the trace is written (by this ending or one under
// way); false in a forked child, before the handlers are installed, on the
// tracer's own threads, and when the writer stalled (said in one line).
// Async-signal-safe on the calling side.
bool writeBeforeEnding(EndingKind kind, const char* call);

// At exit(): true when a signal's ending is under way, so that the watcher
// writes and then ends the process with the signal's status; this waits
// for that instead of writing a second time.
bool waitForSignalEnding();

// What a repeated signal's line says was kept. The journal's path, once it
// is known; then that it holds the whole trace.
void noteJournal(const char* path);
void noteJournalSealed();

// For tests: the stall limit in milliseconds, in place of kStallLimitMs.
void setStallLimitMsForTests(int ms);

}  // namespace cuptitrace
