// One error check for CUPTI calls: logs the call text and CUPTI's message,
// and returns the status. Never exits: a tracer must not end its host program.
#pragma once

#include <cupti.h>

namespace cuptitrace {

CUptiResult checkCupti(CUptiResult status, const char* callText, const char* file, int line);

}  // namespace cuptitrace

#define CUPTI_CHECK(call) ::cuptitrace::checkCupti((call), #call, __FILE__, __LINE__)
