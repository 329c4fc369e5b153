// How long building every summary report takes, and how much memory it adds,
// over a synthetic trace of N records (10 million by default) shaped like a
// training run: kernels of 60 names on 4 streams of 2 devices, copies and
// sets, one API call per GPU operation plus others on 2 threads, NVTX steps
// with nested ranges.
//
//   report_bench [--records N] [--seed S]
//
// Prints the record counts, the store's size, the time to build all reports
// (the at-exit work, CUPTITRACE_STEP_RANGE=ProfilerStep) and to render them,
// and the peak resident memory the reports added (Linux: VmHWM after
// resetting it through /proc/self/clear_refs, minus VmRSS before).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/trace.h"
#include "reports/reports.h"
#include "bench/bench_util.h"

using namespace cuptitrace;
using cuptitrace::bench::Rng;

namespace {

// "VmRSS" or "VmHWM" of this process in KiB, 0 when unknown.
uint64_t statusKiB(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0)
      return std::strtoull(line.c_str() + std::strlen(key) + 1, nullptr, 10);
  return 0;
}

bool resetPeak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  return static_cast<bool>(out);
}

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void fill(Trace& t, uint64_t records, uint64_t seed) {
  Rng rng{seed * 0x9E3779B97F4A7C15ull + 1};
  std::vector<StringId> kernels, apis;
  for (int i = 0; i < 60; ++i)
    kernels.push_back(t.strings.intern("_ZN7project6kernel" + std::to_string(i) + "IfEEvPT_S2_i"));
  const char* launchName = "cudaLaunchKernel";
  const StringId launch = t.strings.intern(launchName);
  const StringId copyAsync = t.strings.intern("cudaMemcpyAsync");
  const StringId copySync = t.strings.intern("cudaMemcpy");
  const StringId setAsync = t.strings.intern("cudaMemsetAsync");
  const StringId streamSync = t.strings.intern("cudaStreamSynchronize");
  for (int i = 0; i < 40; ++i)
    apis.push_back(t.strings.intern("cudaOtherCall" + std::to_string(i)));
  const StringId step = t.strings.intern("ProfilerStep");
  const StringId forward = t.strings.intern("forward");
  const StringId backward = t.strings.intern("backward");
  const StringId layer = t.strings.intern("layer");

  uint32_t correlation = 0;
  uint64_t cpu = 1'000'000'000;  // host clock of thread 1
  uint64_t gpu[2][4] = {};       // end of the last work per device and stream
  uint64_t added = 0;
  uint64_t stepIndex = 0;
  while (added < records) {
    // One step: ranges around ~400 GPU operations and their API calls.
    const uint64_t stepStart = cpu;
    std::vector<NvtxRecord> ranges;
    for (int op = 0; op < 400 && added < records; ++op) {
      const uint32_t device = static_cast<uint32_t>(rng.below(2));
      const uint32_t stream = static_cast<uint32_t>(rng.below(4));
      uint64_t& streamEnd = gpu[device][stream];
      const uint64_t callStart = cpu;
      const uint64_t callEnd = cpu + 2'000 + rng.below(6'000);
      const uint64_t start = std::max(streamEnd, callEnd + 1'000 + rng.below(4'000));
      const uint64_t kind = rng.below(100);
      ApiRecord a{};
      a.start = callStart;
      a.end = callEnd;
      a.correlationId = ++correlation;
      a.threadId = 1;
      if (kind < 85) {
        KernelRecord k{};
        k.start = start;
        k.end = start + 1'000 + rng.below(rng.below(10) == 0 ? 500'000 : 30'000);
        k.name = kernels[rng.below(kernels.size())];
        k.correlationId = correlation;
        k.deviceId = device;
        k.streamId = stream + 7;
        k.gridX = 128 << rng.below(3);
        k.gridY = k.gridZ = 1;
        k.blockX = 256;
        k.blockY = k.blockZ = 1;
        streamEnd = k.end;
        t.store.add(k);
        a.name = launch;
      } else if (kind < 96) {
        MemcpyRecord m{};
        m.start = start;
        m.bytes = 4096ull << rng.below(10);
        m.end = start + 500 + m.bytes / 20;
        m.correlationId = correlation;
        m.deviceId = m.srcDeviceId = m.dstDeviceId = device;
        m.streamId = stream + 7;
        const bool toDevice = rng.below(2) == 0;
        m.copyKind = static_cast<uint8_t>(toDevice ? CopyKind::HtoD : CopyKind::DtoH);
        const auto host =
            static_cast<uint8_t>(rng.below(4) == 0 ? MemoryKind::Pageable : MemoryKind::Pinned);
        m.srcKind = toDevice ? host : static_cast<uint8_t>(MemoryKind::Device);
        m.dstKind = toDevice ? static_cast<uint8_t>(MemoryKind::Device) : host;
        m.flags = rng.below(3) == 0 ? 0 : kCopyFlagAsync;
        streamEnd = m.end;
        t.store.add(m);
        a.name = m.flags ? copyAsync : copySync;
      } else {
        MemsetRecord m{};
        m.start = start;
        m.bytes = 65536;
        m.end = start + 2'000;
        m.correlationId = correlation;
        m.deviceId = device;
        m.streamId = stream + 7;
        m.memoryKind = static_cast<uint8_t>(MemoryKind::Device);
        m.flags = kCopyFlagAsync;
        streamEnd = m.end;
        t.store.add(m);
        a.name = setAsync;
      }
      t.store.add(a);
      added += 2;
      cpu = callEnd + 500;
      // Other API calls, on a second thread too.
      if (rng.below(4) == 0 && added < records) {
        ApiRecord o{};
        o.start = cpu;
        o.end = cpu + 300 + rng.below(3'000);
        o.name = apis[rng.below(apis.size())];
        o.correlationId = ++correlation;
        o.threadId = 1 + static_cast<uint32_t>(rng.below(2));
        t.store.add(o);
        ++added;
        cpu = o.end + 200;
      }
      // A nested range every 20 operations.
      if (op % 20 == 19) {
        NvtxRecord n{};
        n.type = static_cast<uint8_t>(NvtxType::PushPop);
        n.start = cpu - 100'000;
        n.end = cpu;
        n.message = layer;
        n.threadId = n.endThreadId = 1;
        n.depth = 2;
        ranges.push_back(n);
      }
    }
    // Wait for the GPU at the end of the step.
    uint64_t last = 0;
    for (auto& d : gpu)
      for (uint64_t e : d) last = std::max(last, e);
    if (added >= records) break;
    ApiRecord s{};
    s.start = cpu;
    s.end = std::max(cpu + 1'000, last);
    s.name = streamSync;
    s.correlationId = ++correlation;
    s.threadId = 1;
    t.store.add(s);
    ++added;
    cpu = s.end + 1'000;
    NvtxRecord n{};
    n.type = static_cast<uint8_t>(NvtxType::PushPop);
    n.threadId = n.endThreadId = 1;
    n.start = stepStart;
    n.end = cpu;
    n.message = t.strings.intern("ProfilerStep#" + std::to_string(stepIndex++));
    ranges.push_back(n);
    const uint64_t mid = stepStart + (cpu - stepStart) / 2;
    n.message = forward;
    n.depth = 1;
    n.end = mid;
    ranges.push_back(n);
    n.message = backward;
    n.start = mid;
    n.end = cpu;
    ranges.push_back(n);
    for (const auto& r : ranges) {
      if (added >= records) break;
      t.store.add(r);
      ++added;
    }
  }
  (void)step;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t records = 10'000'000, seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--records") == 0)
      records = std::strtoull(argv[i + 1], nullptr, 10);
    else if (std::strcmp(argv[i], "--seed") == 0)
      seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  Trace trace;
  trace.meta.baseTimestampNs = 1'000'000'000;
  const auto t0 = std::chrono::steady_clock::now();
  fill(trace, records, seed);
  const auto t1 = std::chrono::steady_clock::now();
  uint64_t total = 0;
  std::printf("records:");
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    total += trace.store.count(kind);
    std::printf(" %s %llu", recordKindName(kind),
                static_cast<unsigned long long>(trace.store.count(kind)));
  }
  std::printf("; total %llu (made in %.2f s)\n", static_cast<unsigned long long>(total),
              seconds(t0, t1));
  std::printf("store: %.1f MiB\n", static_cast<double>(trace.store.bytesReserved()) / (1 << 20));

  ReportOptions options;
  options.stepRange = "ProfilerStep";
  const uint64_t rssBefore = statusKiB("VmRSS:");
  const bool peakReset = resetPeak();
  const auto t2 = std::chrono::steady_clock::now();
  const std::vector<ReportTable> tables = buildAllReports(trace, options);
  const auto t3 = std::chrono::steady_clock::now();
  const uint64_t peak = statusKiB("VmHWM:");
  size_t bytes = 0;
  for (const auto format : {ReportFormat::Table, ReportFormat::Csv, ReportFormat::Json})
    bytes += renderTables(tables, format, {}).size();
  const auto t4 = std::chrono::steady_clock::now();

  size_t rows = 0;
  for (const auto& t : tables) rows += t.rows.size();
  std::printf("build all %zu reports (%zu rows): %.3f s\n", tables.size(), rows, seconds(t2, t3));
  std::printf("render as table, CSV and JSON (%zu bytes): %.3f s\n", bytes, seconds(t3, t4));
  if (peakReset && peak >= rssBefore)
    std::printf("peak memory added by the reports: %.1f MiB (%.1f bytes per record)\n",
                static_cast<double>(peak - rssBefore) / 1024,
                static_cast<double>(peak - rssBefore) * 1024 / static_cast<double>(total));
  else
    std::printf("peak memory: %.1f MiB in all (the peak could not be reset)\n",
                static_cast<double>(peak) / 1024);
  return 0;
}
