// NVTX ranges that each carry a different message (a step counter, a shape),
// through the path the tracer takes: CUPTI's NVTX callback (NvtxCallbacks,
// called by hand here), the per-thread recorder, and a drain thread that
// moves finished ranges into a store with a memory cap and a spill journal
// every --drain-ms, as the collector's drain thread does.
//
//   nvtx_strings_bench [--ranges N] [--cap SIZE] [--drain-ms MS] [--dir DIR]
//                      [--export native|json|pftrace|csv]
//
// Defaults: 10 million ranges, a 64M cap, 500 ms, DIR /tmp. Reports the time,
// the growth of the process's peak resident memory (VmHWM) over what it held
// before, and checks that every range is in the store with its own message
// read back (from memory or the journal) and nothing was dropped. Exits 1
// when a message is wrong or missing, or the growth passes the cap + 64 MiB.
// With --export, the trace is then written in that format to a stream that
// only counts bytes (after making room as the tracer does at exit), and the
// growth of peak RSS over the whole run is what is checked.
#include <generated_nvtx_meta.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "bench/bench_util.h"
#include "collectors/nvtx_callbacks.h"
#include "core/journal.h"
#include "core/parse.h"
#include "core/trace.h"
#include "core/config.h"
#include "core/writer_threads.h"
#include "exporters/export_all.h"
#include "exporters/json/chrome_json.h"
#include "exporters/csv/csv.h"
#include "exporters/native/native.h"
#include "exporters/pftrace/perfetto_proto.h"

using namespace cuptitrace;

namespace {

uint64_t statusBytes(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, n, key) == 0) return std::strtoull(line.c_str() + n, nullptr, 10) * 1024;
  return 0;
}

bool noStream(CUstream, uint32_t*) { return false; }
bool noContext(CUcontext, uint32_t*) { return false; }

