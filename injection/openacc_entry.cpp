// The OpenACC tools interface's entry point. An OpenACC runtime (NVIDIA HPC
// SDK's, GCC's libgomp) loads each library named by ACC_PROFLIB at start and
// calls its acc_register_library with the functions that register event
// callbacks; CUPTI takes them (cuptiOpenACCInitialize) and writes OpenACC
// activity records. The runtime calls it before the program's first CUDA
// call, so it starts the tracer too, as NVTX's entry point does.
#include <cstdio>
#include <string>

#include "collectors/cupti_detach.h"
#include "collectors/fork_guard.h"
#include "collectors/openacc_collector.h"
#include "core/log.h"
#include "injection/tracer.h"

namespace cuptitrace {

void Tracer::registerOpenAcc(void* profRegister, void* profUnregister, void* profLookup) noexcept {
  start();
  openAccBoundary_.run([&] {
    if (!active() || inForkedChild() || cuptiBarred()) return;
    if ((config_.activities & kActivityOpenAcc) == 0) return;
    std::string error;
    if (!initializeOpenAcc(profRegister, profUnregister, profLookup, error)) {
      logger().warn("OpenACC events cannot be recorded: {}", error);
      return;
    }
    collector_->enableOpenAcc();
    logger().info("OpenACC runtime registered: recording OpenACC events");
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
