// Whether the C library wrappers (injection/osrt_interpose.cpp) record, and
// which threads they leave alone. The wrappers run inside every wrapped call
// of the program, from before the tracer starts to after it ends, and on
// threads that are not the program's: this is what keeps them harmless.
//
// - Off (not armed), a wrapper costs one load and one branch.
// - Calls on the tracer's own threads, and on CUPTI's, are never recorded.
// - Calls made while the thread is already inside a recorded call or inside
//   the tracer's own code (a lock taken by the recorder, a clock read) pass
//   straight through: no recursion, no records of ourselves.
#pragma once

#include <atomic>
#include <cstdint>

#include "collectors/osrt_recorder.h"

namespace cuptitrace::osrt {

namespace detail {
extern std::atomic<bool> armed;
}

// One relaxed load: the whole cost of a wrapper while recording is off.
inline bool armed() { return detail::armed.load(std::memory_order_relaxed); }

using Clock = uint64_t (*)();  // ns on the trace clock

// Starts recording into `recorder` (which must outlive recording), timing
// with `clock`. A forked child stops recording.
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
  bool previous_;
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
  bool previous_;
};

// Around one wrapped call, once armed() said yes: begin() before the real
// call (false: this call is not recorded), end() after it. end() keeps errno.
bool begin(uint64_t* start);
void end(OsrtCall call, uint64_t start, uint32_t error);

}  // namespace cuptitrace::osrt
