// Turns CUPTI's NVTX-domain callbacks (one per NVTX call the program makes)
// into NvtxRecorder calls: message, domain, colour, category and payload read
// from the call's parameters; timestamps from CUPTI's clock, so NVTX records
// line up with the activity records.
//
// Every program thread comes through here on every NVTX call, so nothing on
// the way takes a lock that threads share: messages are interned through a
// per-thread cache (CachedInterner), domain and registered-string handles
// are looked up in a per-thread copy that is refreshed only when a handle is
// added, and the recorder keeps per-thread state.
#pragma once

#include <cupti.h>

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "collectors/nvtx_recorder.h"
#include "collectors/nvtx_strings.h"
#include "core/fault_boundary.h"
#include "core/string_table.h"
#include "core/trace.h"

namespace cuptitrace {

// How the CUDA handles that NVTX names become the ids records carry. CUPTI's
// calls by default; tests, which have no driver, give their own.
struct CudaIdLookup {
  bool (*streamId)(CUstream stream, uint32_t* id);
  bool (*contextId)(CUcontext context, uint32_t* id);
};
CudaIdLookup cuptiIdLookup();

class NvtxCallbacks {
 public:
  NvtxCallbacks(NvtxRecorder& recorder, StringTable& strings, CudaIdLookup ids = cuptiIdLookup());

  // Runs on the program's thread inside the NVTX call. Never throws: past a
  // failure (memory) NVTX calls are only counted (fault_boundary.h).
  void handle(CUpti_CallbackId cbid, const CUpti_NvtxData* data) noexcept {
    boundary_.run([&] { record(cbid, data); });
  }
  const FaultBoundary& boundary() const { return boundary_; }
  // The boundary's counts (and those of the wide-character calls) into `trace`.
  void publish(Trace& trace) const;

 private:
  enum class Handle : uint8_t { Domain, String };

  void record(CUpti_CallbackId cbid, const CUpti_NvtxData* data);

  NvtxAttributes fromEventAttributes(const void* eventAttributes, StringId domain);
  StringId domainId(const void* handle) { return handle == nullptr ? kNoString : lookup(Handle::Domain, handle); }
  StringId registeredString(const void* handle) { return lookup(Handle::String, handle); }
  StringId lookup(Handle kind, const void* handle);
  void addHandle(Handle kind, const void* handle, StringId id);

  const uint64_t serial_;
  const CudaIdLookup ids_;
  NvtxRecorder& recorder_;
  CachedInterner strings_;
  std::shared_mutex handlesMutex_;  // written on domain/string registration only
  std::unordered_map<const void*, StringId> domains_;
  std::unordered_map<const void*, StringId> registeredStrings_;
  std::atomic<uint64_t> handlesGeneration_{1};  // changes with every handle added
  FaultBoundary boundary_{"nvtx_callback"};
};

}  // namespace cuptitrace
