// The library's public interface, exported for include/cuptitrace/cuptitrace.h,
// which finds these functions at run time. Their names and signatures are a
// stable ABI: a change means new names (cuptitrace_v2_...) and a higher
// cuptitrace_api_version(). They never throw and never harm the program:
// without tracing they answer CUPTITRACE_NOT_TRACED and do nothing.
#include <cuptitrace/cuptitrace.h>

#include <cstdint>

#include "collectors/external_ids.h"
#include "collectors/fork_guard.h"
#include "collectors/osrt_state.h"
#include "injection/tracer.h"

#define PUBLIC_API extern "C" __attribute__((visibility("default")))

namespace {

static_assert(static_cast<int>(cuptitrace::PublicStatus::Ok) == CUPTITRACE_OK &&
              static_cast<int>(cuptitrace::PublicStatus::NotTraced) == CUPTITRACE_NOT_TRACED &&
              static_cast<int>(cuptitrace::PublicStatus::Error) == CUPTITRACE_ERROR);

int answer(cuptitrace::PublicStatus status) { return static_cast<int>(status); }

// Every call goes through here: `notTraced` without tracing, `failed` when
// it fails (memory) or the API has stopped after a failure (counted, see
// core/fault_boundary.h), otherwise what f(ids) answers.
template <typename R, typename F>
R guarded(R notTraced, R failed, F&& f) noexcept {
  // A forked child: CUPTI does not work there, and a lock a parent thread
  // held at fork time stays locked for good. Nothing is taken or called.
  if (cuptitrace::inForkedChild()) return notTraced;
  const cuptitrace::osrt::TracerScope ours;
  try {
    auto& tracer = cuptitrace::Tracer::instance();
    cuptitrace::ExternalIds* ids = tracer.externalIds();
    if (ids == nullptr) return notTraced;
    return tracer.publicApiBoundary().call(failed, [&] { return f(*ids); });
  } catch (...) {
    return failed;  // the tracer itself could not be had
  }
}

}  // namespace

PUBLIC_API uint32_t cuptitrace_api_version(void) noexcept { return CUPTITRACE_API_VERSION; }

PUBLIC_API int cuptitrace_v1_active(void) noexcept {
  return guarded(0, 0, [](cuptitrace::ExternalIds&) { return 1; });
}

PUBLIC_API int cuptitrace_v1_push_external_id(uint64_t id) noexcept {
  return guarded(int{CUPTITRACE_NOT_TRACED}, int{CUPTITRACE_ERROR},
                 [&](cuptitrace::ExternalIds& ids) { return answer(ids.push(id)); });
}

PUBLIC_API int cuptitrace_v1_pop_external_id(uint64_t* id) noexcept {
  return guarded(int{CUPTITRACE_NOT_TRACED}, int{CUPTITRACE_ERROR},
                 [&](cuptitrace::ExternalIds& ids) { return answer(ids.pop(id)); });
}

PUBLIC_API uint64_t cuptitrace_v1_push_scope(const char* name) noexcept {
  // 0 on failure: no memory for the name, the program goes on untraced here.
  return guarded(uint64_t{0}, uint64_t{0}, [&](cuptitrace::ExternalIds& ids) { return ids.pushScope(name); });
}

PUBLIC_API int cuptitrace_v1_pop_scope(void) noexcept {
  return guarded(int{CUPTITRACE_NOT_TRACED}, int{CUPTITRACE_ERROR},
                 [&](cuptitrace::ExternalIds& ids) { return answer(ids.popScope()); });
}

// Not in cuptitrace.h: the Python start-up hook's (python/cuptitrace_pyhook),
// called through ctypes around each torch call when --python-backtrace is on.
PUBLIC_API int cuptitrace_v1_push_python(const char* frames) noexcept {
  return guarded(int{CUPTITRACE_NOT_TRACED}, int{CUPTITRACE_ERROR},
                 [&](cuptitrace::ExternalIds& ids) { return answer(ids.pushPython(frames)); });
}

PUBLIC_API int cuptitrace_v1_pop_python(void) noexcept {
  return guarded(int{CUPTITRACE_NOT_TRACED}, int{CUPTITRACE_ERROR},
                 [](cuptitrace::ExternalIds& ids) { return answer(ids.popPython()); });
}
