// The lines said from inside a signal handler, where nothing may allocate or
// lock: built in a fixed buffer and written to stderr with write(2).
#pragma once

#include <signal.h>

namespace cuptitrace::signal_text {

// "SIGTERM", "SIGSEGV", "SIGRTMIN+2", ...; "signal" before prepareNames().
// Async-signal-safe.
const char* signalName(int sig);
// Makes the names, outside any handler.
void prepareNames();

// The spill journal's path (copied; later calls replace it), and that it
// now holds the whole trace. Called by the tracer, outside any handler.
void setJournal(const char* path);
void setJournalSealed();

// A polite signal seconds after the first one: the writing is cut short.
// Says what was kept and how to get the trace back from it.
void sayCutShort(int sig);
// A fault on one of the tracer's own threads: where, and what is kept.
void sayOwnFault(int sig, const siginfo_t* info, const char* threadName);
// The write made no progress for `stallMs`: the process ends (or `what`
// goes on) without it.
void sayNotWritten(const char* what, int stallMs);
// A fault about to end the process: the thread and the frames that led to
// it, each as LIBRARY+OFFSET, so that a report says whose code faulted.
void sayWhere(int sig, const siginfo_t* info);
// Loads what sayWhere needs (the unwinder), outside any handler.
void prepareWhere();

}  // namespace cuptitrace::signal_text
