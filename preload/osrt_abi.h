/* How the tracer (libcuptitrace.so) and the osrt preload library
 * (libcuptitrace-osrt.so) talk. The preload library holds the wrappers of C
 * library calls and the little state they read; the tracer, loaded later and
 * privately by the CUDA driver, finds it by one versioned name
 * (dlsym(RTLD_DEFAULT, CUPTITRACE_OSRT_V1_ATTACH)) and hands it a sink for
 * the calls it measures. Plain C: the two may come from different builds, so
 * a change of anything here is a new version (v2), never an edit of v1. */
#ifndef CUPTITRACE_PRELOAD_OSRT_ABI_H
#define CUPTITRACE_PRELOAD_OSRT_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUPTITRACE_OSRT_V1_ATTACH "cuptitrace_osrt_v1_attach"

/* One thread's flags, zero when the thread starts. The wrappers record a
 * call only on a thread that is neither busy (inside a recorded call or the
 * tracer's own code) nor the tracer's or CUPTI's. */
typedef struct cuptitrace_osrt_v1_thread {
  uint8_t busy;
  uint8_t tracer;
  uint8_t flushing; /* the tracer is flushing CUPTI on this thread */
  uint8_t reserved;
  uint32_t tid; /* gettid(), cached; 0 until known */
} cuptitrace_osrt_v1_thread;

/* Where measured calls go. `call` is an OsrtCall (preload/osrt_calls.h),
 * `start` and `end` are ns on `clock`, `error` an errno or error code (0:
 * none). Kept alive by the tracer for as long as the process runs. */
typedef struct cuptitrace_osrt_v1_sink {
  uint64_t (*clock)(void);
  void (*record)(void* context, uint16_t call, uint32_t tid, uint64_t start, uint64_t end, uint32_t error);
  void* context;
} cuptitrace_osrt_v1_sink;

typedef struct cuptitrace_osrt_v1 {
  uint32_t size; /* sizeof(cuptitrace_osrt_v1) of the preload library's build */
  /* Starts recording into `sink`; NULL stops. A forked child stops by itself. */
  void (*arm)(const cuptitrace_osrt_v1_sink* sink);
  /* The calling thread's flags, for the tracer to mark its own threads. */
  cuptitrace_osrt_v1_thread* (*thread)(void);
} cuptitrace_osrt_v1;

typedef const cuptitrace_osrt_v1* (*cuptitrace_osrt_v1_attach_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
