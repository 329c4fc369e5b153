#include "collectors/osrt_state.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace cuptitrace::osrt {
namespace {

std::atomic<const cuptitrace_osrt_v1*> gApi{nullptr};
std::atomic<OsrtRecorder*> gRecorder{nullptr};

// The flags of threads while no preload library is connected: nothing reads
// them but this file, and they keep the functions below meaningful.
thread_local cuptitrace_osrt_v1_thread tLocal;

cuptitrace_osrt_v1_thread& flags() {
  const cuptitrace_osrt_v1* api = gApi.load(std::memory_order_acquire);
  if (api != nullptr) {
    if (cuptitrace_osrt_v1_thread* t = api->thread()) return *t;
  }
  return tLocal;
}

uint32_t currentTid(cuptitrace_osrt_v1_thread& t) {
  if (t.tid == 0) t.tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return t.tid;
}

void recordCall(void* context, uint16_t call, uint32_t tid, uint64_t start, uint64_t end,
                uint32_t error) {
  static_cast<OsrtRecorder*>(context)->record(static_cast<OsrtCall>(call), tid, start, end, error);
}

// The sink handed to the preload library. Never freed: a wrapper may still be
// reading the previous one. One per (recorder, clock), so re-arming with each
// capture window allocates nothing.
const cuptitrace_osrt_v1_sink* sinkFor(OsrtRecorder* recorder, Clock clock) {
  static std::mutex mutex;
  static cuptitrace_osrt_v1_sink* last = nullptr;
  const std::lock_guard<std::mutex> lock(mutex);
  if (last == nullptr || last->context != recorder || last->clock != clock)
    last = new cuptitrace_osrt_v1_sink{clock, recordCall, recorder};
  return last;
}

// Whether the program's lookups of a wrapped call find the preload library's
// definition, that is whether it was preloaded ahead of the C library.
bool wrappersReached(const void* attach) {
  void* found = ::dlsym(RTLD_DEFAULT, "nanosleep");
  Dl_info theirs{}, ours{};
  if (found == nullptr || ::dladdr(found, &theirs) == 0 || ::dladdr(attach, &ours) == 0)
    return false;
  return theirs.dli_fbase == ours.dli_fbase;
}

// When the tracer loads, before any thread of ours exists: from then on the
// flags our threads set are the ones the wrappers read.
__attribute__((constructor)) void connectAtLoad() { connectPreloaded(); }

}  // namespace

bool connectPreloaded() {
  if (connected()) return true;
  void* attach = ::dlsym(RTLD_DEFAULT, CUPTITRACE_OSRT_V1_ATTACH);
  if (attach == nullptr || !wrappersReached(attach)) {
    ::dlerror();
    return false;
  }
  const cuptitrace_osrt_v1* api = reinterpret_cast<cuptitrace_osrt_v1_attach_fn>(attach)();
  // An older v1 library lacks nothing we call; a struct smaller than v1's is not v1.
  if (api == nullptr || api->size < sizeof(cuptitrace_osrt_v1) || api->arm == nullptr ||
      api->thread == nullptr)
    return false;
  connect(api);
  return true;
}

void connect(const cuptitrace_osrt_v1* api) { gApi.store(api, std::memory_order_release); }

bool connected() { return gApi.load(std::memory_order_acquire) != nullptr; }

void arm(OsrtRecorder* recorder, Clock clock) {
  const cuptitrace_osrt_v1* api = gApi.load(std::memory_order_acquire);
  if (api == nullptr) return;
  gRecorder.store(recorder, std::memory_order_release);
  const TracerScope ours;  // the sink's lock is ours
  api->arm(recorder != nullptr && clock != nullptr ? sinkFor(recorder, clock) : nullptr);
}

void disarm() {
  if (const cuptitrace_osrt_v1* api = gApi.load(std::memory_order_acquire)) api->arm(nullptr);
}

void markTracerThread() {
  cuptitrace_osrt_v1_thread& t = flags();
  if (t.tracer != 0) return;
  t.tracer = 1;
  const uint8_t wasBusy = t.busy;
  t.busy = 1;  // the recorder's lock below is ours
  if (OsrtRecorder* r = gRecorder.load(std::memory_order_acquire))
    r->dropCallingThread(currentTid(t));
  t.busy = wasBusy;
}

void cuptiCallbackThread() {
  cuptitrace_osrt_v1_thread& t = flags();
  if (t.tracer != 0 || t.flushing != 0) return;
  // CUPTI may complete a context's buffers on the thread that destroys it;
  // that is most often the main thread, which must stay recorded.
  if (currentTid(t) == static_cast<uint32_t>(::getpid())) return;
  markTracerThread();
}

bool isTracerThread() { return flags().tracer != 0; }

TracerScope::TracerScope() : flags_(&flags()), previous_(flags_->busy) { flags_->busy = 1; }
TracerScope::~TracerScope() { flags_->busy = previous_; }

FlushScope::FlushScope() : flags_(&flags()), previous_(flags_->flushing) { flags_->flushing = 1; }
FlushScope::~FlushScope() { flags_->flushing = previous_; }

}  // namespace cuptitrace::osrt
