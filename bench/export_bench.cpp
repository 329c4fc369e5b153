// How fast the timeline exporters write, and how large what they write is,
// over a synthetic launch-bound trace: N kernels on one stream, each launched
// by a cudaLaunchKernel call on one thread (1 million pairs by default),
// kernels of 20 names with their own registers and shared memory, a few grid
// shapes, durations of a few microseconds.
//
//   export_bench [--pairs N] [--seed S] [--repeat R] [--out DIR]
//   export_bench --exit DIR [--pairs N] [--repeat R] [--format F] [--threads T]
//   export_bench --native PATH [--pairs N] [--seed S]
//
// Prints, for Chrome JSON, Perfetto protobuf and json.gz (the JSON through
// zlib, as CUPTITRACE_FORMAT=json.gz writes it), the speed on one core (the
// best of R runs, 3 by default, by the thread's CPU time so that other work
// on the machine does not count; the output goes to a stream that only
// counts bytes) and the size, per record (a kernel or an API call: one slice each,
// one arrow per pair) and per event in each format's own terms: a JSON trace
// event (one "X" per slice, plus a few metadata events), a Perfetto
// TrackEvent (a slice is a SLICE_BEGIN and a SLICE_END). With --out, also
// writes DIR/export_bench.json and DIR/export_bench.pftrace to look at.
// With --native PATH, only writes the trace as a native trace to PATH (to
// time the command on: scripts/bench-writers.sh).
//
// With --exit, what the exit of a traced program waits for instead
// (bench/exit_delay.h): each format written into files under DIR as at exit
// (exportAll), with one writer thread and with all the cores, paired; the
// store held within the default CUPTITRACE_MAX_MEMORY, the rest spilled
// into DIR, as in a traced program. --format F times that format alone
// (native, pftrace, json, sqlite or csv); --threads T writes the second run
// with T writer threads instead of every usable core. EXIT_DELAY_KEEP=1 in
// the environment keeps the files of the last run to look at.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <streambuf>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/config.h"
#include "core/journal.h"
#include "core/trace.h"
#include "core/writer_threads.h"
#include "exporters/export_all.h"
#include "exporters/json/chrome_json.h"
#include "exporters/gzip_stream.h"
#include "exporters/native/native.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "bench/bench_util.h"
#include "bench/exit_delay.h"

using namespace cuptitrace;
using cuptitrace::bench::Rng;
using cuptitrace::bench::CountingBuf;

namespace {

void fill(Trace& t, uint64_t pairs, uint64_t seed) {
  Rng rng{seed * 0x9E3779B97F4A7C15ull + 1};
  t.meta.toolVersion = "bench";
  t.meta.hostName = "benchhost";
  t.meta.pid = 31337;
  t.meta.processName = "launch_loop";
  t.meta.clock = "cupti";
  t.meta.baseTimestampNs = 1'700'000'000'000'000'000ull;
  t.meta.startTimestampNs = t.meta.baseTimestampNs;
  t.meta.startRealtimeNs = t.meta.baseTimestampNs + 12'345;
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-0"});
  t.contexts.push_back({1, 0, 7});

  struct KernelShape {
    StringId name;
    uint16_t registers;
    int32_t sharedMemory;
  };
  std::vector<KernelShape> shapes;
  for (int i = 0; i < 20; ++i) {
    // "void project::kernel7<float, 256>(float const*, float*, int)"
    const std::string kernel = "kernel" + std::to_string(i);
    shapes.push_back({t.strings.intern("_ZN7project" + std::to_string(kernel.size()) + kernel +
                                       "IfLi256EEEvPKT_PS1_i"),
                      static_cast<uint16_t>(16 + 8 * (i % 6)), (i % 3) * 4096});
  }
  const StringId launch = t.strings.intern("cudaLaunchKernel");

  uint64_t cpu = t.meta.baseTimestampNs + 1'000;
  uint64_t gpu = 0;  // end of the last kernel on the stream
  for (uint64_t i = 0; i < pairs; ++i) {
    const uint32_t correlation = static_cast<uint32_t>(i + 1);
    ApiRecord a{};
    a.start = cpu;
    a.end = cpu + 2'000 + rng.below(3'000);
    a.name = launch;
    a.correlationId = correlation;
    a.threadId = t.meta.pid;
    a.cbid = 211;
    a.domain = static_cast<uint8_t>(ApiDomain::Runtime);
    t.store.add(a);

    const KernelShape& shape = shapes[rng.below(shapes.size())];
    KernelRecord k{};
    k.start = std::max(gpu + 200, a.start + 4'000);
    k.end = k.start + 1'500 + rng.below(4'000);
    k.name = shape.name;
    k.correlationId = correlation;
    k.deviceId = 0;
    k.contextId = 1;
    k.streamId = 7;
    k.gridX = 128 << rng.below(4);
    k.gridY = k.gridZ = 1;
    k.blockX = 256;
    k.blockY = k.blockZ = 1;
    k.registersPerThread = shape.registers;
    k.staticSharedMemory = shape.sharedMemory;
    t.store.add(k);
    gpu = k.end;
    cpu = a.end + 300 + rng.below(700);
  }
}

