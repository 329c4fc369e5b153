#include "collectors/osrt_state.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

namespace cuptitrace::osrt {

namespace detail {
std::atomic<bool> armed{false};
}

namespace {

std::atomic<OsrtRecorder*> gRecorder{nullptr};
std::atomic<Clock> gClock{nullptr};

// Plain data, zero at thread start: reading it needs no initialisation guard.
struct ThreadState {
  bool busy;      // inside a recorded call or the tracer's code
  bool tracer;    // a thread of the tracer or of CUPTI
  bool flushing;  // the tracer is flushing CUPTI on this thread
  uint32_t tid;
};
thread_local ThreadState tState;

uint32_t currentTid() {
  if (tState.tid == 0) tState.tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tState.tid;
}

// CUPTI does not survive fork, and nothing would collect the child's records.
void disarmInChild() {
  detail::armed.store(false, std::memory_order_relaxed);
  tState.tid = 0;
}

}  // namespace

void arm(OsrtRecorder* recorder, Clock clock) {
  static std::once_flag atforkOnce;
  std::call_once(atforkOnce, [] { ::pthread_atfork(nullptr, nullptr, disarmInChild); });
  gRecorder.store(recorder, std::memory_order_release);
  gClock.store(clock, std::memory_order_release);
  detail::armed.store(recorder != nullptr && clock != nullptr, std::memory_order_release);
}

void disarm() { detail::armed.store(false, std::memory_order_release); }

void markTracerThread() {
  ThreadState& t = tState;
  if (t.tracer) return;
  t.tracer = true;
  const bool wasBusy = t.busy;
  t.busy = true;  // the recorder's lock below is ours
  if (OsrtRecorder* r = gRecorder.load(std::memory_order_acquire)) r->dropCallingThread(currentTid());
  t.busy = wasBusy;
}

void cuptiCallbackThread() {
  const ThreadState& t = tState;
  if (t.tracer || t.flushing) return;
  // CUPTI may complete a context's buffers on the thread that destroys it;
  // that is most often the main thread, which must stay recorded.
  if (currentTid() == static_cast<uint32_t>(::getpid())) return;
  markTracerThread();
}

bool isTracerThread() { return tState.tracer; }

TracerScope::TracerScope() : previous_(tState.busy) { tState.busy = true; }
TracerScope::~TracerScope() { tState.busy = previous_; }

FlushScope::FlushScope() : previous_(tState.flushing) { tState.flushing = true; }
FlushScope::~FlushScope() { tState.flushing = previous_; }

bool begin(uint64_t* start) {
  ThreadState& t = tState;
  if (t.busy || t.tracer) return false;
  const Clock clock = gClock.load(std::memory_order_acquire);
  if (clock == nullptr) return false;
  t.busy = true;  // whatever the clock and the real call do inside is not recorded again
  *start = clock();
  return true;
}

void end(OsrtCall call, uint64_t start, uint32_t error) {
  const int savedErrno = errno;
  const Clock clock = gClock.load(std::memory_order_acquire);
  OsrtRecorder* recorder = gRecorder.load(std::memory_order_acquire);
  if (clock != nullptr && recorder != nullptr && armed()) {
    const uint64_t stop = clock();
    recorder->record(call, currentTid(), start, stop, error);
  }
  tState.busy = false;
  errno = savedErrno;
}

}  // namespace cuptitrace::osrt
