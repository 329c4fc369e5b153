// The tracer's own threads (the drain, the capture thread, the signal
// watcher) and the thread writing the trace at the end, by kernel thread id,
// so that a signal handler can tell, without locks or allocation, whether a
// fault happened in the tracer's work rather than the program's.
#pragma once

#include <cstdint>

namespace cuptitrace {

// The calling thread is the tracer's, under `name` (a string literal: it is
// read from signal handlers for as long as the process lives).
void registerOwnThread(const char* name);
// The calling thread is no longer the tracer's (a program thread that wrote
// the trace at exit and goes on).
void unregisterOwnThread();
// The name given to `tid`, or nullptr for a thread that is not the tracer's.
// Async-signal-safe.
const char* ownThreadName(int32_t tid);
// The calling thread's kernel id. Async-signal-safe.
int32_t currentThreadId();

}  // namespace cuptitrace
