#include "injection/tracer.h"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "collectors/cupti_check.h"
#include "core/log.h"
#include "core/output_name.h"
#include "core/version.h"
#include "exporters/export_all.h"
#include "exporters/reports.h"
#include "injection/process_info.h"
#include "injection/signals.h"

extern char** environ;

namespace cuptitrace {
namespace {

// Set in a child after fork: CUPTI's state does not survive fork, so the
// child must neither flush nor write the parent's records.
std::atomic<bool> gForkedChild{false};

void finishAtExit() { Tracer::instance().finish(); }
void markForkedChild() { gForkedChild = true; }

uint64_t cuptiNow() {
  uint64_t ts = 0;
  cuptiGetTimestamp(&ts);
  return ts;
}

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

void Tracer::start() {
  std::call_once(startOnce_, [this] {
    try {
      if (startCollection()) {
        active_ = true;
        ::pthread_atfork(nullptr, nullptr, markForkedChild);
        std::atexit(finishAtExit);
        installSignalHandlers(finishAtExit);
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
  trace_.meta.config = describeConfig(config_);
  trace_.store.setMaxBytes(config_.maxMemory);

  uint32_t cuptiVersion = 0;
  cuptiGetVersion(&cuptiVersion);
  trace_.meta.cuptiVersion = cuptiVersion;
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
  if (config_.activities & kActivityNvtx) {
    nvtxCallbacks_ = std::make_unique<NvtxCallbacks>(nvtxRecorder_, trace_.strings);
    if (!subscriber_->enableNvtx(nvtxCallbacks_.get(), error))
      logger().warn("NVTX ranges are not recorded: {}", error);
  }
  collector_ = std::make_unique<ActivityCollector>(
      trace_, config_, [this] { nvtxRecorder_.collect(trace_.store, false, 0); });
  if (!collector_->start(error)) {
    std::fprintf(stderr, "cuptitrace: tracing is off for this process: %s; the program runs untraced\n",
                 error.c_str());
    subscriber_->unsubscribe();
    collector_.reset();
    return false;
  }
  // Records of a context are flushed before it goes away (cudaDeviceReset, cuCtxDestroy).
  subscriber_->onContextDestroy([this] { collector_->flush(); });

  trace_.meta.startTimestampNs = cuptiNow();
  trace_.meta.startRealtimeNs = realtimeNs();
  logger().info("tracing {} (pid {}): {}", process.processName, process.pid,
                activityNames(config_.activities));
  return true;
}

void Tracer::finish() {
  if (!active_ || gForkedChild) return;
  std::call_once(finishOnce_, [this] {
    try {
      finishCollection();
      writeOutputs();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuptitrace: could not write the trace: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "cuptitrace: could not write the trace: unexpected error\n");
    }
  });
}

void Tracer::finishCollection() {
  collector_->stop();
  const uint64_t end = cuptiNow();
  trace_.meta.endTimestampNs = end;
  // The drain thread has stopped: this thread is now the store's only writer.
  nvtxRecorder_.collect(trace_.store, true, end);
  nvtxRecorder_.publish(trace_);
  collector_->publishCounters();
  subscriber_->unsubscribe();
  trace_.meta.driverVersion = driverVersion();
  // Times count from the start of collection; the exporters move the base
  // earlier only if a record starts before it.
  trace_.meta.baseTimestampNs = trace_.meta.startTimestampNs;
}

void Tracer::writeOutputs() {
  // Rows of the GPU activities and API calls tables printed at exit; the
  // reports file holds every row.
  constexpr size_t kExitSummaryRows = 10;
  const std::string prefix = expandOutputName(config_.output, trace_.meta.pid, trace_.meta.hostName);
  const ExportResult result = exportAll(trace_, config_.formats, prefix, config_.overwrite);
  for (const auto& e : result.errors) std::fprintf(stderr, "cuptitrace: %s\n", e.c_str());
  std::vector<std::string> written = result.written;

  // Reports (CUPTITRACE_SUMMARY): every report into PREFIX.reports.txt, and
  // with "stderr" the top rows of the two nvprof tables on stderr.
  // A failure here (memory) loses the reports only, not the line below.
  if (config_.summary != SummaryMode::None) {
    try {
      ReportOptions options;
      options.stepRange = config_.stepRange;
      options.coverageBasisPoints = config_.coverageBasisPoints;
      const std::vector<ReportTable> tables = buildAllReports(trace_, options);
      std::string reportsPath;
      // Nothing written means the output directory was refused, and that was said once already.
      if (!written.empty() || result.errors.empty()) {
        const std::string path = prefix + ".reports.txt";
        std::string error;
        if (writeReportsFile(tables, path, error, config_.overwrite)) {
          reportsPath = path;
          written.push_back(path);
        } else {
          std::fprintf(stderr, "cuptitrace: %s\n", error.c_str());
        }
      }
      if (config_.summary == SummaryMode::Stderr) {
        const std::string summary = exitSummary(tables, kExitSummaryRows, reportsPath);
        std::fputs(summary.c_str(), stderr);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuptitrace: could not make the reports: %s\n", e.what());
    }
  }

  if (config_.quiet) return;
  std::string line = "cuptitrace: ";
  if (written.empty()) {
    line += "no trace written";
  } else {
    line += "wrote ";
    for (size_t i = 0; i < written.size(); ++i) line += (i ? ", " : "") + written[i];
  }
  line += " (";
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    // The kinds every trace has are always named; the others when recorded.
    if (kind > RecordKind::Nvtx && trace_.store.count(kind) == 0) continue;
    line += std::string(k ? ", " : "") + recordKindName(kind) + " " + std::to_string(trace_.store.count(kind));
  }
  line += "; dropped " + std::to_string(trace_.totalDropped()) + ")\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace cuptitrace
