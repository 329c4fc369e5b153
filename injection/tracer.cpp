#include "injection/tracer.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "collectors/cupti_check.h"
#include "collectors/cupti_layouts.h"
#include "collectors/nvtx_handlers.h"
#include "collectors/osrt_state.h"
#include "core/journal.h"
#include "core/writer_threads.h"
#include "exporters/export_all.h"
#include "core/log.h"
#include "core/output_dir.h"
#include "core/output_name.h"
#include "core/own_threads.h"
#include "core/version.h"
#include "collectors/cupti_peers.h"
#include "injection/redirected_calls.h"
#include "injection/process_info.h"
#include "injection/signal_text.h"
#include "injection/signals.h"

extern char** environ;

namespace cuptitrace {
namespace {

// The store's share of CUPTITRACE_MAX_MEMORY. The rest is kept for memory
// the tracer holds outside the store and cannot spill: CUPTI's own tables
// (some per GPU), the activity buffers it is filling, records on their way
// into the store. Measured at 40-55 MiB with 10 million NVTX ranges
// (tests/gpu/nvtx_memory.sh).
uint64_t storeBudget(uint64_t cap) { return cap - std::min<uint64_t>(cap / 16, uint64_t{32} << 20); }

void finishAtExit() {
  // A polite signal's ending under way: its watcher writes, then ends the
  // process with the signal's status, as it would end untraced.
  if (waitForSignalEnding()) return;
  Tracer::instance().finish();
}
// On the watcher thread.
void writeAtEnding(const Ending& ending) { Tracer::instance().finishAtEnding(ending); }

// CUPTI's clock, carried on once CUPTI is detached (collectors/cupti_detach.h).
uint64_t cuptiNow() { return traceClockNs(); }

// How long the exit path waits for a detach under way on a program thread.
constexpr int kDetachSettleMs = 500;

int32_t driverVersion() {
  // Looked up at run time: the library does not link the driver itself, and
  // the runtime loads it privately, so ask for the loaded copy by name.
  using Fn = int (*)(int*);
  void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  auto fn = reinterpret_cast<Fn>(::dlsym(driver != nullptr ? driver : RTLD_DEFAULT, "cuDriverGetVersion"));
  int version = 0;
  if (fn != nullptr && fn(&version) == 0) return version;
  return 0;
}


}  // namespace

Tracer& Tracer::instance() {
  static Tracer* tracer = new Tracer();  // never destroyed, see tracer.h
  return *tracer;
}

void Tracer::takeNvtxCalls(const void* nvtxExportTable) {
  if (subscriber_ == nullptr) return;
  const int taken = installNvtxHandlers(nvtxExportTable, &CallbackSubscriber::nvtxCall, subscriber_.get());
  logger().debug("NVTX: {} range and mark calls handled by cuptitrace", taken);
}

void Tracer::start() {
  std::call_once(startOnce_, [this] {
    try {
      if (startCollection()) {
        active_ = true;
        // CUPTI's state does not survive fork: a child must neither flush nor
        // write the parent's records (collectors/fork_guard.h).
        installForkGuard(config_.logLevel >= LogLevel::Warn);
        std::atexit(finishAtExit);
        installSignalHandlers(writeAtEnding);
        // After the handlers: the program's later signal calls keep them.
        redirectProgramCalls();
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuptitrace: tracing is off for this process: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "cuptitrace: tracing is off for this process: unexpected error\n");
    }
  });
}

bool Tracer::startCollection() {
  std::vector<std::string> messages;
  config_ = parseConfig([](const char* name) { return std::getenv(name); }, messages);
  setLogLevel(config_.logLevel);
  for (const auto& m : messages) logger().warn("{}", m);
  for (const auto& m : unknownVariableMessages(environ)) logger().warn("{}", m);

  const ProcessInfo process = currentProcessInfo();
  trace_.meta.toolVersion = kVersion;
  trace_.meta.pid = process.pid;
  trace_.meta.hostName = process.hostName;
  trace_.meta.processName = process.processName;
  trace_.meta.commandLine = process.commandLine;
  trace_.meta.rank = process.rank.rank;
  trace_.meta.localRank = process.rank.localRank;
  trace_.meta.worldSize = process.rank.worldSize;
  trace_.meta.rankSource = process.rank.source;
  trace_.meta.config = describeConfig(config_);
  trace_.store.setMaxBytes(storeBudget(config_.maxMemory));

  uint32_t cuptiVersion = 0;
  cuptiGetVersion(&cuptiVersion);
  trace_.meta.cuptiVersion = cuptiVersion;
  // Before anything is enabled: a libcupti whose records we cannot read is refused (collectors/cupti_layouts.h).
  const LayoutDecision layout = checkLoadedCupti(cuptiVersion);
  if (!layout.supported()) {
    std::fprintf(stderr, "%s\n", layout.message.c_str());
    return false;
  }
  logger().info("CUPTI {} from {}", cuptiVersionText(cuptiVersion), layout.libraryPath);
  // OS thread ids, so API records line up with nvtxNameOsThread and gettid.
  CUPTI_CHECK(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));

