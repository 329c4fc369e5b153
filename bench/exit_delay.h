// What a traced program's exit waits for, per output format: the trace
// written into files as at exit (exportAll: an unnamed file, named when whole),
// with CUPTITRACE_WRITER_THREADS=1 and with every usable core, the two runs
// of each round back to back so that the ratio is paired. Prints seconds per
// million records for each, and their ratio; the files are removed after.
// `only` names one format to time alone ("" for all); `threads`, when not
// 0, is the number of writer threads of the second run instead of the
// usable cores (more than the cores: the work that stays on one thread shows
// on a small machine, as the time that more threads do not take away).
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/trace.h"
#include "core/writer_threads.h"
#include "exporters/export_all.h"

namespace cuptitrace::bench {

// CPU time of the whole process so far, user and system, in seconds.
inline double processCpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

inline int exitDelay(const Trace& trace, const std::string& dir, int repeat, const std::string& only = "",
                     uint32_t threads = 0) {
  struct Format {
    const char* name;
    uint32_t mask;
  };
  const Format formats[] = {{"native", kFormatNative}, {"pftrace", kFormatPftrace}, {"json", kFormatJson},
                            {"sqlite", kFormatSqlite}, {"csv", kFormatCsv}};
  uint64_t records = 0;
  for (int k = 0; k < kRecordKindCount; ++k) records += trace.store.count(static_cast<RecordKind>(k));
  const double millions = static_cast<double>(records) / 1e6;
  const uint32_t cores = threads != 0 ? threads : usableCores();
  std::printf("exit delay: %.2f M records written into %s, 1 writer thread and %u (%s), "
              "median of %d paired runs\n",
              millions, dir.c_str(), cores, threads != 0 ? "--threads" : "the usable cores", repeat);
  std::printf("%-8s %10s %10s %10s %10s %8s %10s %10s\n", "format", "1 thread s", "s/M", "all s", "s/M", "ratio",
              "cpu 1 s/M", "cpu all s/M");
  const std::string prefix = dir + "/exit_delay";
  int failed = 0;
  for (const Format& f : formats) {
    if (!only.empty() && only != f.name) continue;
    std::vector<double> one, all, cpuOne, cpuAll;
    for (int r = 0; r < repeat; ++r) {
      for (const bool serial : {true, false}) {
        if (serial) ::setenv("CUPTITRACE_WRITER_THREADS", "1", 1);
        else ::setenv("CUPTITRACE_WRITER_THREADS", std::to_string(cores).c_str(), 1);
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = processCpuSeconds();
        const ExportResult result = exportAll(trace, f.mask, prefix, true);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        (serial ? cpuOne : cpuAll).push_back(processCpuSeconds() - c0);
        for (const std::string& e : result.errors) std::fprintf(stderr, "export_bench: %s\n", e.c_str());
        if (!result.errors.empty()) failed = 1;
        if (std::getenv("EXIT_DELAY_KEEP") == nullptr)
          for (const std::string& path : result.written) ::unlink(path.c_str());
        (serial ? one : all).push_back(s);
      }
    }
    for (std::vector<double>* v : {&one, &all, &cpuOne, &cpuAll}) std::sort(v->begin(), v->end());
    const double a = one[one.size() / 2], b = all[all.size() / 2];
    std::printf("%-8s %10.3f %10.3f %10.3f %10.3f %8.2f %10.3f %10.3f\n", f.name, a, a / millions, b, b / millions,
                a / b, cpuOne[cpuOne.size() / 2] / millions, cpuAll[cpuAll.size() / 2] / millions);
    std::fflush(stdout);
  }
  ::unsetenv("CUPTITRACE_WRITER_THREADS");
  return failed;
}

}  // namespace cuptitrace::bench
