#include "collectors/cupti_check.h"

#include "core/log.h"

namespace cuptitrace {

CUptiResult checkCupti(CUptiResult status, const char* callText, const char* file, int line) {
  if (status != CUPTI_SUCCESS) {
    const char* message = nullptr;
    if (cuptiGetResultString(status, &message) != CUPTI_SUCCESS || message == nullptr)
      message = "unknown error";
    logger().debug("{} failed: {} ({}:{})", callText, message, file, line);
  }
  return status;
}

}  // namespace cuptitrace
