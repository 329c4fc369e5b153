// The tracer's outputs at exit: whether the process leaves a trace at all,
// under which name, every requested format, the reports and the summary line.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "core/journal.h"
#include "core/log.h"
#include "core/output_name.h"
#include "core/writer_threads.h"
#include "exporters/export_all.h"
#include "core/ordered_work.h"
#include "injection/tracer.h"
#include "reports/reports.h"

namespace cuptitrace {

bool Tracer::didNoGpuWork() const {
  if (trace_.totalDropped() != 0) return false;
  // With capture windows an empty trace says no window opened: it is kept,
  // unless the process never made a CUDA context. A program's helper
  // processes (torch.compile's workers) inherit the tracer and only ask
  // for the device count; their empty traces would take the program's name.
  if (capture_ && (contextCreated_.load(std::memory_order_relaxed) || !trace_.contexts.empty())) return false;
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    if (kind == RecordKind::Api || kind == RecordKind::Overhead || kind == RecordKind::ExternalId ||
        kind == RecordKind::GpuMetric)  // samples of an idle device are no GPU work
      continue;
    if (trace_.store.count(kind) != 0) return false;
  }
  return true;
}

void Tracer::writeOutputs(bool nativeFirst) {
  // Rows of the GPU activities and API calls tables printed at exit; the
  // reports file holds every row.
  constexpr size_t kExitSummaryRows = 10;
  // A process that started CUDA but ran nothing on the GPU and marked nothing
  // (a launcher such as torchrun asking for the device count) leaves no
  // trace to clutter the others: one line says so.
  if (didNoGpuWork()) {
    removeSpillJournal(trace_);
    if (!config_.quiet)
      std::fprintf(stderr, "cuptitrace: %s (pid %u) did no GPU work: no trace written (%llu CUDA API calls)\n",
                   trace_.meta.processName.c_str(), trace_.meta.pid,
                   static_cast<unsigned long long>(trace_.store.count(RecordKind::Api)));
    return;
  }
  if (capture_ && trace_.meta.captureWindows.empty())
    logger().warn("CUPTITRACE_CAPTURE={}: no capture window opened; the trace holds no activity records",
                  captureSpecText(config_.capture));
  OutputNameInputs nameInputs;
  nameInputs.pid = trace_.meta.pid;
  nameInputs.host = trace_.meta.hostName;
  nameInputs.rank = trace_.meta.rank;
  nameInputs.env = [](const char* name) { return std::getenv(name); };
  std::vector<std::string> nameMessages;
  // Made again if it went away meanwhile, or replaced if it can no longer be written.
  useOutputDirectory(nameInputs);
  // With %n the number is held (PREFIX.lock) until every output is in place.
  ClaimedPrefix claimed = claimOutputPrefix(outputPattern_, nameInputs, &nameMessages);
  for (const auto& m : nameMessages) logger().warn("{}", m);
  std::string prefix = claimed.prefix;
  // A name without %p or %n may have been written by another process first
  // (a worker the program started, which inherited CUPTITRACE_OUTPUT, or an
  // earlier run): rather than lose this trace, it goes under PREFIX.PID.
  if (!config_.overwrite && claimed.lockPath.empty()) {
    std::string message;
    prefix = untakenPrefix(prefix, trace_.meta.pid, &message);
    if (!message.empty()) std::fprintf(stderr, "cuptitrace: %s\n", message.c_str());
  }
  // The native trace is written before every other format (exporters/export_all.h).
  uint32_t formats = config_.formats;
  if (nativeFirst && !(formats & kFormatNative)) {
    formats |= kFormatNative;
    std::fprintf(stderr, "cuptitrace: no spill journal holds the trace: %s.native is written first\n", prefix.c_str());
  }
  // The reports are made while the files are written, on a thread of their
  // own when there are writer threads to spare (core/writer_threads.h).
  std::vector<ReportTable> tables;
  std::string reportsError;
  auto makeReports = [&] {
    const auto started = std::chrono::steady_clock::now();
    try {
      ReportOptions options;
      options.stepRange = config_.stepRange;
      options.coverageBasisPoints = config_.coverageBasisPoints;
      tables = buildAllReports(trace_, options);
    } catch (const std::exception& e) {
      reportsError = e.what();
    }
    logger().info("exit: reports made in {} ms", millisecondsSince(started));
  };
  std::thread reports;
  if (config_.summary != SummaryMode::None && writerThreads() > 1) {
    try {
      reports = std::thread([&] {
        const OwnThread own("trace writer");
        makeReports();
      });
    } catch (const std::exception&) {  // no thread to be had: made after the files
    }
  }
  const auto exportStarted = std::chrono::steady_clock::now();
  const ExportResult result = exportAll(trace_, formats, prefix, config_.overwrite, config_.splitBytes);
  logger().info("exit: {} files written in {} ms", result.written.size(), millisecondsSince(exportStarted));
  for (const auto& e : result.errors) std::fprintf(stderr, "cuptitrace: %s\n", e.c_str());
  std::vector<std::string> written = result.written;
  if (reports.joinable()) reports.join();
  else if (config_.summary != SummaryMode::None) makeReports();

  // Reports (CUPTITRACE_SUMMARY): every report into PREFIX.reports.txt, and
  // with "stderr" the top rows of the two nvprof tables on stderr.
  // A failure here (memory) loses the reports only, not the line below.
  if (config_.summary != SummaryMode::None && !reportsError.empty()) {
    std::fprintf(stderr, "cuptitrace: could not make the reports: %s\n", reportsError.c_str());
  } else if (config_.summary != SummaryMode::None) {
    try {
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

  releaseOutputPrefix(claimed);
  // Every output is in place: the spill journal has done its job. When one
  // failed it stays, for `cuptitrace recover`.
  if (result.errors.empty()) {
    removeSpillJournal(trace_);
  } else if (const SpillFile* spill = trace_.store.spillFile(); spill != nullptr && spill->created()) {
    std::fprintf(stderr, "cuptitrace: kept %s: `cuptitrace recover %s` rebuilds the trace from what reached it\n",
                 spill->path().c_str(), spill->path().c_str());
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
  line += "; dropped " + std::to_string(trace_.totalDropped());
  const auto taken = trace_.counters.find("cupti_buffers_not_returned");
  if (taken != trace_.counters.end())
    line += "; " + std::to_string(taken->second) + " CUPTI buffers taken by another tool";
  line += failureSummary(trace_.counters);
  const auto filtered = trace_.counters.find("filtered.kernels");
  if (filtered != trace_.counters.end()) line += "; filtered kernels " + std::to_string(filtered->second);
  if (capture_) {
    uint64_t capturedNs = 0;
    for (const CaptureSpan& w : trace_.meta.captureWindows) capturedNs += w.endNs - w.startNs;
    char text[96];
    std::snprintf(text, sizeof(text), "; %zu capture window%s, %.3f s", trace_.meta.captureWindows.size(),
                  trace_.meta.captureWindows.size() == 1 ? "" : "s", static_cast<double>(capturedNs) / 1e9);
    line += text;
  }
  line += ")\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace cuptitrace
