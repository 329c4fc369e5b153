// What a traced program's exit waits for, per output format: the trace
// written into files as at exit (exportAll: an unnamed file, named when whole),
// with CUPTITRACE_WRITER_THREADS=1 and with every usable core, the two runs
// of each round back to back so that the ratio is paired. Prints seconds per
// million records for each, and their ratio; the files are removed after.
// `only` names one format to time alone ("" for all).
#pragma once

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

inline int exitDelay(const Trace& trace, const std::string& dir, int repeat, const std::string& only = "") {
  struct Format {
    const char* name;
    uint32_t mask;
  };
  const Format formats[] = {{"native", kFormatNative}, {"pftrace", kFormatPftrace}, {"json", kFormatJson},
                            {"sqlite", kFormatSqlite}, {"csv", kFormatCsv}};
  uint64_t records = 0;
  for (int k = 0; k < kRecordKindCount; ++k) records += trace.store.count(static_cast<RecordKind>(k));
  const double millions = static_cast<double>(records) / 1e6;
  const uint32_t cores = usableCores();
  std::printf("exit delay: %.2f M records written into %s, 1 writer thread and %u (the usable cores), "
              "median of %d paired runs\n",
              millions, dir.c_str(), cores, repeat);
  std::printf("%-8s %10s %10s %10s %10s %8s\n", "format", "1 thread s", "s/M", "all s", "s/M", "ratio");
  const std::string prefix = dir + "/exit_delay";
  int failed = 0;
  for (const Format& f : formats) {
    if (!only.empty() && only != f.name) continue;
    std::vector<double> one, all;
    for (int r = 0; r < repeat; ++r) {
      for (const bool serial : {true, false}) {
        if (serial) ::setenv("CUPTITRACE_WRITER_THREADS", "1", 1);
        else ::setenv("CUPTITRACE_WRITER_THREADS", std::to_string(cores).c_str(), 1);
        const auto t0 = std::chrono::steady_clock::now();
        const ExportResult result = exportAll(trace, f.mask, prefix, true);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        for (const std::string& e : result.errors) std::fprintf(stderr, "export_bench: %s\n", e.c_str());
        if (!result.errors.empty()) failed = 1;
        for (const std::string& path : result.written) ::unlink(path.c_str());
        (serial ? one : all).push_back(s);
      }
    }
    std::sort(one.begin(), one.end());
    std::sort(all.begin(), all.end());
    const double a = one[one.size() / 2], b = all[all.size() / 2];
    std::printf("%-8s %10.3f %10.3f %10.3f %10.3f %8.2f\n", f.name, a, a / millions, b, b / millions, a / b);
    std::fflush(stdout);
  }
  ::unsetenv("CUPTITRACE_WRITER_THREADS");
  return failed;
}

}  // namespace cuptitrace::bench
