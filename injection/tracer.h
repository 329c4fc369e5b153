// The tracer: the one object that owns the tracing state of the process.
// Created once, on the first entry point that runs, and never destroyed:
// exit-time destruction order is not ours to control.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "collectors/activity_collector.h"
#include "collectors/callback_subscriber.h"
#include "collectors/nvtx_callbacks.h"
#include "collectors/nvtx_recorder.h"
#include "core/config.h"
#include "core/trace.h"

namespace cuptitrace {

class Tracer {
 public:
  static Tracer& instance();

  // Starts tracing once per process; later calls do nothing. Never throws.
  void start();
  // Stops collection and writes the outputs; runs once, at exit.
  void finish();
  bool active() const { return active_.load(); }
  // True when tracing runs and records NVTX: only then is NVTX handed to CUPTI.
  bool recordsNvtx() const { return active() && (config_.activities & kActivityNvtx) != 0; }

 private:
  Tracer() = default;
  bool startCollection();
  void finishCollection();
  void writeOutputs();

  std::once_flag startOnce_;
  std::once_flag finishOnce_;
  std::atomic<bool> active_{false};
  Config config_;
  Trace trace_;
  NvtxRecorder nvtxRecorder_;
  std::unique_ptr<NvtxCallbacks> nvtxCallbacks_;
  std::unique_ptr<CallbackSubscriber> subscriber_;
  std::unique_ptr<ActivityCollector> collector_;
};

}  // namespace cuptitrace
