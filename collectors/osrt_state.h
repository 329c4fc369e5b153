// The tracer's side of the osrt activity: it connects to the preload library
// that holds the wrappers of C library calls (libcuptitrace-osrt.so,
// preload/osrt_abi.h), arms it with the recorder, and tells it which threads
// are the tracer's. The wrappers themselves decide per call (preload/osrt_gate.h):
//
// - Calls on the tracer's own threads, and on CUPTI's, are never recorded.
// - Calls made while a program thread runs the tracer's code (TracerScope)
//   are not recorded.
//
// Without the preload library (osrt not selected, or the library not
// preloaded) every function here still works and records nothing.
#pragma once

#include <cstdint>

#include "collectors/osrt_recorder.h"
#include "preload/osrt_abi.h"

namespace cuptitrace::osrt {

// Looks for the preload library (done once when the tracer loads, before
// any thread of ours exists). True when it is there and the program's calls
// reach its wrappers (it was preloaded, not merely loaded).
bool connectPreloaded();
// Connects to `api` directly (tests: the gate linked in), or disconnects (null).
void connect(const cuptitrace_osrt_v1* api);
bool connected();

using Clock = uint64_t (*)();  // ns on the trace clock

// Starts recording into `recorder` (which must outlive recording), timing
// with `clock`. A forked child stops recording. Nothing without a connection.
void arm(OsrtRecorder* recorder, Clock clock);
// Stops recording; calls in progress are not recorded.
void disarm();

// The calling thread is the tracer's own or CUPTI's: nothing it calls is
// recorded, from now on, and what it recorded before is left out.
void markTracerThread();
// Called by CUPTI's buffer-completed callback: such a thread is CUPTI's,
// unless the tracer itself is flushing on it (FlushScope) or it is the
// program's main thread.
void cuptiCallbackThread();
bool isTracerThread();

// While alive, the calling (program) thread runs the tracer's code: its
// calls are not recorded. Nests.
class TracerScope {
 public:
  TracerScope();
  ~TracerScope();
  TracerScope(const TracerScope&) = delete;
  TracerScope& operator=(const TracerScope&) = delete;

 private:
  cuptitrace_osrt_v1_thread* flags_;
  uint8_t previous_;
};

// While alive, CUPTI buffers completed on the calling thread are the
// tracer's own flush, not a sign of a CUPTI thread.
class FlushScope {
 public:
  FlushScope();
  ~FlushScope();
  FlushScope(const FlushScope&) = delete;
  FlushScope& operator=(const FlushScope&) = delete;

 private:
  cuptitrace_osrt_v1_thread* flags_;
  uint8_t previous_;
};

}  // namespace cuptitrace::osrt
