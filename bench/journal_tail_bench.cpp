// What writing the journal's tails costs (TraceStore::journalTails, every
// CUPTITRACE_JOURNAL_PERIOD with CUPTITRACE_SPILL=always): synthetic kernels
// and their cudaLaunchKernel calls go through a store whose journal is
// written as records come, once with the tails written every period and once
// with full chunks only, on the one thread that also calls journalTails, as
// the drain thread does.
//
//   journal_tail_bench [--records N] [--rounds R] [--rate N] [--seconds S] [--period MS] [--dir DIR]
//
// Two measures, each with tails on and off:
//   speed   N records (default 20 million) as fast as the store takes them,
//           the period checked every 256 records; R rounds (default 3) taken
//           in turn, on then off, and the best of each kept (the machine may
//           be shared). Give it seconds' worth of records, or a short
//           --period (10 ms is the shortest the configuration takes), or the
//           tails are written once or not at all.
//   steady  a stream of `rate` records a second (default 100,000, half
//           kernels, half calls) for S seconds (default 5), added a
//           millisecond's worth at a time: the journal's bytes per second,
//           against the records' own bytes per second.
// Each prints the time journalTails took per call (mean and longest).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "bench/bench_util.h"
#include "core/journal.h"
#include "core/trace.h"

using namespace cuptitrace;
using Clock = std::chrono::steady_clock;

namespace {

struct Run {
  double seconds = 0;
  uint64_t records = 0;
  uint64_t journalBytes = 0;
  uint64_t tailCalls = 0;
  double tailSeconds = 0, tailLongest = 0;
};

// Synthetic records in the shape of a launch loop: a kernel and the call that launched it.
class Source {
 public:
  explicit Source(Trace& t) : t_(t) {
    for (int i = 0; i < 20; ++i)
      names_[i] = t.strings.intern("_ZN7project6kernel" + std::to_string(i) + "IfLi256EEEvPKT_PS1_i");
    launch_ = t.strings.intern("cudaLaunchKernel");
  }
  void addPair() {
    ++n_;
    ApiRecord a{};
    a.start = 1'000'000 + n_ * 3'000;
    a.end = a.start + 2'000 + rng_.below(500);
    a.name = launch_;
    a.correlationId = static_cast<uint32_t>(n_);
    a.threadId = 31337;
    a.cbid = 211;
    t_.store.add(a);
    KernelRecord k{};
    k.start = a.start + 4'000;
    k.end = k.start + 1'500 + rng_.below(1'000);
    k.name = names_[rng_.below(20)];
    k.correlationId = a.correlationId;
    k.contextId = 1;
    k.streamId = 7;
    k.gridX = 128;
    k.blockX = 256;
    t_.store.add(k);
  }

 private:
  Trace& t_;
  bench::Rng rng_{0x9E3779B97F4A7C15ull};
  StringId names_[20]{};
  StringId launch_ = 0;
  uint64_t n_ = 0;
};

class Tails {
 public:
  Tails(Trace& t, Clock::duration period, Run& run) : t_(t), period_(period), run_(run), last_(Clock::now()) {}
  void maybeWrite(Clock::time_point now) {
    if (period_ == Clock::duration::zero() || now - last_ < period_) return;
    last_ = now;
    const auto t0 = Clock::now();
    t_.store.journalTails();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    ++run_.tailCalls;
    run_.tailSeconds += s;
    run_.tailLongest = std::max(run_.tailLongest, s);
  }

 private:
  Trace& t_;
  Clock::duration period_;
  Run& run_;
  Clock::time_point last_;
};

void setUp(Trace& t, const std::string& path) {
  t.meta.toolVersion = "bench";
  t.meta.hostName = "benchhost";
  t.meta.pid = 31337;
  t.meta.processName = "launch_loop";
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-0"});
  enableSpillJournal(t, path, SpillMode::Always);
}

