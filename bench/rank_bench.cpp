// rank_bench: the cross-rank reports (`cuptitrace stats` over many ranks)
// over synthetic ranks' traces: how long they take and how much memory they
// hold, with one reader and with two.
//
//   rank_bench [--ranks N] [--steps S] [--kernels K] [--dir DIR] [--keep] [--generate-only]
//              [--with-steps]
//
// Writes N native traces into DIR (a fresh directory under /tmp by default),
// each a rank of a data-parallel job: S steps of K compute kernels, one
// all-reduce (the rank's lateness drawn at random, rank N/3 always late), and
// a copy; then, each in a fresh child process so that its peak RSS is its
// own, summarizes them with 1 and with 2 readers and builds every report.
// Prints one line per run: wall time, peak RSS, and the largest trace and
// all traces' size for comparison. The traces are removed unless --keep.
// --generate-only writes and keeps the traces and measures nothing: the jobs
// of the recipe's tests and benchmark (scripts/bench-recipe.sh).
// --with-steps makes each step an NVTX range "step N" on the rank's thread and
// gives the all-reduce and the copy a launching call too, as a training loop
// traced with its steps named has: the traces the PyTorch profiler's tools
// are tried on (tests/integration/kineto_conformance.sh).
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "core/trace.h"
#include "exporters/native/native.h"
#include "cli/rank_reader.h"
#include "reports/rank_reports.h"

using namespace cuptitrace;

namespace {

uint64_t peakRssKiB() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_maxrss);
}

void addCall(Trace& t, StringId name, uint64_t start, uint32_t correlation) {
  ApiRecord a{};
  a.start = start > 3000 ? start - 3000 : start;
  a.end = a.start + 2000;
  a.name = name;
  a.correlationId = correlation;
  a.threadId = t.meta.pid;
  t.store.add(a);
}

void writeRank(const std::string& path, int rank, int ranks, int steps, int kernels, bool withSteps) {
  Trace t;
  bench::Rng rng{0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(rank + 1)};
  const uint64_t base = 1'000'000'000ull;
  t.meta.toolVersion = "bench";
  t.meta.hostName = "node" + std::to_string(rank / 8);
  t.meta.pid = 1000 + static_cast<uint32_t>(rank);
  t.meta.processName = "python";
  t.meta.rank = rank;
  t.meta.localRank = rank % 8;
  t.meta.worldSize = static_cast<uint32_t>(ranks);
  t.meta.rankSource = "RANK";
  t.meta.baseTimestampNs = t.meta.startTimestampNs = t.meta.startRealtimeNs = base;
  t.devices.push_back({static_cast<uint32_t>(rank % 8), "NVIDIA H100 80GB HBM3", 9, 0, 132,
                       80ull << 30, 1980000, ""});
  const StringId gemm = t.strings.intern("_Z4gemmPKfS0_Pfiii");
  const StringId relu = t.strings.intern("_Z4reluPfi");
  const StringId allReduce = t.strings.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  const StringId copy = t.strings.intern("cudaMemcpyAsync");
  const uint64_t stepNs = 2'000'000;
  uint32_t corr = 1;
  for (int s = 0; s < steps; ++s) {
    uint64_t at = base + static_cast<uint64_t>(s) * stepNs;
    // Every rank's all-reduce ends at the same time: when the latest arrives.
    const uint64_t end = at + 1'500'000;
    const uint64_t late = rank == ranks / 3 ? 400'000 : rng.below(200'000);
    const uint64_t computeEnd = end - 100'000 - (400'000 - late);
    const uint64_t each = (computeEnd - at) / static_cast<uint64_t>(kernels);
    if (withSteps) {
      NvtxRecord n{};
      n.type = static_cast<uint8_t>(NvtxType::PushPop);
      n.start = at > 5000 ? at - 5000 : at;
      n.end = at + stepNs - 5000;
      n.message = t.strings.intern("step " + std::to_string(s));
      n.threadId = n.endThreadId = t.meta.pid;
      t.store.add(n);
    }
    for (int k = 0; k < kernels; ++k, ++corr) {
      addCall(t, launch, at, corr);
      KernelRecord r{};
      r.start = at;
      r.end = at + each;
      r.name = k % 2 ? relu : gemm;
      r.correlationId = corr;
      r.deviceId = t.devices[0].id;
      r.streamId = 7;
      t.store.add(r);
      at += each;
    }
    if (withSteps) addCall(t, launch, at, corr);
    KernelRecord r{};
    r.start = at;
    r.end = end;
    r.name = allReduce;
    r.correlationId = corr++;
    r.deviceId = t.devices[0].id;
    r.streamId = 13;
    t.store.add(r);
    if (withSteps) addCall(t, copy, end, corr);
    MemcpyRecord m{};
    m.start = end;
    m.end = end + 50'000;
    m.bytes = 1 << 16;
    m.correlationId = corr++;
    m.deviceId = m.srcDeviceId = m.dstDeviceId = t.devices[0].id;
    m.streamId = 7;
    m.copyKind = static_cast<uint8_t>(CopyKind::DtoH);
    t.store.add(m);
  }
  std::ofstream out(path, std::ios::binary);
  writeNative(t, out);
}

