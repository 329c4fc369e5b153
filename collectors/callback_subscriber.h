// The callback API side: one CUPTI subscriber for the process. It receives
// NVTX calls (when NVTX is recorded or opens capture windows), the program's
// cudaProfilerStart/Stop calls (profiler capture windows) and resource
// events: before a context is destroyed its records are flushed, so work of
// destroyed contexts is kept. In a forked child every callback returns at once.
#pragma once

#include <cupti.h>

#include <atomic>
#include <functional>
#include <string>

#include "collectors/capture_control.h"
#include "collectors/cupti_detach.h"
#include "collectors/nvtx_callbacks.h"
#include "core/fault_boundary.h"
#include "core/trace.h"

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
  // Routes NVTX calls to `nvtx` (which must outlive the subscriber; nullptr
  // when NVTX is not recorded) and to the capture control, if any.
  bool enableNvtx(NvtxCallbacks* nvtx, std::string& error);
  // The NVTX calls our own handlers take (nvtx_handlers.h), as CUPTI would
  // have delivered them: `self` is the subscriber. Ignored unless NVTX is
  // enabled and the subscription stands.
  static void nvtxCall(void* self, CUpti_CallbackId cbid, const CUpti_NvtxData* data) noexcept;
  // Capture windows: NVTX calls and profiler calls go to `capture` (which
  // must outlive the subscriber) once set.
  void setCapture(CaptureControl* capture) { capture_.store(capture, std::memory_order_release); }
  // cudaProfilerStart/Stop and cuProfilerStart/Stop reach the capture control.
  bool enableProfilerCalls(std::string& error);
  // Detaching CUPTI: runtime and driver API calls reach `detach` at their
  // exit (it must outlive the subscriber) once these callbacks are on.
  void setDetach(CuptiDetach* detach) { detach_.store(detach, std::memory_order_release); }
  CUptiResult enableApiCallbacks(bool on);
  // Called before a context is destroyed (on the program's thread).
  void onContextDestroy(std::function<void(uint32_t device)> hook) { contextDestroyHook_ = std::move(hook); }
  // Called after a context is created (on the program's thread), with its
  // device (UINT32_MAX when CUPTI does not say).
  void onContextCreate(std::function<void(uint32_t device)> hook) { contextCreateHook_ = std::move(hook); }
  void unsubscribe();
  // The callback boundary's counts into `trace` (fault_boundary.h).
  void publish(Trace& trace) const { boundary_.publish(trace.counters); }

 private:
  // CUPTI's entry: nothing thrown below it passes (the boundary).
  static void CUPTIAPI dispatch(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* cbdata) noexcept;
  void route(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata);

  CUpti_SubscriberHandle handle_ = nullptr;
  NvtxCallbacks* nvtx_ = nullptr;
  std::atomic<bool> nvtxOn_{false};  // enableNvtx succeeded, not yet unsubscribed
  std::atomic<CaptureControl*> capture_{nullptr};
  std::atomic<CuptiDetach*> detach_{nullptr};
  std::function<void(uint32_t)> contextDestroyHook_;
  std::function<void(uint32_t)> contextCreateHook_;
  FaultBoundary boundary_{"cupti_callback"};
};

}  // namespace cuptitrace