// What a training loop's emit_nvtx-style message looks like: a counter and shapes.
int message(char* out, size_t size, uint64_t i) {
  return std::snprintf(out, size, "aten::linear step=%llu input=[%llu, 4096] weight=[4096, 4096]",
                       static_cast<unsigned long long>(i),
                       static_cast<unsigned long long>(i % 512 + 1));
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t ranges = 10'000'000;
  uint64_t cap = uint64_t{64} << 20;
  int drainMs = 500;
  std::string dir = "/tmp";
  std::string format;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--ranges")
      ranges = std::strtoull(value, nullptr, 10);
    else if (flag == "--cap") {
      const auto v = parseSize(value);
      if (!v) return std::fprintf(stderr, "bad --cap %s\n", value), 2;
      cap = *v;
    } else if (flag == "--drain-ms")
      drainMs = std::atoi(value);
    else if (flag == "--dir")
      dir = value;
    else if (flag == "--export")
      format = value;
    else
      return std::fprintf(stderr, "unknown flag %s\n", flag.c_str()), 2;
  }

  auto trace = std::make_unique<Trace>();
  trace->meta.pid = static_cast<uint32_t>(::getpid());
  trace->store.setMaxBytes(cap);
  const std::string journal = dir + "/nvtx_strings_bench-" + std::to_string(::getpid()) + ".spill";
  enableSpillJournal(*trace, journal, SpillMode::Auto);
  NvtxRecorder recorder;
  NvtxCallbacks callbacks(recorder, trace->strings, CudaIdLookup{noStream, noContext});

  const uint64_t before = statusBytes("VmRSS:");
  const auto start = std::chrono::steady_clock::now();

  // The drain thread: the store's only writer while the program runs.
  // As in the tracer: what waits in the recorder counts against the cap, and
  // a thread's backlog wakes the drain.
  std::mutex mutex;
  std::condition_variable cv;
  bool stop = false, wake = false;
  trace->store.addMemoryUser([&] { return recorder.bytesInMemory(); });
  recorder.onBacklog([&] {
    {
      std::lock_guard<std::mutex> lock(mutex);
      wake = true;
    }
    cv.notify_one();
  });
  std::thread drain([&] {
    std::unique_lock<std::mutex> lock(mutex);
    while (!stop) {
      cv.wait_for(lock, std::chrono::milliseconds(drainMs), [&] { return stop || wake; });
      wake = false;
      lock.unlock();
      recorder.collect(trace->store, false, 0);
      trace->store.releaseMemory(0);
      lock.lock();
    }
  });

  char text[160];
  nvtxRangePushA_params push{text};
  const nvtxRangePop_params pop{};
  CUpti_NvtxData pushData{};
  pushData.functionParams = &push;
  CUpti_NvtxData popData{};
  popData.functionParams = &pop;
  for (uint64_t i = 0; i < ranges; ++i) {
    message(text, sizeof text, i);
    callbacks.handle(CUPTI_CBID_NVTX_nvtxRangePushA, &pushData);
    callbacks.handle(CUPTI_CBID_NVTX_nvtxRangePop, &popData);
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    stop = true;
  }
  cv.notify_all();
  drain.join();
  recorder.collect(trace->store, true, 0);
  trace->store.releaseMemory(0);
  const double recordSeconds = seconds(start);
  const uint64_t peak = statusBytes("VmHWM:");
  const uint64_t anon = statusBytes("RssAnon:"), file = statusBytes("RssFile:");
  const uint64_t growth = peak > before ? peak - before : 0;

  // Every range, in order, with its own message.
  const auto checkStart = std::chrono::steady_clock::now();
  const auto& records = trace->store.records<NvtxRecord>();
  uint64_t wrong = 0, i = 0;
  records.forEach([&](const NvtxRecord& r) {
    const int n = message(text, sizeof text, i++);
    if (trace->strings.get(r.message) != std::string_view(text, static_cast<size_t>(n))) ++wrong;
  });
  const double checkSeconds = seconds(checkStart);
  const uint64_t dropped = trace->totalDropped() + callbacks.boundary().skipped();
  const uint64_t limit = cap + (uint64_t{64} << 20);
  std::printf("ranges %llu in %.2f s (%.0f ns/range); read back in %.2f s\n",
              static_cast<unsigned long long>(ranges), recordSeconds, recordSeconds * 1e9 / ranges,
              checkSeconds);
  std::printf("stored %llu, wrong messages %llu, dropped %llu, failed %llu\n",
              static_cast<unsigned long long>(records.size()),
              static_cast<unsigned long long>(wrong), static_cast<unsigned long long>(dropped),
              static_cast<unsigned long long>(callbacks.boundary().failures()));
  std::printf(
      "strings %llu ids, %.1f MiB in the journal, %.1f MiB in memory (index %.1f MiB, %llu "
      "forgotten)\n",
      static_cast<unsigned long long>(trace->strings.size() - 1),
      trace->strings.releasedBytes() / 1048576.0, trace->strings.bytesInMemory() / 1048576.0,
      trace->strings.indexBytes() / 1048576.0,
      static_cast<unsigned long long>(trace->strings.forgotten()));
  std::printf(
      "after recording: RSS anonymous %.1f MiB, file-backed %.1f MiB; store in memory %.1f MiB\n",
      anon / 1048576.0, file / 1048576.0, trace->store.memoryInUse() / 1048576.0);
  std::printf(
      "peak RSS growth %.1f MiB (cap %.0f MiB, limit %.0f MiB); journal %.1f MiB\n",
      growth / 1048576.0, cap / 1048576.0, limit / 1048576.0,
      trace->store.spillFile() != nullptr ? trace->store.spillFile()->size() / 1048576.0 : 0.0);
  uint64_t total = growth;
  if (!format.empty()) {
    // As the tracer does at exit: records make room for the exporters' own memory.
    const uint32_t mask = format == "json"      ? kFormatJson
                          : format == "pftrace" ? kFormatPftrace
                          : format == "csv"     ? kFormatCsv
                                                : kFormatNative;
    makeRoomForExport(*trace, exportRoomBytes(mask, false, trace->store.count(RecordKind::Nvtx), writerThreads()));
    const auto exportStart = std::chrono::steady_clock::now();
    bench::CountingBuf buf;
    std::ostream out(&buf);
    if (format == "json") writeChromeJson(*trace, out);
    else if (format == "pftrace") writePerfettoProto(*trace, out);
    else if (format == "csv") writeCsvTable(*trace, RecordKind::Nvtx, out);
    else writeNative(*trace, out);
    const uint64_t hwm = statusBytes("VmHWM:");
    total = hwm > before ? hwm - before : 0;
    std::printf("export %s: %.1f MiB in %.2f s; peak RSS growth over the whole run %.1f MiB\n",
                format.c_str(), buf.bytes / 1048576.0, seconds(exportStart), total / 1048576.0);
  }
  const bool ok = records.size() == ranges && wrong == 0 && dropped == 0 && total <= limit;
  removeSpillJournal(*trace);
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
