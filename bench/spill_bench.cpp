// The store past its memory cap: N synthetic kernels (and, with --api, as
// many cudaLaunchKernel calls) go through a trace store with a spill journal,
// then through the Chrome JSON and Perfetto protobuf exporters, which read the
// spilled records back through the journal's mapping.
//
//   spill_bench [--kernels N] [--api] [--cap SIZE] [--spill auto|always|off]
//               [--resident SIZE] [--keep-memory] [--formats json,pftrace,sqlite,reports] [--dir DIR] [--out DIR]
//
// Defaults: 20 million kernels, the default cap (512M), auto, DIR /tmp (where
// the journal goes). For a quick run scale the cap with the count: 2 million
// kernels and --cap 51M spill the same share as 20 million under 512M.
// Before exporting, records in memory make room for the exporters' own memory
// as the tracer does at exit (makeRoomForExport); --keep-memory skips that.
// --resident caps the journal pages kept mapped in while reading (16M).
//
// Reports, for collection and for each export: the time, and the growth of
// the process's peak resident memory (VmHWM, reset between phases through
// /proc/self/clear_refs) over what it held before the phase, split into
// anonymous memory (the store's chunks in memory, the exporters' own indexes
// and buffers) and file-backed memory (pages of the journal's mapping),
// sampled every 2 ms. Exports write to a stream that only counts bytes
// unless --out DIR is given.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "core/journal.h"
#include "core/config.h"
#include "core/writer_threads.h"
#include "exporters/export_all.h"
#include "core/parse.h"
#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "exporters/sqlite/sqlite.h"
#include "reports/report_table.h"
#include "reports/reports.h"
#include "bench/bench_util.h"

using namespace cuptitrace;
using cuptitrace::bench::Rng;
using cuptitrace::bench::CountingBuf;

namespace {

// ---- memory ----------------------------------------------------------------------

struct Memory {
  uint64_t rss = 0, hwm = 0, anon = 0, file = 0;  // bytes
};

Memory readMemory() {
  Memory m;
  std::ifstream in("/proc/self/status");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key) {
    if (key == "VmRSS:" || key == "VmHWM:" || key == "RssAnon:" || key == "RssFile:") {
      in >> kb >> unit;
      const uint64_t bytes = kb << 10;
      if (key == "VmRSS:") m.rss = bytes;
      else if (key == "VmHWM:") m.hwm = bytes;
      else if (key == "RssAnon:") m.anon = bytes;
      else m.file = bytes;
    } else {
      std::getline(in, unit);
    }
  }
  return m;
}

// Resets VmHWM to the current RSS (Linux 4.0 and later).
bool resetPeak() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

// Samples anonymous and file-backed RSS in the background, keeping the highest.
class Sampler {
 public:
  Sampler() : thread_([this] { loop(); }) {}
  ~Sampler() {
    stop_ = true;
    thread_.join();
  }
  void reset() {
    const Memory m = readMemory();
    anon_ = m.anon;
    file_ = m.file;
  }
  uint64_t peakAnon() const { return anon_; }
  uint64_t peakFile() const { return file_; }

 private:
  void loop() {
    while (!stop_) {
      const Memory m = readMemory();
      if (m.anon > anon_) anon_ = m.anon;
      if (m.file > file_) file_ = m.file;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> anon_{0}, file_{0};
  std::thread thread_;
};

double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }
double mibDelta(uint64_t a, uint64_t b) { return (static_cast<double>(a) - static_cast<double>(b)) / (1 << 20); }

struct Phase {
  Memory before;
  std::chrono::steady_clock::time_point t0;
};

Phase beginPhase(Sampler& sampler) {
  resetPeak();
  sampler.reset();
  return {readMemory(), std::chrono::steady_clock::now()};
}

// Returns the phase's peak RSS.
uint64_t endPhase(const char* name, const Phase& p, Sampler& sampler, const std::string& extra) {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - p.t0).count();
  const Memory after = readMemory();
  std::printf("%-10s %8.2f s  peak RSS +%8.1f MiB (anon +%7.1f, file-backed +%7.1f)  %s\n", name, s,
              mibDelta(after.hwm, p.before.rss), mibDelta(sampler.peakAnon(), p.before.anon),
              mibDelta(sampler.peakFile(), p.before.file), extra.c_str());
  return after.hwm;
}

// ---- records ----------------------------------------------------------------------

