// A stand-in for the tracer's osrt side: built with the tracer's own
// osrt_state.cpp and the recorder into a library that osrt_probe loads
// privately, it connects to the preloaded libcuptitrace-osrt.so as the
// tracer does, arms recording with a monotonic clock, collects the records,
// and answers osrt_probe's questions through a few exported functions.
#include <time.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "collectors/osrt_recorder.h"
#include "collectors/osrt_state.h"

#define SINK_API extern "C" __attribute__((visibility("default")))

namespace {

using namespace cuptitrace;

uint64_t monotonicNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

struct Sink {
  Trace trace;
  OsrtRecorder recorder;
};
Sink* gSink = nullptr;  // replaced on each arm; the old one is kept (a wrapper may still use it)

}  // namespace

SINK_API int osrt_test_connected(void) { return osrt::connectPreloaded() ? 1 : 0; }

SINK_API void osrt_test_arm(uint64_t thresholdNs) {
  const osrt::TracerScope ours;
  gSink = new Sink;
  gSink->recorder.internNames(gSink->trace.strings);
  gSink->recorder.setThreshold(thresholdNs);
  osrt::arm(&gSink->recorder, monotonicNs);
}

SINK_API void osrt_test_disarm(void) { osrt::disarm(); }

SINK_API void osrt_test_mark_tracer_thread(void) { osrt::markTracerThread(); }

// Calls named `name` recorded so far on thread `tid` (0: any) that lasted at
// least `minNs`; *error gets the last one's error (when not null).
SINK_API int osrt_test_count(const char* name, uint32_t tid, uint64_t minNs, uint32_t* error) {
  if (gSink == nullptr) return -1;
  const osrt::TracerScope ours;
  gSink->recorder.collect(gSink->trace.store);
  int n = 0;
  gSink->trace.store.records<ApiRecord>().forEach([&](const ApiRecord& r) {
    if (gSink->trace.strings.get(r.name) != name || (tid != 0 && r.threadId != tid) || r.end - r.start < minNs)
      return;
    ++n;
    if (error != nullptr) *error = r.returnValue;
  });
  return n;
}

SINK_API uint64_t osrt_test_counter(const char* name) {
  if (gSink == nullptr) return 0;
  const osrt::TracerScope ours;
  gSink->recorder.publish(gSink->trace);
  return gSink->trace.counters[name];
}
