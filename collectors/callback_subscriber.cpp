#include "collectors/callback_subscriber.h"

#include <dlfcn.h>

#include "collectors/cupti_check.h"
#include "collectors/fork_guard.h"

namespace cuptitrace {
namespace {
const char* resultText(CUptiResult status) {
  const char* text = nullptr;
  if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || text == nullptr) return "unknown error";
  return text;
}

// The name CUPTI gives us in another tool's refusal ("CUPTI for cuptitrace").
constexpr char kSubscriberName[] = "cuptitrace";

using SubscribeV2 = CUptiResult(CUPTIAPI*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*,
                                           CUpti_SubscriberParams*);

// cuptiSubscribe_v2, from the libcupti actually loaded (a program may bring
// an older one that lacks it); nullptr when it has none.
SubscribeV2 findSubscribeV2() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) == 0 || info.dli_fname == nullptr) return nullptr;
  void* lib = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (lib == nullptr) return nullptr;
  auto fn = reinterpret_cast<SubscribeV2>(::dlsym(lib, "cuptiSubscribe_v2"));
  ::dlclose(lib);  // a NOLOAD handle: the library stays
  return fn;
}
}  // namespace

CallbackSubscriber::~CallbackSubscriber() { unsubscribe(); }

bool CallbackSubscriber::subscribe(std::string& error) {
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = {};
  CUptiResult status;
  if (const SubscribeV2 subscribeV2 = findSubscribeV2()) {
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = kSubscriberName;
    params.oldSubscriberName = holder;
    params.oldSubscriberSize = sizeof holder;
    status = CUPTI_CHECK(subscribeV2(&handle_, dispatch, this, &params));
  } else {
    status = CUPTI_CHECK(cuptiSubscribe(&handle_, dispatch, this));
  }
  if (status != CUPTI_SUCCESS) {
    handle_ = nullptr;
    holder[sizeof holder - 1] = '\0';
    if (status != CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      error = std::string("cuptiSubscribe: ") + resultText(status);
    } else if (holder[0] != '\0') {
      error = std::string("CUPTI is already in use in this process by \"") + holder +
              "\" (CUPTI serves one tool at a time)";
    } else {
      error = "CUPTI is already in use by another tool in this process (a profiler or a second tracer; "
              "CUPTI serves one tool at a time)";
    }
    return false;
  }
  CUPTI_CHECK(cuptiEnableCallback(1, handle_, CUPTI_CB_DOMAIN_RESOURCE,
                                  CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING));
  CUPTI_CHECK(cuptiEnableCallback(1, handle_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED));
  return true;
}

bool CallbackSubscriber::enableNvtx(NvtxCallbacks* nvtx, std::string& error) {
  if (handle_ == nullptr) return false;
  nvtx_ = nvtx;
  const CUptiResult status = CUPTI_CHECK(cuptiEnableDomain(1, handle_, CUPTI_CB_DOMAIN_NVTX));
  if (status != CUPTI_SUCCESS) {
    error = std::string("cuptiEnableDomain(NVTX): ") + resultText(status);
    nvtx_ = nullptr;
    return false;
  }
  nvtxOn_.store(true, std::memory_order_release);
  return true;
}

void CallbackSubscriber::nvtxCall(void* self, CUpti_CallbackId cbid, const CUpti_NvtxData* data) noexcept {
  auto* subscriber = static_cast<CallbackSubscriber*>(self);
  if (subscriber == nullptr || !subscriber->nvtxOn_.load(std::memory_order_acquire)) return;
  subscriber->boundary_.run([&] { subscriber->route(CUPTI_CB_DOMAIN_NVTX, cbid, data); });
}

bool CallbackSubscriber::enableProfilerCalls(std::string& error) {
  if (handle_ == nullptr) return false;
  const struct {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId cbid;
  } calls[] = {
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop},
  };
  for (const auto& c : calls) {
    const CUptiResult status = CUPTI_CHECK(cuptiEnableCallback(1, handle_, c.domain, c.cbid));
    if (status != CUPTI_SUCCESS) {
      error = std::string("cuptiEnableCallback(profiler start/stop): ") + resultText(status);
      return false;
    }
  }
  return true;
}

CUptiResult CallbackSubscriber::enableApiCallbacks(bool on) {
  if (handle_ == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  const CUptiResult runtime = CUPTI_CHECK(cuptiEnableDomain(on ? 1 : 0, handle_, CUPTI_CB_DOMAIN_RUNTIME_API));
  const CUptiResult driver = CUPTI_CHECK(cuptiEnableDomain(on ? 1 : 0, handle_, CUPTI_CB_DOMAIN_DRIVER_API));
  return runtime != CUPTI_SUCCESS ? runtime : driver;
}

void CallbackSubscriber::unsubscribe() {
  nvtxOn_.store(false, std::memory_order_release);
  if (handle_ == nullptr) return;
  // Detached: the subscription went with CUPTI, and a call would attach it again.
  if (!cuptiBarred()) cuptiUnsubscribe(handle_);
  handle_ = nullptr;
}

void CUPTIAPI CallbackSubscriber::dispatch(void* userdata, CUpti_CallbackDomain domain,
                                          CUpti_CallbackId cbid, const void* cbdata) noexcept {
  auto* self = static_cast<CallbackSubscriber*>(userdata);
  if (self == nullptr) return;
  self->boundary_.run([&] { self->route(domain, cbid, cbdata); });
}

void CallbackSubscriber::route(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  // A forked child touches nothing of ours: locks held by the parent's
  // threads at fork time would never be released there.
  if (inForkedChild()) {
    announceForkedChild();
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    const auto* data = static_cast<const CUpti_NvtxData*>(cbdata);
    CaptureControl* capture = capture_.load(std::memory_order_acquire);
    if (capture == nullptr) {
      if (nvtx_ != nullptr) nvtx_->handle(cbid, data);
      return;
    }
    capture->nvtxOpening(cbid, data);
    if (nvtx_ != nullptr && capture->admitNvtx(cbid, data)) nvtx_->handle(cbid, data);
    capture->nvtxClosing(cbid, data);
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (cbdata == nullptr) return;
    CuptiDetach* detach = detach_.load(std::memory_order_acquire);
    if (detach != nullptr && static_cast<const CUpti_CallbackData*>(cbdata)->callbackSite == CUPTI_API_EXIT)
      detach->onApiExit();
    CaptureControl* capture = capture_.load(std::memory_order_acquire);
    if (capture == nullptr) return;
    const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    const bool start = runtime ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
                               : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
    const bool stop = runtime ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000
                              : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
    if (start || stop)
      capture->profilerCall(start, static_cast<const CUpti_CallbackData*>(cbdata)->callbackSite);
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    if (!contextDestroyHook_) return;
    uint32_t device = UINT32_MAX;
    const auto* resource = static_cast<const CUpti_ResourceData*>(cbdata);
    if (resource != nullptr && resource->context != nullptr &&
        cuptiGetDeviceId(resource->context, &device) != CUPTI_SUCCESS)
      device = UINT32_MAX;
    contextDestroyHook_(device);
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    if (!contextCreateHook_) return;
    uint32_t device = UINT32_MAX;
    const auto* resource = static_cast<const CUpti_ResourceData*>(cbdata);
    if (resource != nullptr && resource->context != nullptr &&
        cuptiGetDeviceId(resource->context, &device) != CUPTI_SUCCESS)
      device = UINT32_MAX;
    contextCreateHook_(device);
  }
}

}  // namespace cuptitrace
