// The callback API side: one CUPTI subscriber for the process. It receives
// NVTX calls (when NVTX tracing is on) and resource events: before a context
// is destroyed its records are flushed, so work of destroyed contexts is kept.
#pragma once

#include <cupti.h>

#include <functional>
#include <string>

#include "collectors/nvtx_callbacks.h"

namespace cuptitrace {

class CallbackSubscriber {
 public:
  CallbackSubscriber() = default;
  ~CallbackSubscriber();
  CallbackSubscriber(const CallbackSubscriber&) = delete;
  CallbackSubscriber& operator=(const CallbackSubscriber&) = delete;

  // Subscribes. Fails (with CUPTI's reason in `error`) when another tool,
  // such as a profiler inside the program, already holds the subscription.
  bool subscribe(std::string& error);
  // Routes NVTX calls to `nvtx` (which must outlive the subscriber).
  bool enableNvtx(NvtxCallbacks* nvtx, std::string& error);
  // Called before a context is destroyed (on the program's thread).
  void onContextDestroy(std::function<void()> hook) { contextDestroyHook_ = std::move(hook); }
  void unsubscribe();

 private:
  static void CUPTIAPI dispatch(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* cbdata);

  CUpti_SubscriberHandle handle_ = nullptr;
  NvtxCallbacks* nvtx_ = nullptr;
  std::function<void()> contextDestroyHook_;
};

}  // namespace cuptitrace