void fill(Trace& t, uint64_t kernels, bool api) {
  Rng rng{0x9E3779B97F4A7C15ull};
  std::vector<StringId> names;
  for (int i = 0; i < 20; ++i)
    names.push_back(t.strings.intern("_ZN7project6kernel" + std::to_string(i) + "IfLi256EEEvPKT_PS1_i"));
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  uint64_t cpu = t.meta.baseTimestampNs + 1'000, gpu = 0;
  for (uint64_t i = 0; i < kernels; ++i) {
    const auto correlation = static_cast<uint32_t>(i + 1);
    ApiRecord a{};
    a.start = cpu;
    a.end = cpu + 2'000 + rng.below(3'000);
    a.name = launch;
    a.correlationId = correlation;
    a.threadId = t.meta.pid;
    a.cbid = 211;
    if (api) t.store.add(a);
    KernelRecord k{};
    k.start = std::max(gpu + 200, a.start + 4'000);
    k.end = k.start + 1'500 + rng.below(4'000);
    k.name = names[rng.below(names.size())];
    k.correlationId = correlation;
    k.contextId = 1;
    k.streamId = 7 + static_cast<uint32_t>(i % 4);
    k.gridX = 128;
    k.gridY = k.gridZ = 1;
    k.blockX = 256;
    k.blockY = k.blockZ = 1;
    k.registersPerThread = 32;
    t.store.add(k);
    gpu = k.end;
    cpu = a.end + 300 + rng.below(700);
  }
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t kernels = 20'000'000, cap = 512ull << 20, resident = 0;
  bool api = false, makeRoom = true;
  SpillMode mode = SpillMode::Auto;
  std::string formats = "json,pftrace", dir = "/tmp", outDir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : "";
    if (arg == "--api" || arg == "--keep-memory") {
      (arg == "--api" ? api : makeRoom) = arg == "--api";
      continue;
    }
    ++i;
    if (arg == "--kernels") kernels = std::strtoull(value, nullptr, 10);
    else if (arg == "--cap") cap = parseSize(value).value_or(cap);
    else if (arg == "--resident") resident = parseSize(value).value_or(0);
    else if (arg == "--spill") mode = std::strcmp(value, "off") == 0 ? SpillMode::Off
                                      : std::strcmp(value, "always") == 0 ? SpillMode::Always : SpillMode::Auto;
    else if (arg == "--formats") formats = value;
    else if (arg == "--dir") dir = value;
    else if (arg == "--out") outDir = value;
    else {
      std::fprintf(stderr, "spill_bench: unknown argument %s\n", arg.c_str());
      return 2;
    }
  }

  Sampler sampler;
  Trace trace;
  trace.meta.toolVersion = "bench";
  trace.meta.hostName = "benchhost";
  trace.meta.pid = 31337;
  trace.meta.processName = "launch_loop";
  trace.meta.baseTimestampNs = trace.meta.startTimestampNs = 1'700'000'000'000'000'000ull;
  trace.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-0"});
  trace.contexts.push_back({1, 0, 7});
  trace.store.setMaxBytes(cap);
  const std::string journal = dir + "/spill_bench." + std::to_string(::getpid()) + ".spill";
  enableSpillJournal(trace, journal, mode);
  if (resident != 0 && trace.store.spillFile() != nullptr) trace.store.spillFile()->setResidentLimit(resident);

  const uint64_t records = kernels * (api ? 2 : 1);
  std::printf("%llu kernels%s, cap %.0f MiB, spill %s, journal in %s\n", static_cast<unsigned long long>(kernels),
              api ? " + as many cudaLaunchKernel calls" : "", mib(cap), spillModeName(mode), dir.c_str());
  const Memory start = readMemory();
  std::printf("RSS before collection: %.1f MiB\n", mib(start.rss));

  Phase p = beginPhase(sampler);
  fill(trace, kernels, api);
  const uint64_t stored = trace.store.count(RecordKind::Kernel) + trace.store.count(RecordKind::Api);
  const uint64_t inMemory = stored - trace.store.spilledRecords();
  const SpillFile* file = trace.store.spillFile();
  char extra[512];
  std::snprintf(extra, sizeof extra,
                "%.2f M records/s; stored %llu, dropped %llu; in memory %.1f MiB for %llu records "
                "(%.1f bytes/record); journal %.1f MiB for %llu records",
                static_cast<double>(records) / std::chrono::duration<double>(std::chrono::steady_clock::now() - p.t0).count() / 1e6,
                static_cast<unsigned long long>(stored), static_cast<unsigned long long>(trace.store.totalDropped()),
                mib(trace.store.bytesReserved()), static_cast<unsigned long long>(inMemory),
                inMemory ? static_cast<double>(trace.store.bytesReserved()) / static_cast<double>(inMemory) : 0.0,
                file != nullptr ? mib(file->size()) : 0.0,
                static_cast<unsigned long long>(trace.store.spilledRecords()));
  uint64_t peak = endPhase("collect", p, sampler, extra);
  const Memory collected = readMemory();
  std::printf("store growth per record stored, all phases so far: %.1f bytes in RSS, %.1f bytes in RSS + journal\n",
              mibDelta(collected.rss, start.rss) * (1 << 20) / static_cast<double>(records),
              (mibDelta(collected.rss, start.rss) * (1 << 20) + (file ? static_cast<double>(file->size()) : 0.0)) /
                  static_cast<double>(records));

  if (makeRoom) {
    // As the tracer does before writing: records in memory make room for the exporters' own memory.
    Phase r = beginPhase(sampler);
    const uint64_t spilled = trace.store.spilledRecords();
    uint32_t mask = 0;
    if (formats.find("json") != std::string::npos) mask |= kFormatJson;
    if (formats.find("pftrace") != std::string::npos) mask |= kFormatPftrace;
    if (formats.find("sqlite") != std::string::npos) mask |= kFormatSqlite;
    makeRoomForExport(trace, exportRoomBytes(mask, formats.find("reports") != std::string::npos, records,
                                             writerThreads()));
    char text[160];
    std::snprintf(text, sizeof text, "%llu more records spilled; in memory now %.1f MiB",
                  static_cast<unsigned long long>(trace.store.spilledRecords() - spilled),
                  mib(trace.store.bytesReserved()));
    peak = std::max(peak, endPhase("make room", r, sampler, text));
  }

  auto exportOne = [&](const char* name, const std::function<uint64_t(std::ostream&)>& write) {
    Phase e = beginPhase(sampler);
    uint64_t bytes = 0, events = 0;
    if (outDir.empty()) {
      CountingBuf buf;
      std::ostream out(&buf);
      events = write(out);
      bytes = buf.bytes;
    } else {
      std::ofstream out(outDir + "/spill_bench." + name, std::ios::binary);
      events = write(out);
      bytes = static_cast<uint64_t>(out.tellp());
    }
    char text[160];
    std::snprintf(text, sizeof text, "%.1f MiB, %llu events", mib(bytes), static_cast<unsigned long long>(events));
    peak = std::max(peak, endPhase(name, e, sampler, text));
  };
  if (formats.find("json") != std::string::npos)
    exportOne("json", [&](std::ostream& o) { return writeChromeJson(trace, o).events; });
  if (formats.find("pftrace") != std::string::npos)
    exportOne("pftrace", [&](std::ostream& o) { return writePerfettoProto(trace, o).events; });
  if (formats.find("sqlite") != std::string::npos) {
    // A database is a file: written under --out DIR (kept) or DIR (removed).
    exportOne("sqlite", [&](std::ostream&) {
      const std::string path = (outDir.empty() ? dir : outDir) + "/spill_bench.sqlite";
      const SqliteResult written = writeSqlite(trace, path, true);
      if (!written.error.empty()) std::fprintf(stderr, "spill_bench: %s\n", written.error.c_str());
      if (outDir.empty()) ::unlink(path.c_str());
      return written.rows;
    });
  }
  if (formats.find("reports") != std::string::npos) {
    // What the tracer builds at exit after the files (CUPTITRACE_SUMMARY): every report.
    exportOne("reports", [&](std::ostream& o) {
      const std::vector<ReportTable> tables = buildAllReports(trace, ReportOptions{});
      o << renderTables(tables, ReportFormat::Table, RenderOptions{});
      uint64_t rows = 0;
      for (const ReportTable& t : tables) rows += t.rows.size();
      return rows;
    });
  }

  const Memory end = readMemory();
  std::printf("peak RSS growth over the whole run: %.1f MiB (cap %.0f MiB + 64 MiB = %.0f MiB); RSS now %.1f MiB\n",
              mibDelta(peak, start.rss), mib(cap), mib(cap) + 64, mib(end.rss));
  std::printf("anon = store chunks in memory (unchanged during export) + exporters' indexes and buffers; "
              "file-backed = journal pages mapped in while reading\n");
  removeSpillJournal(trace);
  return trace.store.totalDropped() == 0 ? 0 : 1;
}