  std::string error;
  subscriber_ = std::make_unique<CallbackSubscriber>();
  if (!subscriber_->subscribe(error)) {
    // CUPTI's own word for a missing driver is "unknown error": say what it means.
    void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (driver == nullptr) driver = ::dlopen("libcuda.so.1", RTLD_LAZY);
    if (driver == nullptr) error = "no CUDA driver (libcuda.so.1) could be loaded (" + error + ")";
    std::fprintf(stderr, "cuptitrace: tracing is off for this process: %s; the program runs untraced\n",
                 error.c_str());
    subscriber_.reset();
    return false;
  }
  // CUPTI is ours now: a framework profiler in the program will find it taken.
  const std::string peers = cuptiPeersMessage(loadedCuptiPeers());
  if (!peers.empty()) std::fprintf(stderr, "cuptitrace: %s\n", peers.c_str());
  if (config_.capture.mode != CaptureMode::All) {
    // Past the last window CUPTI is detached: the program runs as if untraced.
    detach_ = std::make_unique<CuptiDetach>(CuptiDetach::Steps{
        [this] {
          externalIds_->stop();
          if (pmSampler_) pmSampler_->stop();
          collector_->prepareDetach();
        },
        [this](bool on) { return subscriber_->enableApiCallbacks(on); }, silenceNvtx, nullptr});
    // Set before NVTX is enabled, so no NVTX call is recorded outside a window;
    // it takes events once started, after the collector.
    capture_ = std::make_unique<CaptureControl>(
        config_.capture, CaptureControl::Actions{[this](bool on) {
                                                   const bool ok = collector_->setRecording(on);
                                                   // GPU metrics are sampled inside the windows only.
                                                   if (pmSampler_) pmSampler_->setCapturing(on);
                                                   // C library calls follow the windows too.
                                                   if (osrtReady_.load(std::memory_order_acquire)) {
                                                     if (on) osrt::arm(&osrtRecorder_, cuptiNow);
                                                     else osrt::disarm();
                                                   }
                                                   return ok;
                                                 },
                                                 [this] { collector_->flush(); },
                                                 [this] { return detach_->advance(); },
                                                 // The window's first kernels sampled too.
                                                 [this] {
                                                   if (pmSampler_) pmSampler_->waitCapturing();
                                                 }});
    subscriber_->setCapture(capture_.get());
    subscriber_->setDetach(detach_.get());
  }
  // NVTX records wait on the program's threads until the drain moves them:
  // they count against the memory cap, and many of them call the drain early.
  trace_.store.addMemoryUser([this] { return nvtxRecorder_.bytesInMemory(); });
  nvtxRecorder_.onBacklog([this] {
    if (ActivityCollector* c = drainToWake_.load(std::memory_order_acquire)) c->wake();
  });
  const bool recordNvtx = (config_.activities & kActivityNvtx) != 0;
  if (recordNvtx) nvtxCallbacks_ = std::make_unique<NvtxCallbacks>(nvtxRecorder_, trace_.strings);
  if ((recordNvtx || config_.capture.needsNvtx()) && !subscriber_->enableNvtx(nvtxCallbacks_.get(), error))
    logger().warn("NVTX calls cannot be followed (no NVTX records, no NVTX capture windows): {}", error);
  if (config_.activities & kActivityGpuMetrics) startGpuMetrics();
  collector_ = std::make_unique<ActivityCollector>(
      trace_, config_, [this] {
        nvtxRecorder_.collect(trace_.store, false, 0);
        osrtRecorder_.collect(trace_.store);
        if (pmSampler_) pmSampler_->collect(trace_.store);
      });
  if (!collector_->start(error)) {
    std::fprintf(stderr, "cuptitrace: tracing is off for this process: %s; the program runs untraced\n",
                 error.c_str());
    subscriber_->unsubscribe();
    collector_.reset();
    return false;
  }
  drainToWake_.store(collector_.get(), std::memory_order_release);
  // Records of a context are flushed before it goes away (cudaDeviceReset, cuCtxDestroy).
  subscriber_->onContextDestroy([this](uint32_t device) {
    // A context going (cudaDeviceReset, the runtime's teardown at exit):
    // its device's sampling stops while the context still lives; CUPTI's
    // PM sampling stop crashes or spins once it is gone.
    if (pmSampler_ && device != UINT32_MAX) pmSampler_->removeDevice(device);
    collector_->flush();
  });
  subscriber_->onContextCreate([this](uint32_t device) {
    contextCreated_.store(true, std::memory_order_relaxed);
    collector_->onContextCreated();
    if (pmSampler_ && device != UINT32_MAX) {
      pmSampler_->addDevice(device);
      // Registered now, after the CUDA runtime's own exit handler, so it runs
      // before that handler tears the contexts down: sampling stops and its
      // last samples are decoded while they live.
      static std::once_flag once;
      std::call_once(once, [] { std::atexit(&Tracer::stopGpuMetricsAtExit); });
    }
  });
  // Before the capture thread starts: a detach stops it.
  externalIds_ = std::make_unique<ExternalIds>(nvtxRecorder_, trace_.strings);
  if (capture_) startCapture();
  if (config_.activities & kActivityOsrt) startOsrt();

