// The OpenACC tools interface's entry point. An OpenACC runtime (NVIDIA HPC
// SDK's, GCC's libgomp) loads each library named by ACC_PROFLIB at start and
// calls its acc_register_library with the functions that register event
// callbacks; CUPTI takes them (cuptiOpenACCInitialize) and writes OpenACC
// activity records. The runtime calls it as it loads, before the program's
// main and its first CUDA call, so it starts the tracer, as NVTX's entry
// point does: CUPTI's OpenACC callbacks must not run before CUPTI is set up
// (they crash the program when there is no driver), so the runtime is handed
// to CUPTI only once tracing runs.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "collectors/cupti_detach.h"
#include "collectors/fork_guard.h"
#include "collectors/openacc_collector.h"
#include "core/config.h"
#include "injection/tracer.h"

namespace cuptitrace {

void Tracer::registerOpenAcc(void* profRegister, void* profUnregister, void* profLookup) noexcept {
  openAccBoundary_.run([&] {
    if (inForkedChild() || cuptiBarred() || openAccRegistered()) return;
    // Tracing starts only for the openacc kind: the tracer has usually not
    // read its configuration yet, the same variables say (bad values are
    // reported once, when it reads them).
    std::vector<std::string> ignored;
    const Config config = parseConfig([](const char* name) { return std::getenv(name); }, ignored);
    if ((config.activities & kActivityOpenAcc) == 0) return;
    start();
    if (!active()) return;  // no driver, CUPTI taken: the program runs untraced
    std::string error;
    if (!initializeOpenAcc(profRegister, profUnregister, profLookup, error)) {
      std::fprintf(stderr, "cuptitrace: OpenACC events cannot be recorded: %s\n", error.c_str());
      return;
    }
    markOpenAccRegistered();
    collector_->enableOpenAcc();
  });
}

}  // namespace cuptitrace

// acc_prof_reg and acc_prof_lookup_func of the OpenACC specification (acc_prof.h),
// taken as plain pointers: CUPTI wants them so.
extern "C" __attribute__((visibility("default"))) void acc_register_library(void* profRegister,
                                                                            void* profUnregister,
                                                                            void* profLookup) {
  cuptitrace::Tracer::instance().registerOpenAcc(profRegister, profUnregister, profLookup);
}
