// How fast the SQLite output writes, over a synthetic launch-bound trace:
// N kernels, each launched by a cudaLaunchKernel call (1 million pairs, so
// 2 million rows, by default), 20 kernel names, one NVTX range per 100 launches.
//
//   sqlite_bench [--pairs N] [--repeat R] [--dir DIR]
//
// Writes DIR/sqlite_bench.sqlite (DIR defaults to /tmp) R times (3 by
// default) and prints the best run's CPU time (the process's: other work on a
// shared machine does not count) and wall time, rows per second by each, and
// the file size. The whole export counts: schema, StringIds, every row, the indexes,
// and the file reaching the disk. The README's budget for the at-exit write is
// 1 s per million records.
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>

#include "bench/bench_util.h"
#include "core/trace.h"
#include "exporters/sqlite/sqlite.h"

using namespace cuptitrace;
using cuptitrace::bench::Rng;

namespace {

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

void fill(Trace& t, uint64_t pairs) {
  Rng rng{0x9E3779B97F4A7C15ull};
  t.meta.toolVersion = "bench";
  t.meta.hostName = "benchhost";
  t.meta.pid = 31337;
  t.meta.processName = "launch_loop";
  t.meta.baseTimestampNs = 1'700'000'000'000'000'000ull;
  t.meta.startTimestampNs = t.meta.baseTimestampNs;
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-0"});
  t.contexts.push_back({1, 0, 7});
  StringId names[20];
  for (int i = 0; i < 20; ++i) {
    const std::string kernel = "kernel" + std::to_string(i);
    names[i] = t.strings.intern("_ZN7project" + std::to_string(kernel.size()) + kernel + "IfLi256EEEvPKT_PS1_i");
  }
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  const StringId step = t.strings.intern("step");
  uint64_t cpu = t.meta.baseTimestampNs + 1'000, gpu = 0;
  for (uint64_t i = 0; i < pairs; ++i) {
    const auto correlation = static_cast<uint32_t>(i + 1);
    ApiRecord a{};
    a.start = cpu;
    a.end = cpu + 2'000 + rng.below(3'000);
    a.name = launch;
    a.correlationId = correlation;
    a.threadId = t.meta.pid;
    a.cbid = 211;
    t.store.add(a);
    KernelRecord k{};
    k.start = std::max(gpu, a.end) + 500;
    k.end = k.start + 1'000 + rng.below(4'000);
    gpu = k.end;
    k.name = names[rng.below(20)];
    k.correlationId = correlation;
    k.contextId = 1;
    k.streamId = 7;
    k.gridX = 128 << rng.below(4);
    k.gridY = k.gridZ = 1;
    k.blockX = 256;
    k.blockY = k.blockZ = 1;
    k.registersPerThread = 32;
    t.store.add(k);
    if (i % 100 == 0) {
      NvtxRecord n{};
      n.start = cpu;
      n.end = cpu + 400'000;
      n.message = step;
      n.threadId = n.endThreadId = t.meta.pid;
      t.store.add(n);
    }
    cpu = a.end + 200 + rng.below(800);
  }
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t pairs = 1'000'000;
  int repeat = 3;
  std::string dir = "/tmp";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--pairs") && i + 1 < argc) pairs = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else {
      std::fprintf(stderr, "usage: sqlite_bench [--pairs N] [--repeat R] [--dir DIR]\n");
      return 2;
    }
  }
  Trace trace;
  fill(trace, pairs);
  const std::string path = dir + "/sqlite_bench.sqlite";
  double best = 1e30, bestCpu = 1e30;
  uint64_t rows = 0;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const double cpuStart = cpuSeconds();
    const SqliteResult result = writeSqlite(trace, path, true);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bestCpu = std::min(bestCpu, cpuSeconds() - cpuStart);
    if (!result.error.empty()) {
      std::fprintf(stderr, "sqlite_bench: %s\n", result.error.c_str());
      return 1;
    }
    rows = result.rows;
    best = std::min(best, seconds);
  }
  struct stat st {};
  ::stat(path.c_str(), &st);
  const uint64_t records = trace.store.count(RecordKind::Api) + trace.store.count(RecordKind::Kernel) +
                           trace.store.count(RecordKind::Nvtx);
  std::printf("sqlite_bench: %llu records, %llu rows, best of %d\n"
              "  cpu  %.3f s: %.2f M rows/s, %.3f s per million records\n"
              "  wall %.3f s: %.2f M rows/s, %.3f s per million records\n"
              "  file %.1f MB (%.1f bytes/row)\n",
              static_cast<unsigned long long>(records), static_cast<unsigned long long>(rows), repeat, bestCpu,
              rows / bestCpu / 1e6, bestCpu / (records / 1e6), best, rows / best / 1e6, best / (records / 1e6),
              st.st_size / 1e6, rows ? static_cast<double>(st.st_size) / rows : 0.0);
  ::unlink(path.c_str());
  return 0;
}