  trace_.meta.startTimestampNs = cuptiNow();
  trace_.meta.startRealtimeNs = realtimeNs();
  // Read back to back, the two clocks give the offset merge aligns processes with.
  trace_.meta.realtimeOffsetNs =
      static_cast<int64_t>(trace_.meta.startRealtimeNs - trace_.meta.startTimestampNs);
  // After the start times: the journal keeps the metadata as it is now.
  OutputNameInputs spillName;
  spillName.pid = process.pid;
  spillName.host = process.hostName;
  spillName.env = [](const char* name) { return std::getenv(name); };
  // The directory is made (or replaced) now: the journal goes there too.
  outputPattern_ = config_.output;
  useOutputDirectory(spillName);
  const std::string journal = spillPathFor(outputPattern_, spillName);
  enableSpillJournal(trace_, journal, config_.spill);
  // What a repeated signal, or a fault of ours, says is kept.
  if (config_.spill != SpillMode::Off) noteJournal(journal.c_str());
  logger().info("tracing {} (pid {}): {}", process.processName, process.pid,
                activityNames(config_.activities));
  return true;
}

void Tracer::useOutputDirectory(const OutputNameInputs& inputs) {
  const OutputPlace place = prepareOutputDirectory(outputPattern_, inputs);
  if (!place.message.empty() && place.message != outputMessage_) {
    // Said once for each change of place, at start or at the end; a directory
    // made as asked is no news.
    if (place.pattern != outputPattern_ || !place.usable) std::fprintf(stderr, "cuptitrace: %s\n", place.message.c_str());
    else logger().info("{}", place.message);
    outputMessage_ = place.message;
  }
  outputPattern_ = place.pattern;
}

void Tracer::startCapture() {
  const std::string mode = captureSpecText(config_.capture);
  std::string error;
  if (!capture_->start(error)) {
    // No longer consulted, but kept alive: a callback may be reading it.
    subscriber_->setCapture(nullptr);
    [[maybe_unused]] static CaptureControl* const retired = capture_.release();
    logger().warn("CUPTITRACE_CAPTURE={} is off, the whole run is traced: {}", mode, error);
    return;
  }
  if (config_.capture.needsProfilerCalls() && !subscriber_->enableProfilerCalls(error))
    logger().warn("CUPTITRACE_CAPTURE=profiler: cudaProfilerStart cannot be followed, no window will open: {}",
                  error);
  if (config_.capture.mode == CaptureMode::Signal &&
      !installToggleSignal(config_.capture.signal, capture_->signalFd()))
    logger().warn("CUPTITRACE_CAPTURE={}: the signal handler could not be installed, no window will open", mode);
  logger().info("capture windows: {}", mode);
}

