#include "collectors/callback_subscriber.h"

#include "collectors/cupti_check.h"

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

void CallbackSubscriber::unsubscribe() {
  if (handle_ == nullptr) return;
  cuptiUnsubscribe(handle_);
  handle_ = nullptr;
}

void CUPTIAPI CallbackSubscriber::dispatch(void* userdata, CUpti_CallbackDomain domain,
                                          CUpti_CallbackId cbid, const void* cbdata) {
  auto* self = static_cast<CallbackSubscriber*>(userdata);
  if (self == nullptr) return;
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    if (self->nvtx_ != nullptr) self->nvtx_->handle(cbid, static_cast<const CUpti_NvtxData*>(cbdata));
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    if (self->contextDestroyHook_) self->contextDestroyHook_();
  }
}

}  // namespace cuptitrace
