#include "preload/osrt_gate.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace cuptitrace::preload {

namespace detail {
std::atomic<bool> armed{false};
}

namespace {

std::atomic<const cuptitrace_osrt_v1_sink*> gSink{nullptr};

// Plain data, zero at thread start: reading it needs no initialisation guard.
thread_local cuptitrace_osrt_v1_thread tThread;

uint32_t currentTid() {
  if (tThread.tid == 0) tThread.tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tThread.tid;
}

// CUPTI does not survive fork, and nothing would collect the child's records.
void disarmInChild() {
  detail::armed.store(false, std::memory_order_relaxed);
  tThread.tid = 0;
}

pthread_once_t gAtforkOnce = PTHREAD_ONCE_INIT;
void installAtfork() { ::pthread_atfork(nullptr, nullptr, disarmInChild); }

void arm(const cuptitrace_osrt_v1_sink* sink) {
  if (sink != nullptr) ::pthread_once(&gAtforkOnce, installAtfork);
  gSink.store(sink, std::memory_order_release);
  detail::armed.store(sink != nullptr && sink->clock != nullptr && sink->record != nullptr,
                      std::memory_order_release);
}

cuptitrace_osrt_v1_thread* thread() { return &tThread; }

constexpr cuptitrace_osrt_v1 kApi = {sizeof(cuptitrace_osrt_v1), arm, thread};

}  // namespace

bool begin(uint64_t* start) {
  cuptitrace_osrt_v1_thread& t = tThread;
  if (t.busy != 0 || t.tracer != 0) return false;
  const cuptitrace_osrt_v1_sink* sink = gSink.load(std::memory_order_acquire);
  if (sink == nullptr || sink->clock == nullptr) return false;
  t.busy = 1;  // whatever the clock and the real call do inside is not recorded again
  *start = sink->clock();
  return true;
}

void end(uint16_t call, uint64_t start, uint32_t error) {
  const int savedErrno = errno;
  const cuptitrace_osrt_v1_sink* sink = gSink.load(std::memory_order_acquire);
  if (sink != nullptr && sink->clock != nullptr && sink->record != nullptr && armed()) {
    const uint64_t stop = sink->clock();
    sink->record(sink->context, call, currentTid(), start, stop, error);
  }
  tThread.busy = 0;
  errno = savedErrno;
}

}  // namespace cuptitrace::preload

const cuptitrace_osrt_v1* cuptitrace_osrt_v1_attach(void) { return &cuptitrace::preload::kApi; }