// The osrt activity: C library calls that block, recorded by the wrappers
// of the preload library (preload/), which the tracer connects to.
void Tracer::startOsrt() {
  if (!osrt::connectPreloaded()) {
    logger().warn(
        "osrt: C library calls are not recorded: {} must be preloaded (LD_PRELOAD, which the cuptitrace "
        "command sets when osrt is selected)",
        "libcuptitrace-osrt.so");
    return;
  }
  osrtRecorder_.internNames(trace_.strings);
  osrtRecorder_.setThreshold(config_.osrtThresholdNs);
  osrtReady_.store(true, std::memory_order_release);
  // With capture windows, only inside one; from now on the windows arm and
  // disarm it as they open and close.
  if (!capture_ || capture_->on()) osrt::arm(&osrtRecorder_, cuptiNow);
}

// The gpu_metrics activity: the devices' counters sampled on a thread of
// its own (collectors/pm_sampling.h), from each device's first context on.
void Tracer::startGpuMetrics() {
  std::unique_ptr<PmBackend> backend = makeCuptiPmBackend();
  // The GPU tests force the failures a lent machine never meets by itself.
  if (const char* fault = std::getenv("CUPTITRACE_TEST_GPU_METRICS_FAULT"); fault != nullptr && *fault != 0) {
    if (auto faulty = makeFaultyPmBackend(fault, std::move(backend))) backend = std::move(faulty);
    else backend = makeCuptiPmBackend();
  }
  // And compare the hardware buffer's size, the decode period and the
  // images' room (in MiB, us and ms of samples).
  PmSampler::Tuning tuning{};
  auto number = [](const char* name) -> uint64_t {
    const char* text = std::getenv(name);
    return text != nullptr ? std::strtoull(text, nullptr, 10) : 0;
  };
  tuning.hardwareBufferBytes = number("CUPTITRACE_TEST_GPU_METRICS_BUFFER_MB") << 20;
  tuning.decodePeriodNs = number("CUPTITRACE_TEST_GPU_METRICS_DECODE_US") * 1000;
  tuning.imageRoomNs = number("CUPTITRACE_TEST_GPU_METRICS_IMAGE_MS") * 1'000'000;
  pmSampler_ = std::make_unique<PmSampler>(
      trace_.strings, config_, std::move(backend),
      [](const std::string& line) { std::fprintf(stderr, "cuptitrace: %s\n", line.c_str()); }, tuning);
  trace_.store.addMemoryUser([this] { return pmSampler_->bytesInMemory(); });
  pmSampler_->start();
}

void Tracer::stopGpuMetricsAtExit() {
  Tracer& t = instance();
  if (!t.active_ || inForkedChild() || !t.pmSampler_) return;
  try {
    t.pmSampler_->stop();
  } catch (...) {
  }
}

void Tracer::finish() { finishWith(Ending{}); }

void Tracer::finishAtEnding(const Ending& ending) {
  if (!active_ || inForkedChild()) return;
  if (ending.kind == EndingKind::Signal || ending.kind == EndingKind::Fault)
    std::fprintf(stderr, "cuptitrace: %s: writing the trace, then ending as the signal would\n",
                 signal_text::signalName(ending.sig));
  finishWith(ending);
}

void Tracer::finishWith(const Ending& ending) {
  if (!active_) return;
  if (inForkedChild()) {
    announceForkedChild();
    return;
  }
  std::call_once(finishOnce_, [this, ending] {
    // A fault from here on is the tracer's (injection/signals.h).
    registerOwnThread("trace writer");
    // The export's own file writes and locks are not the program's calls.
    osrt::disarm();
    const osrt::TracerScope ours;
    try {
      const auto started = std::chrono::steady_clock::now();
      finishCollection();
      logger().info("exit: collection finished in {} ms", millisecondsSince(started));
      // Ended by a signal, _exit or exec, the process may be killed while it
      // writes (Slurm sends SIGKILL 30 s after SIGTERM; a waiting thread
      // gives up on a writer that stalls): the journal takes everything
      // first, on disk, for `cuptitrace recover`. Without one, the native
      // trace (compact, complete) is written first, asked for or not.
      const bool durableFirst = writesDurableFirst(ending);
      bool durable = false;
      if (durableFirst && sealSpillJournal(trace_)) {
        durable = true;
        trace_.counters["spill.sealed"] = 1;
        noteJournalSealed();
        std::fprintf(stderr, "cuptitrace: %s holds the whole trace until the outputs are written\n",
                     trace_.store.spillFile()->path().c_str());
      }
      writeOutputs(durableFirst && !durable);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuptitrace: could not write the trace: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "cuptitrace: could not write the trace: unexpected error\n");
    }
    unregisterOwnThread();
  });
}

