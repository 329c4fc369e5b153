#include "collectors/callback_subscriber.h"

#include "collectors/cupti_check.h"
#include "collectors/fork_guard.h"

namespace cuptitrace {
namespace {
const char* resultText(CUptiResult status) {
  const char* text = nullptr;
  if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || text == nullptr) return "unknown error";
  return text;
}
}  // namespace

CallbackSubscriber::~CallbackSubscriber() { unsubscribe(); }

bool CallbackSubscriber::subscribe(std::string& error) {
  const CUptiResult status = CUPTI_CHECK(cuptiSubscribe(&handle_, dispatch, this));
  if (status != CUPTI_SUCCESS) {
    handle_ = nullptr;
    error = status == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                ? "CUPTI is already in use by another tool in this process (a profiler or a "
                  "second tracer)"
                : std::string("cuptiSubscribe: ") + resultText(status);
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
  return true;
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
    if (contextDestroyHook_) contextDestroyHook_();
  }
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    if (contextCreateHook_) contextCreateHook_();
  }
}

}  // namespace cuptitrace
