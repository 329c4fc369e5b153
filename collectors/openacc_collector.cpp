#include "collectors/openacc_collector.h"

#include <atomic>

#include <cupti.h>
// Not included by cupti_activity.h unless CUPTI_OPENACC_SUPPORT is defined.
#include <Openacc/cupti_openacc.h>

#include "collectors/activity_collector.h"
#include "collectors/cupti_check.h"
#include "collectors/cupti_detach.h"
#include "core/log.h"

namespace cuptitrace {
namespace {

std::atomic<bool> gOpenAccRegistered{false};

}  // namespace

void markOpenAccRegistered() { gOpenAccRegistered.store(true); }
bool openAccRegistered() { return gOpenAccRegistered.load(); }

bool initializeOpenAcc(void* profRegister, void* profUnregister, void* profLookup, std::string& error) {
  const CUptiResult status = CUPTI_CHECK(cuptiOpenACCInitialize(profRegister, profUnregister, profLookup));
  if (status == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown error";
  error = std::string("cuptiOpenACCInitialize: ") + text;
  return false;
}

const std::vector<CUpti_ActivityKind>& ActivityCollector::openAccKinds() {
  // CUPTI writes an external correlation record (kind OPENACC) for each CUDA
  // call an OpenACC event made only while both are enabled.
  static const std::vector<CUpti_ActivityKind> kinds = {
      CUPTI_ACTIVITY_KIND_OPENACC_DATA, CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH, CUPTI_ACTIVITY_KIND_OPENACC_OTHER,
      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
  return kinds;
}

bool ActivityCollector::enableOpenAcc() {
  if (!started_ || cuptiBarred()) return false;
  bool expected = false;
  if (!openAccOn_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return true;
  // Outside a capture window they wait for the next one (setRecording).
  if (!windowOpen_.load(std::memory_order_acquire)) return true;
  bool ok = true;
  for (auto kind : openAccKinds()) {
    if (CUPTI_CHECK(cuptiActivityEnable(kind)) != CUPTI_SUCCESS) ok = false;
  }
  if (!ok) logger().warn("CUPTI cannot record every OpenACC kind here; tracing goes on without them");
  return ok;
}

}  // namespace cuptitrace
