// The tracer: the one object that owns the tracing state of the process.
// Created once, on the first entry point that runs, and never destroyed:
// exit-time destruction order is not ours to control.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

#include "collectors/activity_collector.h"
#include "collectors/callback_subscriber.h"
#include "collectors/capture_control.h"
#include "collectors/cupti_detach.h"
#include "collectors/external_ids.h"
#include "collectors/fork_guard.h"
#include "collectors/nvtx_callbacks.h"
#include "collectors/nvtx_recorder.h"
#include "collectors/osrt_recorder.h"
#include "collectors/pm_sampling.h"
#include "core/config.h"
#include "core/output_name.h"
#include "core/fault_boundary.h"
#include "core/trace.h"
#include "injection/ending.h"

namespace cuptitrace {

// Whole milliseconds since `t`: the exit's steps in the log (CUPTITRACE_LOG_LEVEL=info).
inline long long millisecondsSince(std::chrono::steady_clock::time_point t) {
  return static_cast<long long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t).count());
}

class Tracer {
 public:
  static Tracer& instance();
  // An exit handler: GPU metrics stop while the program's contexts live.
  static void stopGpuMetricsAtExit();

  // Starts tracing once per process; later calls do nothing. Never throws.
  void start();
  // Stops collection and writes the outputs; runs once, at exit.
  void finish();
  // The same, on the watcher thread, for an ending that skips the exit
  // handlers (a signal, a fault, _exit, exec): the whole trace goes to the
  // spill journal (or the native trace) before the outputs; a signal's
  // ending is said first.
  void finishAtEnding(const Ending& ending);
  bool active() const { return active_.load(); }
  // The public API's ids and scopes; nullptr when tracing is off.
  ExternalIds* externalIds() { return active() ? externalIds_.get() : nullptr; }
  // The public C API's boundary (public_api.cpp): counted into the trace.
  FaultBoundary& publicApiBoundary() { return publicApi_; }
  // An OpenACC runtime called acc_register_library (openacc_entry.cpp):
  // with the openacc kind selected, starts tracing if it has not started,
  // hands the runtime's registration functions to CUPTI and enables the
  // OpenACC records. Never throws.
  void registerOpenAcc(void* profRegister, void* profUnregister, void* profLookup) noexcept;
  // True when tracing runs and follows NVTX (to record it, or for capture
  // windows over NVTX ranges): only then is NVTX handed to CUPTI. Never in a
  // forked child, nor once CUPTI is detached.
  // Puts our handlers of NVTX's range and mark calls in NVTX's table
  // (collectors/nvtx_handlers.h), after CUPTI's are installed.
  void takeNvtxCalls(const void* nvtxExportTable);
  bool recordsNvtx() const {
    return active() && !inForkedChild() && !cuptiBarred() &&
           ((config_.activities & kActivityNvtx) != 0 || config_.capture.needsNvtx());
  }

 private:
  Tracer() = default;
  bool startCollection();
  void startCapture();
  // Makes the output directory, or falls back to a temporary one (outputPattern_).
  void useOutputDirectory(const OutputNameInputs& inputs);
  void startOsrt();
  void startGpuMetrics();
  void finishWith(const Ending& ending);
  void finishCollection();
  // `nativeFirst`: the native trace first, even if not asked for (an ending
  // by signal with no journal to hold the trace meanwhile).
  void writeOutputs(bool nativeFirst);
  bool didNoGpuWork() const;
  void keepRecordsInWindows();

  std::once_flag startOnce_;
  std::once_flag finishOnce_;
  std::atomic<bool> active_{false};
  Config config_;
  std::string outputPattern_;  // config_.output, or its file part in a temporary directory
  std::string outputMessage_;  // the last thing said of the output directory
  Trace trace_;
  NvtxRecorder nvtxRecorder_;
  std::unique_ptr<NvtxCallbacks> nvtxCallbacks_;
  std::unique_ptr<CallbackSubscriber> subscriber_;
  std::unique_ptr<PmSampler> pmSampler_;  // the gpu_metrics activity
  std::unique_ptr<ActivityCollector> collector_;
  std::unique_ptr<CaptureControl> capture_;
  std::unique_ptr<CuptiDetach> detach_;  // with capture windows: past the last one
  std::unique_ptr<ExternalIds> externalIds_;  // set before tracing is active
  OsrtRecorder osrtRecorder_;  // only with CUPTITRACE_CAPTURE other than all
  std::atomic<bool> osrtReady_{false};  // the osrt activity can record (startOsrt)
  std::atomic<bool> contextCreated_{false};  // a CUDA context was made in this process
  FaultBoundary publicApi_{"public_api"};
  FaultBoundary openAccBoundary_{"openacc_register"};
  std::atomic<ActivityCollector*> drainToWake_{nullptr};  // once started: NVTX backlogs wake it
};

}  // namespace cuptitrace