void Tracer::finishCollection() {
  // No window opens or closes from here on; the collector flushes what was recorded.
  if (capture_) capture_->stop();
  // A detach still waiting for a CUDA call is withdrawn. After one, CUPTI is
  // not called again: it would attach once more.
  const bool detached = detach_ && detach_->settle(kDetachSettleMs);
  if (!detached) externalIds_->stop();  // else stopped before the detach
  // Sampling stops first: its last samples are decoded while CUPTI is whole.
  // At the process's end the devices' contexts may be gone: no CUPTI call
  // then (a context destroyed before has stopped its device already).
  if (pmSampler_ && !detached) pmSampler_->stop(/*atExit=*/true);
  collector_->stop();
  const uint64_t end = cuptiNow();
  trace_.meta.endTimestampNs = end;
  if (capture_) {
    trace_.meta.captureWindows = capture_->windows(end);
    keepRecordsInWindows();
  }
  // The drain thread has stopped: this thread is now the store's only writer.
  nvtxRecorder_.collect(trace_.store, true, end);
  if (pmSampler_) {
    pmSampler_->collect(trace_.store);
    pmSampler_->publish(trace_);
  }
  logger().debug("memory: peak {} KiB of the {} KiB budget; {} chunks spilled",
                 trace_.store.peakMemoryInUse() >> 10, trace_.store.maxBytes() >> 10,
                 trace_.store.spilledChunks());
  nvtxRecorder_.publish(trace_);
  externalIds_->publish(trace_);
  if (config_.activities & kActivityOsrt) {
    osrtRecorder_.collect(trace_.store);
    osrtRecorder_.publish(trace_);
  }
  collector_->publishCounters();
  if (detach_) detach_->publish(trace_);
  // What the fault boundaries caught (core/fault_boundary.h).
  subscriber_->publish(trace_);
  if (nvtxCallbacks_) nvtxCallbacks_->publish(trace_);
  if (capture_) capture_->publish(trace_);
  publicApi_.publish(trace_.counters);
  openAccBoundary_.publish(trace_.counters);
  // What the outputs hold besides the records (the timeline writers'
  // windows and pieces, the reports' durations: exportRoomBytes): records
  // make that much room under the memory cap, going to the spill file. The
  // native trace alone needs none.
  uint64_t records = 0;
  for (int k = 0; k < kRecordKindCount; ++k) records += trace_.store.count(static_cast<RecordKind>(k));
  makeRoomForExport(trace_, exportRoomBytes(config_.formats, config_.summary != SummaryMode::None, records,
                                            writerThreads()));
  publishSpillCounters(trace_);
  subscriber_->unsubscribe();
  trace_.meta.driverVersion = driverVersion();
  // Times count from the start of collection; the exporters move the base
  // earlier only if a record starts before it.
  trace_.meta.baseTimestampNs = trace_.meta.startTimestampNs;
}

// The lean API set and graph-level records stay on across windows
// (collectors/activity_collector.cpp): what was made outside every window
// leaves the trace here.
void Tracer::keepRecordsInWindows() {
  const std::vector<CaptureSpan>& windows = trace_.meta.captureWindows;
  const auto inWindow = [&windows](uint64_t start) {
    for (const CaptureSpan& w : windows)
      if (start >= w.startNs && start <= w.endNs) return true;
    return false;
  };
  trace_.store.retain<ApiRecord>([&inWindow](const ApiRecord& a) { return inWindow(a.start); });
  // Graph-level records are not switched with the windows either.
  trace_.store.retain<GraphRecord>([&inWindow](const GraphRecord& g) { return inWindow(g.start); });
  // GPU metrics are sampled throughout: those of the windows stay.
  trace_.store.retain<GpuMetricRecord>([&inWindow](const GpuMetricRecord& m) { return inWindow(m.start); });
}

}  // namespace cuptitrace