int argInt(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == name) return std::atoi(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = argInt(argc, argv, "--ranks", 64);
  const int steps = argInt(argc, argv, "--steps", 2000);
  const int kernels = argInt(argc, argv, "--kernels", 20);
  bool keep = false, generateOnly = false, withSteps = false;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--keep") keep = true;
    if (std::string(argv[i]) == "--generate-only") keep = generateOnly = true;
    if (std::string(argv[i]) == "--with-steps") withSteps = true;
    if (std::string(argv[i]) == "--dir" && i + 1 < argc) dir = argv[i + 1];
  }
  if (dir.empty()) {
    char pattern[] = "/tmp/rank-bench-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) return 1;
    dir = pattern;
  } else {
    ::mkdir(dir.c_str(), 0755);
  }
  std::vector<std::string> paths;
  uint64_t totalBytes = 0, largest = 0;
  // Generated in a child: the parent's peak RSS stays out of the measurements.
  for (int r = 0; r < ranks; ++r) paths.push_back(dir + "/t." + std::to_string(r) + ".native");
  if (const pid_t child = ::fork(); child == 0) {
    for (int r = 0; r < ranks; ++r)
      writeRank(paths[static_cast<size_t>(r)], r, ranks, steps, kernels, withSteps);
    std::_Exit(0);
  } else {
    int status = 0;
    ::waitpid(child, &status, 0);
  }
  for (const auto& p : paths) {
    struct stat st {};
    ::stat(p.c_str(), &st);
    totalBytes += static_cast<uint64_t>(st.st_size);
    largest = std::max<uint64_t>(largest, static_cast<uint64_t>(st.st_size));
  }
  std::printf(
      "rank_bench: %d ranks x %d steps x %d kernels: %.1f MiB of native traces (largest %.1f MiB) "
      "in %s\n",
      ranks, steps, kernels, static_cast<double>(totalBytes) / 1048576.0,
      static_cast<double>(largest) / 1048576.0, dir.c_str());
  std::fflush(stdout);  // before fork: children must not print it again
  for (const unsigned readers : {1u, 2u}) {
    if (generateOnly) break;
    if (const pid_t child = ::fork(); child == 0) {
      const auto t0 = std::chrono::steady_clock::now();
      RankReadResult read = summarizeTraceFiles(paths, readers);
      std::vector<std::string> skipped;
      const auto ordered = orderRanks(std::move(read.summaries), skipped);
      std::vector<std::string> names;
      for (const auto& r : rankReportCatalog()) names.push_back(r.name);
      const auto tables = buildRankReports(ordered, names, skipped);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::string straggler = "none";
      for (const auto& t : tables)
        if (t.name == "rank_findings" && !t.rows.empty()) straggler = t.rows[0][1].s;
      std::printf(
          "rank_bench: %u reader(s): %.2f s, peak RSS %.1f MiB, %zu ranks, %zu errors; finding: "
          "%s\n",
          readers, s, static_cast<double>(peakRssKiB()) / 1024.0, ordered.size(),
          read.errors.size(), straggler.c_str());
      std::fflush(stdout);
      std::_Exit(read.errors.empty() ? 0 : 1);
    } else {
      int status = 0;
      ::waitpid(child, &status, 0);
    }
  }
  if (!keep) {
    for (const auto& p : paths) std::remove(p.c_str());
    ::rmdir(dir.c_str());
  }
  return 0;
}