// Hands each line written to it, without its line end, to `f`.
class LineBuf : public std::streambuf {
 public:
  explicit LineBuf(std::function<void(std::string_view)> f) : f_(std::move(f)) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) put(s[i]);
    return n;
  }
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) put(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }

 private:
  void put(char c) {
    if (c != '\n') {
      line_.push_back(c);
      return;
    }
    f_(line_);
    line_.clear();
  }
  std::function<void(std::string_view)> f_;
  std::string line_;
};

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// CPU time of the calling thread: what one core spent, whatever else the machine runs.
double threadSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Run {
  double seconds = 0;  // the best of the runs, wall clock
  double cpu = 0;      // the best of the runs, the thread's CPU time
  uint64_t bytes = 0;
  uint64_t events = 0;  // in the format's own terms
};

// Best time of `repeat` runs of `write` into a counting stream; `write`
// returns the number of events it wrote.
Run measure(int repeat, const std::function<uint64_t(std::ostream&)>& write) {
  Run run;
  for (int r = 0; r < repeat; ++r) {
    CountingBuf buf;
    std::ostream out(&buf);
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = threadSeconds();
    run.events = write(out);
    const double c = threadSeconds() - c0;
    const double s = seconds(t0, std::chrono::steady_clock::now());
    if (r == 0 || s < run.seconds) run.seconds = s;
    if (r == 0 || c < run.cpu) run.cpu = c;
    run.bytes = buf.bytes;
  }
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t pairs = 1'000'000, seed = 1;
  uint32_t threads = 0;
  int repeat = 3;
  std::string outDir, exitDir, nativePath, onlyFormat;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--pairs") == 0)
      pairs = std::strtoull(argv[i + 1], nullptr, 10);
    else if (std::strcmp(argv[i], "--seed") == 0)
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (std::strcmp(argv[i], "--repeat") == 0)
      repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--out") == 0)
      outDir = argv[i + 1];
    else if (std::strcmp(argv[i], "--exit") == 0)
      exitDir = argv[i + 1];
    else if (std::strcmp(argv[i], "--native") == 0)
      nativePath = argv[i + 1];
    else if (std::strcmp(argv[i], "--format") == 0)
      onlyFormat = argv[i + 1];
    else if (std::strcmp(argv[i], "--threads") == 0)
      threads = static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
  }
  Trace trace;
  if (!exitDir.empty()) {
    // As at a program's exit: the store held within CUPTITRACE_MAX_MEMORY's
    // default, the rest spilled to a file beside the outputs.
    trace.store.setMaxBytes(Config{}.maxMemory);
    enableSpillJournal(trace, exitDir + "/export_bench.spill", SpillMode::Auto);
    fill(trace, pairs, seed);
    // And, as the exit does, room made for what the outputs hold besides
    // the records (the formats timed, no reports, as scripts/bench.sh runs).
    uint32_t mask = kFormatNative | kFormatPftrace | kFormatJson | kFormatSqlite | kFormatCsv;
    if (onlyFormat == "native") mask = kFormatNative;
    if (onlyFormat == "pftrace") mask = kFormatPftrace;
    if (onlyFormat == "json") mask = kFormatJson;
    if (onlyFormat == "sqlite") mask = kFormatSqlite;
    if (onlyFormat == "csv") mask = kFormatCsv;
    const auto t0 = std::chrono::steady_clock::now();
    makeRoomForExport(trace, exportRoomBytes(mask, false, 2 * pairs, threads != 0 ? threads : usableCores()));
    std::printf("room for the outputs made in %.3f s: %llu chunks spilled in all\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                static_cast<unsigned long long>(trace.store.spilledChunks()));
    const int status = cuptitrace::bench::exitDelay(trace, exitDir, repeat, onlyFormat, threads);
    ::unlink((exitDir + "/export_bench.spill").c_str());
    return status;
  }
  fill(trace, pairs, seed);
  if (!nativePath.empty()) {
    std::ofstream n(nativePath, std::ios::binary);
    writeNative(trace, n);
    n.close();
    if (!n) std::fprintf(stderr, "export_bench: cannot write %s\n", nativePath.c_str());
    return n ? 0 : 1;
  }
  const double records = 2.0 * static_cast<double>(pairs);
  std::printf("%llu kernels + %llu cudaLaunchKernel calls (%llu arrows), best of %d runs\n",
              static_cast<unsigned long long>(pairs), static_cast<unsigned long long>(pairs),
              static_cast<unsigned long long>(pairs), repeat);

  const Run json =
      measure(repeat, [&](std::ostream& o) { return writeChromeJson(trace, o, kDefaultWindowSlices, 1).events; });
  const Run proto =
      measure(repeat, [&](std::ostream& o) { return writePerfettoProto(trace, o).events; });
  // json.gz: the same JSON through the gzip stream (zlib), as CUPTITRACE_FORMAT=json.gz writes it.
  const Run gz = measure(repeat, [&](std::ostream& o) {
    GzipOStream z(o);
    const uint64_t events = writeChromeJson(trace, z, kDefaultWindowSlices, 1).events;
    z.finish();
    return events;
  });
  // Speeds by CPU time (one core's work); the wall-clock time is printed too.
  auto line = [&](const char* format, const Run& m) {
    std::printf(
        "%-8s %6.2f M records/s %6.2f M events/s  %7.2f bytes/record %6.2f bytes/event  "
        "%7.1f MiB, %.3f s CPU, %.3f s wall\n",
        format, records / m.cpu / 1e6, static_cast<double>(m.events) / m.cpu / 1e6,
        static_cast<double>(m.bytes) / records,
        static_cast<double>(m.bytes) / static_cast<double>(m.events),
        static_cast<double>(m.bytes) / (1 << 20), m.cpu, m.seconds);
  };
  line("json", json);
  line("pftrace", proto);
  line("json.gz", gz);
  std::printf("json.gz: %.1f times smaller than the JSON, %.0f MB of JSON compressed a second (CPU)\n",
              static_cast<double>(json.bytes) / static_cast<double>(gz.bytes),
              static_cast<double>(json.bytes) / gz.cpu / 1e6);
  // The JSON encoded by every usable core (the same bytes), by wall clock
  // against one thread's wall clock: no disk in either.
  const unsigned cores = usableCores();
  if (cores > 1) {
    const Run many = measure(repeat, [&](std::ostream& o) {
      return writeChromeJson(trace, o, kDefaultWindowSlices, cores).events;
    });
    std::printf("json on %u threads: %.2f M records/s by wall clock, %.2f times one thread's %.2f\n", cores,
                records / many.seconds / 1e6, json.seconds / many.seconds, records / json.seconds / 1e6);
  }

  // What one kernel's X event takes in the JSON, arrow and arguments included
  // (one event a line), seen line by line as it is written.
  uint64_t kernelEvents = 0, kernelBytes = 0, nameBytes = 0;
  LineBuf lines([&](std::string_view l) {
    if (l.find("\"cat\":\"kernel\"") == std::string_view::npos) return;
    ++kernelEvents;
    kernelBytes += l.size() + 1;  // and its line end
    const size_t at = l.find("\"name\":\"") + 8;
    nameBytes += l.find('"', at) - at;
  });
  std::ostream text(&lines);
  writeChromeJson(trace, text, kDefaultWindowSlices, 1);
  if (kernelEvents != 0)
    std::printf("json kernel event: %.2f bytes on average, of which %.2f its name\n",
                static_cast<double>(kernelBytes) / static_cast<double>(kernelEvents),
                static_cast<double>(nameBytes) / static_cast<double>(kernelEvents));

  if (!outDir.empty()) {
    std::ofstream j(outDir + "/export_bench.json", std::ios::binary);
    writeChromeJson(trace, j);
    std::ofstream p(outDir + "/export_bench.pftrace", std::ios::binary);
    writePerfettoProto(trace, p);
    if (!j || !p) {
      std::fprintf(stderr, "export_bench: cannot write into %s\n", outDir.c_str());
      return 1;
    }
  }
  return 0;
}
