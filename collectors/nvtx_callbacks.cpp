#include "collectors/nvtx_callbacks.h"

#include <generated_nvtx_meta.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "collectors/cupti_detach.h"
#include "collectors/nvtx_wide.h"
#include "collectors/osrt_state.h"
#include "core/utf8.h"

namespace cuptitrace {
namespace {

std::atomic<uint64_t> gNextSerial{1};

// The calling thread's copy of one NvtxCallbacks' handle maps, valid while
// that object's generation is unchanged.
struct HandleCache {
  uint64_t owner = 0;
  uint64_t generation = 0;
  std::unordered_map<const void*, StringId> domains;
  std::unordered_map<const void*, StringId> strings;
};
thread_local HandleCache tHandles;

uint32_t currentThreadId() {
  thread_local const auto tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tid;
}

uint64_t now() { return traceClockNs(); }

template <typename T>
const T& params(const CUpti_NvtxData* data) {
  return *static_cast<const T*>(data->functionParams);
}

bool cuptiStreamId(CUstream stream, uint32_t* id) {
  return cuptiGetStreamIdEx(nullptr, stream, 0, id) == CUPTI_SUCCESS;
}
bool cuptiContextId(CUcontext context, uint32_t* id) { return cuptiGetContextId(context, id) == CUPTI_SUCCESS; }

}  // namespace

CudaIdLookup cuptiIdLookup() { return {cuptiStreamId, cuptiContextId}; }

NvtxCallbacks::NvtxCallbacks(NvtxRecorder& recorder, StringTable& strings, CudaIdLookup ids)
    : serial_(gNextSerial.fetch_add(1)), ids_(ids), recorder_(recorder), strings_(strings) {}

StringId NvtxCallbacks::lookup(Handle kind, const void* handle) {
  HandleCache& cache = tHandles;
  const uint64_t generation = handlesGeneration_.load(std::memory_order_acquire);
  if (cache.owner != serial_ || cache.generation != generation) {
    cache.domains.clear();
    cache.strings.clear();
    cache.owner = serial_;
    cache.generation = generation;
  }
  auto& local = kind == Handle::Domain ? cache.domains : cache.strings;
  if (auto it = local.find(handle); it != local.end()) return it->second;
  StringId id = kNoString;
  {
    std::shared_lock<std::shared_mutex> lock(handlesMutex_);
    const auto& shared = kind == Handle::Domain ? domains_ : registeredStrings_;
    if (auto it = shared.find(handle); it != shared.end()) id = it->second;
  }
  local.emplace(handle, id);  // unknown handles too: a new handle changes the generation
  return id;
}

void NvtxCallbacks::addHandle(Handle kind, const void* handle, StringId id) {
  std::unique_lock<std::shared_mutex> lock(handlesMutex_);
  (kind == Handle::Domain ? domains_ : registeredStrings_)[handle] = id;
  handlesGeneration_.fetch_add(1, std::memory_order_release);
}

NvtxAttributes NvtxCallbacks::fromEventAttributes(const void* eventAttributes, StringId domain) {
  NvtxAttributes a;
  a.domain = domain;
  const auto* e = static_cast<const nvtxEventAttributes_t*>(eventAttributes);
  // Fields past `size` were not provided by the caller's NVTX version.
  if (e == nullptr || e->size < offsetof(nvtxEventAttributes_t, message) + sizeof(e->message))
    return a;
  a.category = e->category;
  if (e->colorType == NVTX_COLOR_ARGB) {
    a.hasColor = true;
    a.color = e->color;
  }
  switch (e->payloadType) {
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64: a.payloadType = 1; a.payload = e->payload.ullValue; break;
    case NVTX_PAYLOAD_TYPE_INT64: a.payloadType = 2; std::memcpy(&a.payload, &e->payload.llValue, 8); break;
    case NVTX_PAYLOAD_TYPE_DOUBLE: a.payloadType = 3; std::memcpy(&a.payload, &e->payload.dValue, 8); break;
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32: a.payloadType = 4; a.payload = e->payload.uiValue; break;
    case NVTX_PAYLOAD_TYPE_INT32: a.payloadType = 5; a.payload = static_cast<uint32_t>(e->payload.iValue); break;
    case NVTX_PAYLOAD_TYPE_FLOAT: {
      a.payloadType = 6;
      uint32_t bits = 0;
      std::memcpy(&bits, &e->payload.fValue, 4);
      a.payload = bits;
      break;
    }
    default: break;
  }
  switch (e->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      if (e->message.ascii != nullptr) a.message = strings_.intern(e->message.ascii);
      break;
    case NVTX_MESSAGE_TYPE_UNICODE:
      a.message = strings_.intern(wideToUtf8(e->message.unicode));
      break;
    case NVTX_MESSAGE_TYPE_REGISTERED:
      a.message = registeredString(e->message.registered);
      break;
    default: break;
  }
  return a;
}

void NvtxCallbacks::publish(Trace& trace) const {
  boundary_.publish(trace.counters);
  publishWideNvtxFailures(trace.counters);
}

void NvtxCallbacks::record(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  if (data == nullptr || data->functionParams == nullptr) return;
  const osrt::TracerScope ours;  // locks and clock reads here are the tracer's, not the program's
  const uint32_t tid = currentThreadId();
  auto ascii = [&](const char* s) {
    NvtxAttributes a;
    if (s != nullptr) a.message = strings_.intern(s);
    return a;
  };
  auto wide = [&](const wchar_t* s) {
    NvtxAttributes a;
    a.message = strings_.intern(wideToUtf8(s));
    return a;
  };
  auto rangeId = [&]() -> uint64_t {
    return data->functionReturnValue ? *static_cast<const nvtxRangeId_t*>(data->functionReturnValue) : 0;
  };

  switch (cbid) {
    // Push/pop ranges.
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      recorder_.push(tid, now(), ascii(params<nvtxRangePushA_params>(data).message));
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushW:
      recorder_.push(tid, now(), wide(params<nvtxRangePushW_params>(data).message));
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      recorder_.push(tid, now(), fromEventAttributes(params<nvtxRangePushEx_params>(data).eventAttrib, kNoString));
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const auto& p = params<nvtxDomainRangePushEx_params>(data);
      recorder_.push(tid, now(), fromEventAttributes(p.core.eventAttrib, domainId(p.domain)));
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
      recorder_.pop(tid, now(), kNoString);
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      recorder_.pop(tid, now(), domainId(params<nvtxDomainRangePop_params>(data).domain));
      break;

    // Start/end ranges: the id comes back as the call's return value.
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
      recorder_.start(tid, now(), rangeId(), ascii(params<nvtxRangeStartA_params>(data).message));
      break;
    case CUPTI_CBID_NVTX_nvtxRangeStartW:
      recorder_.start(tid, now(), rangeId(), wide(params<nvtxRangeStartW_params>(data).message));
      break;
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
      recorder_.start(tid, now(), rangeId(),
                      fromEventAttributes(params<nvtxRangeStartEx_params>(data).eventAttrib, kNoString));
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
      const auto& p = params<nvtxDomainRangeStartEx_params>(data);
      recorder_.start(tid, now(), rangeId(), fromEventAttributes(p.core.eventAttrib, domainId(p.domain)));
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
      recorder_.end(tid, now(), params<nvtxRangeEnd_params>(data).id);
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
      recorder_.end(tid, now(), params<nvtxDomainRangeEnd_params>(data).core.id);
      break;

    // Marks.
    case CUPTI_CBID_NVTX_nvtxMarkA:
      recorder_.mark(tid, now(), ascii(params<nvtxMarkA_params>(data).message));
      break;
    case CUPTI_CBID_NVTX_nvtxMarkW:
      recorder_.mark(tid, now(), wide(params<nvtxMarkW_params>(data).message));
      break;
    case CUPTI_CBID_NVTX_nvtxMarkEx:
      recorder_.mark(tid, now(), fromEventAttributes(params<nvtxMarkEx_params>(data).eventAttrib, kNoString));
      break;
    case CUPTI_CBID_NVTX_nvtxDomainMarkEx: {
      const auto& p = params<nvtxDomainMarkEx_params>(data);
      recorder_.mark(tid, now(), fromEventAttributes(p.core.eventAttrib, domainId(p.domain)));
      break;
    }

    // Domains and registered strings: handles come back as return values.
    case CUPTI_CBID_NVTX_nvtxDomainCreateA:
    case CUPTI_CBID_NVTX_nvtxDomainCreateW: {
      if (data->functionReturnValue == nullptr) break;
      const void* handle = *static_cast<const nvtxDomainHandle_t*>(data->functionReturnValue);
      // CUPTI declares only the A parameter struct; the W call passes a wchar_t* there.
      const char* raw = params<nvtxDomainCreateA_params>(data).name;
      const std::string name = cbid == CUPTI_CBID_NVTX_nvtxDomainCreateA
                                   ? std::string(raw ? raw : "")
                                   : wideToUtf8(reinterpret_cast<const wchar_t*>(raw));
      addHandle(Handle::Domain, handle, strings_.intern(name));
      break;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringW: {
      if (data->functionReturnValue == nullptr) break;
      const void* handle = *static_cast<const nvtxStringHandle_t*>(data->functionReturnValue);
      // CUPTI's params struct types both variants as const char*; the W one holds a wchar_t*.
      const char* raw = params<nvtxDomainRegisterStringA_params>(data).string;
      const std::string text = cbid == CUPTI_CBID_NVTX_nvtxDomainRegisterStringA
                                   ? std::string(raw ? raw : "")
                                   : wideToUtf8(reinterpret_cast<const wchar_t*>(raw));
      addHandle(Handle::String, handle, strings_.intern(text));
      break;
    }

    // Names for tracks.
    case CUPTI_CBID_NVTX_nvtxNameOsThreadA: {
      const auto& p = params<nvtxNameOsThreadA_params>(data);
      if (p.name) recorder_.nameThread(p.threadId, p.name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxNameOsThreadW: {
      const auto& p = params<nvtxNameOsThreadW_params>(data);
      recorder_.nameThread(p.threadId, wideToUtf8(p.name));
      break;
    }
    case CUPTI_CBID_NVTX_nvtxNameCudaStreamA:
    case CUPTI_CBID_NVTX_nvtxNameCuStreamA: {
      // Both structs are {stream handle, const char* name}.
      const auto& p = params<nvtxNameCudaStreamA_params>(data);
      uint32_t streamId = 0;
      if (p.name && ids_.streamId(reinterpret_cast<CUstream>(p.stream), &streamId))
        recorder_.nameStream(streamId, p.name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxNameCudaStreamW:
    case CUPTI_CBID_NVTX_nvtxNameCuStreamW: {
      const auto& p = params<nvtxNameCudaStreamW_params>(data);
      uint32_t streamId = 0;
      if (ids_.streamId(reinterpret_cast<CUstream>(p.stream), &streamId))
        recorder_.nameStream(streamId, wideToUtf8(p.name));
      break;
    }
    // Records carry CUPTI's context id, not the handle: named by that id.
    // The W call reaches here only if CUPTI reports it; otherwise
    // nvtx_wide.cpp sends it to the A handler, converted.
    case CUPTI_CBID_NVTX_nvtxNameCuContextA: {
      const auto& p = params<nvtxNameCuContextA_params>(data);
      uint32_t contextId = 0;
      if (p.name && ids_.contextId(p.context, &contextId)) recorder_.nameContext(contextId, p.name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxNameCuContextW: {
      const auto& p = params<nvtxNameCuContextW_params>(data);
      uint32_t contextId = 0;
      if (p.name && ids_.contextId(p.context, &contextId)) recorder_.nameContext(contextId, wideToUtf8(p.name));
      break;
    }
    case CUPTI_CBID_NVTX_nvtxNameCudaDeviceA: {
      const auto& p = params<nvtxNameCudaDeviceA_params>(data);
      if (p.name && p.device >= 0) recorder_.nameDevice(static_cast<uint32_t>(p.device), p.name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxNameCuDeviceA: {
      const auto& p = params<nvtxNameCuDeviceA_params>(data);
      if (p.name && p.device >= 0) recorder_.nameDevice(static_cast<uint32_t>(p.device), p.name);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxNameCudaDeviceW: {
      const auto& p = params<nvtxNameCudaDeviceW_params>(data);
      if (p.device >= 0) recorder_.nameDevice(static_cast<uint32_t>(p.device), wideToUtf8(p.name));
      break;
    }
    default:
      break;  // categories, events, sync objects: not recorded yet
  }
}

}  // namespace cuptitrace