Run speed(const std::string& dir, uint64_t records, Clock::duration period) {
  Run run;
  Trace t;
  const std::string path = dir + "/journal_tail_bench." + std::to_string(::getpid()) + ".spill";
  setUp(t, path);
  Source source(t);
  Tails tails(t, period, run);
  const auto t0 = Clock::now();
  for (uint64_t i = 0; i < records / 2; ++i) {
    source.addPair();
    if ((i & 255) == 0) tails.maybeWrite(Clock::now());
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  run.records = records / 2 * 2;
  run.journalBytes = t.store.spillFile()->size();
  removeSpillJournal(t);
  return run;
}

Run steady(const std::string& dir, uint64_t rate, double seconds, Clock::duration period) {
  Run run;
  Trace t;
  const std::string path = dir + "/journal_tail_bench." + std::to_string(::getpid()) + ".steady.spill";
  setUp(t, path);
  Source source(t);
  Tails tails(t, period, run);
  const uint64_t startBytes = t.store.spillFile()->size();
  const auto t0 = Clock::now();
  const auto end = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  uint64_t pairs = 0;
  for (auto tick = t0; tick < end; tick += std::chrono::milliseconds(1)) {
    std::this_thread::sleep_until(tick);
    // As many as the stream should have brought by now.
    const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    const auto due = static_cast<uint64_t>(elapsed * static_cast<double>(rate) / 2);
    for (; pairs < due; ++pairs) source.addPair();
    tails.maybeWrite(Clock::now());
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  run.records = pairs * 2;
  run.journalBytes = t.store.spillFile()->size() - startBytes;
  removeSpillJournal(t);
  return run;
}

void printTails(const Run& r) {
  if (r.tailCalls == 0) return;
  std::printf("    journalTails: %llu calls, %.1f us each on average, %.1f us the longest\n",
              static_cast<unsigned long long>(r.tailCalls), r.tailSeconds / r.tailCalls * 1e6, r.tailLongest * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t records = 20'000'000, rate = 100'000;
  int rounds = 3;
  double seconds = 5, periodMs = 1000;
  std::string dir = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    const char* value = argv[i + 1];
    if (arg == "--records") records = std::strtoull(value, nullptr, 10);
    else if (arg == "--rounds") rounds = std::max(1, std::atoi(value));
    else if (arg == "--rate") rate = std::strtoull(value, nullptr, 10);
    else if (arg == "--seconds") seconds = std::atof(value);
    else if (arg == "--period") periodMs = std::atof(value);
    else if (arg == "--dir") dir = value;
    else {
      std::fprintf(stderr, "journal_tail_bench: unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(periodMs));
  const double recordBytes = (sizeof(KernelRecord) + sizeof(ApiRecord)) / 2.0;
  std::printf("records: KernelRecord %zu bytes, ApiRecord %zu bytes; tail period %.0f ms; journal in %s\n",
              sizeof(KernelRecord), sizeof(ApiRecord), periodMs, dir.c_str());

  std::printf("speed: %llu records, best of %d rounds\n", static_cast<unsigned long long>(records), rounds);
  Run best[2];
  for (int r = 0; r < rounds; ++r) {
    for (int on = 1; on >= 0; --on) {
      const Run run = speed(dir, records, on ? period : Clock::duration::zero());
      std::printf("  round %d, tails %-3s %6.2f M records/s (%.2f s), journal %.1f MiB\n", r + 1, on ? "on" : "off",
                  run.records / run.seconds / 1e6, run.seconds, run.journalBytes / 1048576.0);
      if (best[on].seconds == 0 || run.seconds < best[on].seconds) best[on] = run;
    }
  }
  const double on = best[1].records / best[1].seconds, off = best[0].records / best[0].seconds;
  std::printf("  best: tails on %.2f M records/s, off %.2f M records/s: %+.1f%%\n", on / 1e6, off / 1e6,
              (on / off - 1) * 100);
  printTails(best[1]);

  std::printf("steady: %llu records/s for %.0f s (their own bytes: %.1f KiB/s)\n",
              static_cast<unsigned long long>(rate), seconds, rate * recordBytes / 1024);
  for (int o = 1; o >= 0; --o) {
    const Run run = steady(dir, rate, seconds, o ? period : Clock::duration::zero());
    std::printf("  tails %-3s journal %8.1f KiB/s (%.1f bytes per record stored)\n", o ? "on" : "off",
                run.journalBytes / run.seconds / 1024, static_cast<double>(run.journalBytes) / run.records);
    printTails(run);
  }
  return 0;
}
