// The library's public interface, exported for include/cuptitrace/cuptitrace.h,
// which finds these functions at run time. Their names and signatures are a
// stable ABI: a change means new names (cuptitrace_v2_...) and a higher
// cuptitrace_api_version(). They never throw and never harm the program:
// without tracing they answer CUPTITRACE_NOT_TRACED and do nothing.
#include <cuptitrace/cuptitrace.h>

#include <cstdint>

#include "collectors/external_ids.h"
#include "collectors/osrt_state.h"
#include "injection/tracer.h"

#define PUBLIC_API extern "C" __attribute__((visibility("default")))

namespace {

static_assert(static_cast<int>(cuptitrace::PublicStatus::Ok) == CUPTITRACE_OK &&
              static_cast<int>(cuptitrace::PublicStatus::NotTraced) == CUPTITRACE_NOT_TRACED &&
              static_cast<int>(cuptitrace::PublicStatus::Error) == CUPTITRACE_ERROR);

cuptitrace::ExternalIds* externalIds() { return cuptitrace::Tracer::instance().externalIds(); }

int answer(cuptitrace::PublicStatus status) { return static_cast<int>(status); }

}  // namespace

PUBLIC_API uint32_t cuptitrace_api_version(void) { return CUPTITRACE_API_VERSION; }

PUBLIC_API int cuptitrace_v1_active(void) { return externalIds() != nullptr ? 1 : 0; }

PUBLIC_API int cuptitrace_v1_push_external_id(uint64_t id) {
  const cuptitrace::osrt::TracerScope ours;
  auto* ids = externalIds();
  if (ids == nullptr) return CUPTITRACE_NOT_TRACED;
  try {
    return answer(ids->push(id));
  } catch (...) {
    return CUPTITRACE_ERROR;
  }
}

PUBLIC_API int cuptitrace_v1_pop_external_id(uint64_t* id) {
  const cuptitrace::osrt::TracerScope ours;
  auto* ids = externalIds();
  if (ids == nullptr) return CUPTITRACE_NOT_TRACED;
  try {
    return answer(ids->pop(id));
  } catch (...) {
    return CUPTITRACE_ERROR;
  }
}

PUBLIC_API uint64_t cuptitrace_v1_push_scope(const char* name) {
  const cuptitrace::osrt::TracerScope ours;
  auto* ids = externalIds();
  if (ids == nullptr) return 0;
  try {
    return ids->pushScope(name);
  } catch (...) {
    return 0;  // no memory for the name: the program goes on untraced here
  }
}

PUBLIC_API int cuptitrace_v1_pop_scope(void) {
  const cuptitrace::osrt::TracerScope ours;
  auto* ids = externalIds();
  if (ids == nullptr) return CUPTITRACE_NOT_TRACED;
  try {
    return answer(ids->popScope());
  } catch (...) {
    return CUPTITRACE_ERROR;
  }
}
