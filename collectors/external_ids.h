// The public API's external ids and named scopes (include/cuptitrace/cuptitrace.h):
// an id pushed on a thread is attached by CUPTI to every CUDA API call the
// thread makes until it is popped, and so to the GPU work those calls launch
// (CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION records, decoded into
// ExternalIdRecords). Plain ids are pushed as ExternalKind::Id; a named scope
// gets a fresh id, is pushed as ExternalKind::Scope and is drawn as a range
// of NVTX domain kScopeNvtxDomain on its thread (payload: the scope's id),
// which is where exporters find its name.
//
// Program threads call in; nothing here takes a lock threads share: scope
// ids come from per-thread blocks, names through the per-thread cache, the
// range through the NVTX recorder's per-thread state.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "collectors/nvtx_recorder.h"
#include "collectors/nvtx_strings.h"
#include "core/trace.h"

namespace cuptitrace {

// The public API's answers (CUPTITRACE_OK, ... in cuptitrace.h).
enum class PublicStatus : int { Ok = 0, NotTraced = 1, Error = 2 };

class ExternalIds {
 public:
  ExternalIds(NvtxRecorder& recorder, StringTable& strings);
  ExternalIds(const ExternalIds&) = delete;
  ExternalIds& operator=(const ExternalIds&) = delete;

  PublicStatus push(uint64_t id);
  PublicStatus pop(uint64_t* id);
  // The scope's id, 0 when it could not be pushed.
  uint64_t pushScope(const char* name);
  PublicStatus popScope();
  // A range of NVTX domain kPythonNvtxDomain around a torch call made from
  // Python, named by its innermost frames of user code (the Python start-up
  // hook's --python-backtrace); no external id: the calls made inside it are
  // found by their thread and time.
  PublicStatus pushPython(const char* frames);
  PublicStatus popPython();

  // No more external correlation records from here on (end of collection).
  void stop();
  void publish(Trace& trace) const;

  StringId scopeDomain() const { return domain_; }

 private:
  bool enable();

  NvtxRecorder& recorder_;
  CachedInterner strings_;
  const StringId domain_;
  const StringId pythonDomain_;
  const uint64_t serial_;
  std::once_flag enableOnce_;
  std::atomic<bool> enabled_{false};
  std::atomic<bool> stopped_{false};
  std::atomic<uint64_t> nextScopeBlock_{0};
  std::atomic<uint64_t> errors_{0};  // pushes and pops CUPTI refused
};

}  // namespace cuptitrace
