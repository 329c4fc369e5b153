// The library's entry points: the only symbols it exports.
#include <cupti.h>

#include "collectors/cupti_detach.h"
#include "collectors/fork_guard.h"
#include "collectors/nvtx_wide.h"
#include "injection/tracer.h"

#define TRACER_ENTRY_POINT extern "C" __attribute__((visibility("default")))

// CUPTI's own NVTX handler, in libcupti: it turns NVTX calls into callbacks.
extern "C" CUptiResult CUPTIAPI cuptiNvtxInitialize2(void* exportTable);

// Called by the CUDA driver at cuInit when CUDA_INJECTION64_PATH names this library.
TRACER_ENTRY_POINT int InitializeInjection(void) {
  cuptitrace::Tracer::instance().start();
  return 1;
}

// Called by NVTX at the program's first NVTX call when NVTX_INJECTION64_PATH
// names this library. NVTX may come before any CUDA call, so it starts the
// tracer too, then hands NVTX to CUPTI.
TRACER_ENTRY_POINT int InitializeInjectionNvtx2(void* exportTable) {
  auto& tracer = cuptitrace::Tracer::instance();
  tracer.start();
  // Without tracing (no driver, CUPTI taken) or without NVTX selected, NVTX
  // calls stay no-ops: CUPTI's handler must not be installed then (with no
  // driver it crashes the program at its first NVTX call).
  if (!tracer.recordsNvtx()) return 0;
  if (cuptiNvtxInitialize2(exportTable) != CUPTI_SUCCESS) return 0;
  // Ranges and marks come to our handlers (CUPTI's keeps memory for each
  // range); the wide forms then go to those.
  tracer.takeNvtxCalls(exportTable);
  cuptitrace::routeWideNvtxCalls(exportTable);
  // What a forked child and a detach need to turn NVTX calls into no-ops.
  cuptitrace::rememberNvtxModule(exportTable);
  cuptitrace::rememberNvtxForDetach(exportTable);
  return 1;
}
