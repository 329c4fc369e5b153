// The outputs written by several threads are the bytes one thread writes
// (a database: the same rows):
// JSON encoded in pieces of each window on several threads, the formats
// and CSV tables written at once (export_all), over traces that span many
// windows, pieces and store chunks, in memory and spilled.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/config.h"
#include "core/journal.h"
#include "core/trace.h"
#include "core/writer_threads.h"
#include "exporters/export_all.h"
#include "exporters/native/native.h"
#include "exporters/json/chrome_json.h"
#include "exporters/json/json_window_pieces.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "exporters/pftrace/pftrace_wire.h"
#include "pftrace_decoder.h"
#include "reports/report_table.h"
#include "reports/reports.h"
#include "core/ordered_work.h"
#include "sqlite_query.h"
#include "temp_dir.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::initTrace;
using cuptitrace::testing::TempDir;

namespace {

// Launches from three threads (runtime calls around driver calls, NVTX
// ranges around some), kernels of names that need escaping on four streams
// that sometimes overlap (lanes, some opened in later windows), a few
// queued far behind their launch: many times kJsonPieceSlices slices, and
// many chunks of each kind.
void fillLaunches(Trace& t, uint32_t launches) {
  std::mt19937_64 rng(11);
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  uint64_t now = b + 1000;
  uint64_t streamFree[4] = {now, now, now, now};
  const char* names[] = {"_Z1av", "_Z1bv", "kernel \"quoted\" \\ \xC3\xA9", "_ZN7project6kernelIfLi256EEEvPKT_PS1_i"};
  for (uint32_t corr = 1; corr <= launches; ++corr) {
    const uint32_t tid = corr % 3 == 0 ? 4243 : (corr % 3 == 1 ? 4244 : cuptitrace::testing::kSamplePid);
    now += 200 + rng() % 400;
    const uint64_t end = now + 150 + rng() % 100;
    if (corr % 50 == 0) addNvtx(t, NvtxType::PushPop, now - 10, end + 10 + rng() % 2000, "step", tid);
    addApi(t, now, end, corr, tid);
    if (corr % 2 == 0) addApi(t, now + 20, end - 20, corr, tid, ApiDomain::Driver, "cuLaunchKernel");
    const uint32_t stream = corr % 4;
    uint64_t start = std::max(end + rng() % 300, streamFree[stream]);
    if (rng() % 10 == 0) start -= 50;      // overlaps the one before: a lane
    if (corr % 700 == 0) start += 200000;  // queued far behind its launch
    const uint64_t length = corr % 997 == 0 ? 300000 : 100 + rng() % 500;
    addKernel(t, start, start + length, corr, 7 + 2 * stream, names[corr % 4]);
    streamFree[stream] = start + length;
  }
  addNvtx(t, NvtxType::Mark, now, now, "done");
  addNvtx(t, NvtxType::StartEnd, b + 5000, now, "whole run");
}

std::string json(const Trace& t, size_t windowSlices, unsigned threads, JsonExportStats* stats = nullptr) {
  std::ostringstream out;
  const JsonExportStats s = writeChromeJson(t, out, windowSlices, threads);
  if (stats != nullptr) *stats = s;
  return out.str();
}

// The serial and parallel JSON of `t`, compared byte for byte for several
// window sizes and thread counts; prints one line saying what was compared.
void compareJson(const Trace& t, const char* what) {
  size_t compared = 0, bytes = 0;
  for (const size_t window : {kDefaultWindowSlices, size_t{10000}, size_t{777}}) {
    JsonExportStats serialStats{};
    const std::string serial = json(t, window, 1, &serialStats);
    REQUIRE(serialStats.events > 3 * kJsonPieceSlices);
    for (const unsigned threads : {2u, 3u, 8u}) {
      JsonExportStats stats{};
      const std::string parallel = json(t, window, threads, &stats);
      CHECK(parallel.size() == serial.size());
      CHECK(parallel == serial);
      CHECK(stats.events == serialStats.events);
      CHECK(stats.flows == serialStats.flows);
      CHECK(stats.laneTracks == serialStats.laneTracks);
      ++compared;
    }
    bytes = serial.size();
  }
  std::printf("parallel json (%s): %zu serial/parallel pairs byte-identical, %zu bytes each at one window\n", what,
              compared, bytes);
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Sets CUPTITRACE_WRITER_THREADS for a scope.
struct WriterThreads {
  explicit WriterThreads(const char* value) { ::setenv("CUPTITRACE_WRITER_THREADS", value, 1); }
  ~WriterThreads() { ::unsetenv("CUPTITRACE_WRITER_THREADS"); }
};

}  // namespace

TEST_CASE("parallel json: the bytes of the serial writer, in memory", "[parallel][json]") {
  Trace t;
  fillLaunches(t, 12000);
  compareJson(t, "in memory");
}

TEST_CASE("parallel json: the bytes of the serial writer, spilled store", "[parallel][json]") {
  TempDir dir;
  Trace t;
  enableSpillJournal(t, dir.path("run.spill"), SpillMode::Always);
  fillLaunches(t, 12000);
  REQUIRE(t.store.spilledChunks() >= 4);
  compareJson(t, "spilled");
}

TEST_CASE("spilled store: the JSON, the .pftrace and every report as from memory", "[parallel][json][pftrace]") {
  // Passes in order read spilled chunks into buffers of their own (pread),
  // reads by index through the mapping: either way the records of memory.
  TempDir dir;
  Trace spilled, held;
  enableSpillJournal(spilled, dir.path("run.spill"), SpillMode::Always);
  fillLaunches(spilled, 12000);
  fillLaunches(held, 12000);
  REQUIRE(spilled.store.spilledChunks() >= 4);
  REQUIRE(held.store.spilledChunks() == 0);
  for (const unsigned threads : {1u, 3u}) {
    std::ostringstream a, b;
    writeChromeJson(spilled, a, 3000, threads);
    writeChromeJson(held, b, 3000, threads);
    CHECK(a.str() == b.str());
  }
  std::ostringstream pa, pb;
  writePerfettoProto(spilled, pa, 3000);
  writePerfettoProto(held, pb, 3000);
  CHECK(pa.str() == pb.str());
  for (const char* threads : {"1", "4"}) {
    ::setenv("CUPTITRACE_WRITER_THREADS", threads, 1);
    ReportOptions options;
    options.windowRecords = 2000;  // sweeps in windows: prepare() starts them beside the tables
    const std::string ra = renderTables(buildAllReports(spilled, options), ReportFormat::Json, RenderOptions{});
    const std::string rb = renderTables(buildAllReports(held, options), ReportFormat::Json, RenderOptions{});
    ::unsetenv("CUPTITRACE_WRITER_THREADS");
    CHECK(ra == rb);
    CHECK(ra.find("cudaLaunchKernel") != std::string::npos);
  }
}

TEST_CASE("parallel json: merged traces are the bytes of the serial writer", "[parallel][json]") {
  Trace a, b;
  fillLaunches(a, 5000);
  fillLaunches(b, 4000);
  b.meta.hostName = "node2";
  std::vector<TimelineInput> inputs = {timelineInput(a), timelineInput(b)};
  inputs[1].idOffset = 1000;
  inputs[1].gpuKey = 1;
  std::ostringstream serial, parallel;
  writeChromeJson(inputs, serial, 3000, 1);
  writeChromeJson(inputs, parallel, 3000, 4);
  CHECK(parallel.str() == serial.str());
  std::printf("parallel json (merged): %zu bytes identical\n", serial.str().size());
}

TEST_CASE("parallel pftrace: pieces on several threads, the bytes of the serial writer",
          "[parallel][pftrace]") {
  Trace t;
  fillLaunches(t, 40000);
  size_t compared = 0, bytes = 0, windows = 0, sequences = 0;
  for (const size_t window : {kDefaultWindowSlices, size_t{5000}}) {
    std::ostringstream serial;
    PerfettoExportStats serialStats{};
    {
      const WriterThreads threads("1");
      serialStats = writePerfettoProto(t, serial, window);
    }
    // Several windows (with the small one), and several flushes of the output.
    REQUIRE(serial.str().size() > 3 * pftrace::kFlushBytes);
    // Valid as trace processor reads it; a track's slices of one window in
    // several pieces, each on a sequence of its own (with the large window).
    const cuptitrace::testing::perfetto::Decoded d =
        cuptitrace::testing::perfetto::decodePerfetto(serial.str());
    INFO(d.problemText());
    CHECK(d.problems.empty());
    CHECK(d.arrows.size() == serialStats.flows);
    CHECK(serialStats.flows > 39000);
    std::set<uint64_t> seen;
    for (const auto& e : d.events) seen.insert(e.sequence);
    if (window == kDefaultWindowSlices) {
      CHECK(serialStats.windows == 1);
      CHECK(seen.size() > 1 + 3 + 4 + 1);  // more than the main sequence and one per track
    }
    sequences = std::max(sequences, seen.size());
    for (const char* n : {"2", "4", "8"}) {
      const WriterThreads threads(n);
      std::ostringstream parallel;
      const PerfettoExportStats stats = writePerfettoProto(t, parallel, window);
      CHECK(parallel.str() == serial.str());
      CHECK(stats.bytes == serialStats.bytes);
      CHECK(stats.packets == serialStats.packets);
      CHECK(stats.laneTracks == serialStats.laneTracks);
      ++compared;
    }
    bytes = serial.str().size();
    windows = std::max<size_t>(windows, serialStats.windows);
  }
  CHECK(windows > 2);  // so some were laid out ahead
  std::printf("parallel pftrace: %zu pairs byte-identical, %zu bytes each, up to %zu windows, %zu sequences\n",
              compared, bytes, windows, sequences);
}

TEST_CASE("parallel outputs: every format written at once is the bytes of one thread", "[parallel][export]") {
  TempDir dir;
  Trace t;
  enableSpillJournal(t, dir.path("run.spill"), SpillMode::Always);
  fillLaunches(t, 9000);
  const uint32_t formats = kFormatJson | kFormatJsonGz | kFormatPftrace | kFormatCsv | kFormatNative | kFormatSqlite;
  std::filesystem::create_directory(dir.path() / "one");
  std::filesystem::create_directory(dir.path() / "all");
  ExportResult one, all;
  {
    const WriterThreads threads("1");
    one = exportAll(t, formats, dir.path("one/trace"));
  }
  {
    const WriterThreads threads("4");
    all = exportAll(t, formats, dir.path("all/trace"));
  }
  REQUIRE(one.errors.empty());
  REQUIRE(all.errors.empty());
  REQUIRE(one.written.size() == all.written.size());
  REQUIRE(one.written.size() >= 6);
  size_t files = 0, bytes = 0;
  for (size_t i = 0; i < one.written.size(); ++i) {
    const std::filesystem::path a = one.written[i], b = all.written[i];
    CHECK(a.filename() == b.filename());  // listed in the same order
    const std::string x = readFile(a), y = readFile(b);
    INFO(a.filename().string());
    CHECK(!x.empty());
    // A database holds the same rows, not the same pages (sqlite_parts.h).
    if (a.extension() == ".sqlite") {
      const auto c = testing::sqlite::contents(a), d = testing::sqlite::contents(b);
      REQUIRE(c.size() == d.size());
      for (size_t k = 0; k < c.size(); ++k) {
        INFO(c[k > 0 ? k - (k + 1) % 2 : 0].front().front());  // the table
        CHECK(c[k] == d[k]);
      }
    } else {
      CHECK(x == y);
    }
    ++files;
    bytes += x.size();
  }
  std::printf("parallel outputs: %zu files (%zu bytes) identical with 1 and 4 writer threads (the database's rows)\n",
              files, bytes);
  // The native trace's chunks go to the file without a copy (spilled ones
  // copied by the kernel from the spill file): the bytes written to a stream.
  std::ostringstream native;
  writeNative(t, native);
  size_t natives = 0;
  for (const auto* written : {&one.written, &all.written})
    for (const std::string& path : *written)
      if (std::filesystem::path(path).extension() == ".native") {
        CHECK(readFile(path) == native.str());
        ++natives;
      }
  CHECK(natives == 2);
}

TEST_CASE("parallel pieces: results handed on in order, however the threads finish", "[parallel]") {
  std::vector<size_t> order;
  runInOrder<size_t>(
      200, 4, 8,
      [&](unsigned worker, size_t piece, size_t& result) {
        std::this_thread::sleep_for(std::chrono::microseconds((piece * 7919) % 300));
        result = worker < 4 ? piece : SIZE_MAX;
      },
      [&](size_t piece, size_t& result) {
        CHECK(result == piece);
        order.push_back(result);
      });
  REQUIRE(order.size() == 200);
  for (size_t i = 0; i < order.size(); ++i) CHECK(order[i] == i);
}

TEST_CASE("writer threads: CUPTITRACE_WRITER_THREADS, else the usable cores", "[parallel][config]") {
  CHECK(usableCores() >= 1);
  CHECK(parseWriterThreads("auto") == 0u);
  CHECK(parseWriterThreads("0") == 0u);
  CHECK(parseWriterThreads("12") == 12u);
  CHECK_FALSE(parseWriterThreads("12abc"));
  CHECK_FALSE(parseWriterThreads("257"));
  CHECK_FALSE(parseWriterThreads(""));
  {
    const WriterThreads threads("3");
    CHECK(writerThreads() == 3);
  }
  {
    const WriterThreads threads("lots");  // rejected at start-up with a message; the cores here
    CHECK(writerThreads() == usableCores());
  }
  CHECK(writerThreads() == usableCores());
}
