// Summary reports: hand-computed expectations on small synthetic traces.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/report_table.h"
#include "reports/reports.h"
#include "reports/stats.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

// ---- building traces ---------------------------------------------------------

uint32_t gCorrelation = 1000;

void kernel(Trace& t, const std::string& name, uint64_t start, uint64_t end, uint32_t stream = 7,
            uint32_t device = 0, int32_t gridX = 1, uint16_t blockX = 32) {
  KernelRecord k{};
  k.start = start;
  k.end = end;
  k.name = t.strings.intern(name);
  k.correlationId = ++gCorrelation;
  k.deviceId = device;
  k.streamId = stream;
  k.gridX = gridX;
  k.gridY = k.gridZ = 1;
  k.blockX = blockX;
  k.blockY = k.blockZ = 1;
  t.store.add(k);
}

void memcpy(Trace& t, CopyKind kind, MemoryKind src, MemoryKind dst, uint64_t bytes, uint64_t start,
            uint64_t end, bool async = true, uint32_t stream = 7, uint32_t device = 0) {
  MemcpyRecord m{};
  m.start = start;
  m.end = end;
  m.bytes = bytes;
  m.correlationId = ++gCorrelation;
  m.deviceId = m.srcDeviceId = m.dstDeviceId = device;
  m.streamId = stream;
  m.copyKind = static_cast<uint8_t>(kind);
  m.srcKind = static_cast<uint8_t>(src);
  m.dstKind = static_cast<uint8_t>(dst);
  m.flags = async ? kCopyFlagAsync : 0;
  t.store.add(m);
}

void memset(Trace& t, uint64_t bytes, uint64_t start, uint64_t end, uint32_t stream = 7) {
  MemsetRecord m{};
  m.start = start;
  m.end = end;
  m.bytes = bytes;
  m.correlationId = ++gCorrelation;
  m.streamId = stream;
  m.memoryKind = static_cast<uint8_t>(MemoryKind::Device);
  t.store.add(m);
}

void api(Trace& t, const std::string& name, uint64_t start, uint64_t end, uint32_t thread = 1) {
  ApiRecord a{};
  a.start = start;
  a.end = end;
  a.name = t.strings.intern(name);
  a.correlationId = ++gCorrelation;
  a.threadId = thread;
  a.domain =
      static_cast<uint8_t>(name.rfind("cuda", 0) == 0 ? ApiDomain::Runtime : ApiDomain::Driver);
  t.store.add(a);
}

void range(Trace& t, const std::string& message, uint64_t start, uint64_t end,
           NvtxType type = NvtxType::PushPop, const std::string& domain = "", uint8_t flags = 0,
           uint32_t thread = 1, uint16_t depth = 0) {
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(type);
  n.start = start;
  n.end = end;
  n.message = t.strings.intern(message);
  n.domain = domain.empty() ? kNoString : t.strings.intern(domain);
  n.flags = flags;
  n.threadId = n.endThreadId = thread;
  n.depth = depth;
  t.store.add(n);
}

// ---- reading tables ----------------------------------------------------------

size_t col(const ReportTable& table, const std::string& key) {
  for (size_t i = 0; i < table.columns.size(); ++i)
    if (table.columns[i].key == key) return i;
  throw std::runtime_error("no column " + key + " in " + table.name);
}

// The row whose name (or range, or operation) column is `name`.
const std::vector<Cell>& row(const ReportTable& table, const std::string& name, size_t nameColumn) {
  for (const auto& r : table.rows)
    if (r[nameColumn].s == name) return r;
  throw std::runtime_error("no row " + name + " in " + table.name);
}
const std::vector<Cell>& row(const ReportTable& table, const std::string& name) {
  const std::string key = table.name == "nvtx" ? "range" : "name";
  return row(table, name, col(table, key));
}

uint64_t intAt(const ReportTable& table, const std::vector<Cell>& r, const std::string& key) {
  const Cell& c = r.at(col(table, key));
  REQUIRE(c.kind == Cell::Kind::Int);
  return c.i;
}
double numAt(const ReportTable& table, const std::vector<Cell>& r, const std::string& key) {
  const Cell& c = r.at(col(table, key));
  REQUIRE(c.kind != Cell::Kind::Empty);
  return c.number();
}
std::vector<std::string> names(const ReportTable& table, const std::string& key = "name") {
  std::vector<std::string> out;
  for (const auto& r : table.rows) out.push_back(r[col(table, key)].s);
  return out;
}
bool anyNoteContains(const ReportTable& table, const std::string& text) {
  for (const auto& n : table.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

ReportTable report(const Trace& t, const char* name, const ReportOptions& options = {}) {
  return buildReport(t, name, options);
}

}  // namespace

// ---- statistics ----------------------------------------------------------------

TEST_CASE("report stats: exact median, sample standard deviation, single value", "[report]") {
  std::vector<uint64_t> v{10, 1, 3, 2};
  const Summary s = summarize(v);
  CHECK(s.count == 4);
  CHECK(s.total == 16);
  CHECK(s.min == 1);
  CHECK(s.max == 10);
  CHECK(s.mean == Approx(4.0));
  CHECK(s.median == Approx(2.5));                    // mean of the two middle values
  CHECK(s.stddev == Approx(std::sqrt(50.0 / 3.0)));  // (9 + 4 + 1 + 36) / (n - 1)

  std::vector<uint64_t> odd{5, 1, 9};
  CHECK(summarize(odd).median == 5.0);

  std::vector<uint64_t> one{42};
  const Summary single = summarize(one);
  CHECK(single.median == 42.0);
  CHECK(single.stddev == 0.0);
  CHECK(single.min == 42);
  CHECK(single.max == 42);

  std::vector<uint64_t> none;
  CHECK(summarize(none).count == 0);
}

TEST_CASE("report stats: interval unions and coverage of a window", "[report]") {
  std::vector<Interval> v{{50, 150}, {0, 100}, {150, 160}, {300, 400}, {500, 500}};
  mergeIntervals(v);
  REQUIRE(v.size() == 2);  // touching intervals merge, empty ones go
  CHECK(v[0].start == 0);
  CHECK(v[0].end == 160);
  CHECK(coveredLength(v) == 260);
  const Gaps g = gapsOf(v);
  CHECK(g.count == 1);
  CHECK(g.total == 140);
  CHECK(g.largest == 140);
  CHECK(g.largestStart == 160);
  const auto u = unionOf(v, {{155, 310}});
  REQUIRE(u.size() == 1);
  CHECK(u[0].end == 400);
}

// ---- GPU activities and API calls -------------------------------------------------

TEST_CASE("report gpu_activities: kernels and memory operations of the sample trace", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  const ReportTable table = report(t, "gpu_activities");
  REQUIRE(table.rows.size() == 6);
  // Sorted by total: 12 us kernel, 10 us HtoD, two 6 us kernels by name, 4 us DtoH, 1 us memset.
  const auto n = names(table);
  CHECK(n[0] == testing::kHostileKernelName);
  CHECK(n[1] == "[CUDA memcpy HtoD]");
  CHECK(n[2] ==
        "add(float*, float*, float*, int)");  // demangled, and before "void gemm<..." on the tie
  CHECK(n[3].rfind("void gemm<", 0) == 0);
  CHECK(n[4] == "[CUDA memcpy DtoH]");
  CHECK(n[5] == "[CUDA memset]");
  const auto& htod = row(table, "[CUDA memcpy HtoD]");
  CHECK(intAt(table, htod, "total") == 10000);
  CHECK(intAt(table, htod, "calls") == 1);
  CHECK(numAt(table, htod, "time_pct") == Approx(100.0 * 10 / 39));
  double pct = 0;
  for (const auto& r : table.rows) pct += r[col(table, "time_pct")].number();
  CHECK(pct == Approx(100.0));
  CHECK(table.notes.empty());
}

TEST_CASE("report api_calls: per name statistics of the sample trace", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  const ReportTable table = report(t, "api_calls");
  // cuLaunchKernel (correlation 11) ran inside a cudaLaunchKernel: counted there.
  CHECK(names(table) == std::vector<std::string>{"cudaMemcpyAsync", "cudaLaunchKernel", "cudaMemcpy",
                                                 "cudaMemsetAsync"});
  REQUIRE(table.notes.size() == 1);
  CHECK(table.notes[0].rfind("1 driver calls made inside runtime calls are left out", 0) == 0);
  const auto& launch = row(table, "cudaLaunchKernel");
  CHECK(intAt(table, launch, "calls") == 3);
  CHECK(intAt(table, launch, "total") == 10000);
  CHECK(numAt(table, launch, "avg") == Approx(10000.0 / 3));
  CHECK(numAt(table, launch, "med") == 3000.0);
  CHECK(intAt(table, launch, "min") == 3000);
  CHECK(intAt(table, launch, "max") == 4000);
  CHECK(numAt(table, launch, "stddev") == Approx(std::sqrt((2 * 1e6 / 9 + 4e6 / 9) / 2)));
  CHECK(numAt(table, launch, "time_pct") == Approx(100.0 * 10 / 32));
}

TEST_CASE("report: ties sort by name whatever the record order, a single call has StdDev 0",
          "[report]") {
  for (const bool reversed : {false, true}) {
    Trace t;
    const std::vector<std::string> order = reversed
                                               ? std::vector<std::string>{"zeta", "alpha", "mid"}
                                               : std::vector<std::string>{"mid", "alpha", "zeta"};
    for (const auto& name : order) kernel(t, name, 1000, 1500);
    kernel(t, "big", 0, 5000);
    const ReportTable table = report(t, "gpu_activities");
    CHECK(names(table) == std::vector<std::string>{"big", "alpha", "mid", "zeta"});
    const auto& one = row(table, "alpha");
    CHECK(intAt(table, one, "calls") == 1);
    CHECK(numAt(table, one, "avg") == 500.0);
    CHECK(numAt(table, one, "med") == 500.0);
    CHECK(intAt(table, one, "min") == 500);
    CHECK(intAt(table, one, "max") == 500);
    CHECK(numAt(table, one, "stddev") == 0.0);
  }
}

TEST_CASE("report: kernels without an end are counted and named, not timed", "[report]") {
  Trace t;
  kernel(t, "k", 100, 300);
  kernel(t, "k", 400, 0);    // end never collected
  kernel(t, "k", 900, 800);  // end before start
  kernel(t, "z", 0, 0);      // only untimed records: a row with no times
  const uint32_t lastCorrelation = gCorrelation;
  const ReportTable table = report(t, "gpu_activities");
  const auto& k = row(table, "k");
  CHECK(intAt(table, k, "calls") == 3);
  CHECK(intAt(table, k, "total") == 200);
  CHECK(numAt(table, k, "avg") == 200.0);
  CHECK(numAt(table, k, "stddev") == 0.0);
  const auto& z = row(table, "z");
  CHECK(intAt(table, z, "calls") == 1);
  CHECK(z[col(table, "avg")].kind == Cell::Kind::Empty);
  REQUIRE(table.notes.size() == 1);
  CHECK_THAT(table.notes[0], Catch::Contains("3 kernel records have no valid end"));
  CHECK_THAT(table.notes[0],
             Catch::Contains("correlation " + std::to_string(lastCorrelation)) ||
                 Catch::Contains("correlation " + std::to_string(lastCorrelation - 1)));
  // Rendered, the note is under the table.
  std::string text;
  renderText(table, {}, text);
  CHECK_THAT(text, Catch::Contains("no valid end"));
  CHECK_THAT(text, Catch::Contains(" -  "));  // the empty cells of "z"
}

TEST_CASE("report: zero-length records are timed with 0 and change no busy time", "[report]") {
  Trace t;
  kernel(t, "zero", 500, 500);
  kernel(t, "work", 0, 1000);
  api(t, "cudaGetLastError", 10, 10);
  const ReportTable gpu = report(t, "gpu_activities");
  const auto& zero = row(gpu, "zero");
  CHECK(intAt(gpu, zero, "calls") == 1);
  CHECK(intAt(gpu, zero, "total") == 0);
  CHECK(intAt(gpu, zero, "min") == 0);
  CHECK(numAt(gpu, zero, "time_pct") == 0.0);
  CHECK(gpu.notes.empty());
  const ReportTable apiTable = report(t, "api_calls");
  CHECK(intAt(apiTable, row(apiTable, "cudaGetLastError"), "calls") == 1);
  const ReportTable util = report(t, "utilization");
  REQUIRE(util.rows.size() == 1);
  CHECK(intAt(util, util.rows[0], "kernel_busy") == 1000);
  CHECK(intAt(util, util.rows[0], "idle_gaps") == 0);
}

// ---- kernels and memory --------------------------------------------------------------

TEST_CASE("report kernels: per name, and per launch configuration", "[report]") {
  Trace t;
  kernel(t, "_Z4gemmv", 0, 100, 7, 0, 64, 128);
  kernel(t, "_Z4gemmv", 100, 400, 7, 0, 64, 128);
  kernel(t, "_Z4gemmv", 400, 450, 7, 0, 32, 256);
  const ReportTable plain = report(t, "kernels");
  REQUIRE(plain.rows.size() == 1);
  CHECK(plain.rows[0][col(plain, "name")].s == "gemm()");
  CHECK(intAt(plain, plain.rows[0], "instances") == 3);
  CHECK(numAt(plain, plain.rows[0], "med") == 100.0);

  ReportOptions options;
  options.kernelsByLaunchConfig = true;
  const ReportTable split = report(t, "kernels", options);
  REQUIRE(split.rows.size() == 2);
  CHECK(split.rows[0][col(split, "grid")].s == "64x1x1");
  CHECK(split.rows[0][col(split, "block")].s == "128x1x1");
  CHECK(intAt(split, split.rows[0], "instances") == 2);
  CHECK(intAt(split, split.rows[0], "total") == 400);
  CHECK(split.rows[1][col(split, "grid")].s == "32x1x1");
  CHECK(intAt(split, split.rows[1], "total") == 50);
}

TEST_CASE("report memory: pageable and pinned copies apart, sizes and throughput", "[report]") {
  Trace t;
  memcpy(t, CopyKind::HtoD, MemoryKind::Pageable, MemoryKind::Device, 1000, 0, 100);
  memcpy(t, CopyKind::HtoD, MemoryKind::Pageable, MemoryKind::Device, 3000, 200, 300);
  memcpy(t, CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, 8000, 400, 500);
  memcpy(t, CopyKind::DtoH, MemoryKind::Device, MemoryKind::Pinned, 500, 600, 0);  // no end
  memset(t, 4096, 700, 800);

  const ReportTable gpu = report(t, "gpu_activities");
  CHECK(intAt(gpu, row(gpu, "[CUDA memcpy HtoD]"), "calls") == 3);
  CHECK(intAt(gpu, row(gpu, "[CUDA memcpy DtoH]"), "calls") == 1);
  CHECK(intAt(gpu, row(gpu, "[CUDA memset]"), "calls") == 1);
  CHECK(anyNoteContains(gpu, "1 memcpy record has no valid end"));

  const ReportTable time = report(t, "memory_time");
  CHECK(intAt(time, row(time, "[CUDA memcpy HtoD] Pageable -> Device"), "count") == 2);
  CHECK(intAt(time, row(time, "[CUDA memcpy HtoD] Pageable -> Device"), "total") == 200);
  CHECK(intAt(time, row(time, "[CUDA memcpy HtoD] Pinned -> Device"), "count") == 1);
  CHECK(intAt(time, row(time, "[CUDA memset] Device"), "total") == 100);

  const ReportTable size = report(t, "memory_size");
  CHECK(names(size).front() == "[CUDA memcpy HtoD] Pinned -> Device");  // most bytes first
  const auto& pageable = row(size, "[CUDA memcpy HtoD] Pageable -> Device");
  CHECK(intAt(size, pageable, "total_bytes") == 4000);
  CHECK(intAt(size, pageable, "count") == 2);
  CHECK(numAt(size, pageable, "avg_bytes") == 2000.0);
  CHECK(numAt(size, pageable, "med_bytes") == 2000.0);
  CHECK(intAt(size, pageable, "min_bytes") == 1000);
  CHECK(intAt(size, pageable, "max_bytes") == 3000);
  CHECK(numAt(size, pageable, "throughput_gbps") == Approx(20.0));  // 4000 B / 200 ns
  const auto& dtoh = row(size, "[CUDA memcpy DtoH] Device -> Pinned");
  CHECK(intAt(size, dtoh, "total_bytes") == 500);  // a size without a time still counts
  CHECK(dtoh[col(size, "throughput_gbps")].kind == Cell::Kind::Empty);
}

// ---- NVTX -----------------------------------------------------------------------

TEST_CASE("report nvtx: nested and interleaved ranges, domains and styles apart", "[report]") {
  Trace t;
  range(t, "outer", 0, 1000, NvtxType::PushPop, "", 0, 1, 0);
  range(t, "inner", 100, 200, NvtxType::PushPop, "", 0, 1, 1);
  range(t, "inner", 300, 600, NvtxType::PushPop, "", 0, 1, 1);
  range(t, "inner", 400, 500, NvtxType::PushPop, "", 0, 1, 2);  // nested in itself
  // Start/end ranges interleaved across threads.
  range(t, "load", 50, 650, NvtxType::StartEnd, "", 0, 1);
  range(t, "load", 600, 700, NvtxType::StartEnd, "", 0, 2);
  range(t, "inner", 0, 10, NvtxType::PushPop, "io");  // same message, other domain
  range(t, "inner", 0, 20, NvtxType::StartEnd, "");   // same message, other style
  range(t, "mark", 5, 5, NvtxType::Mark, "");
  const ReportTable table = report(t, "nvtx");
  REQUIRE(table.rows.size() == 5);
  CHECK(names(table, "range") ==
        std::vector<std::string>{"outer", "load", "inner", "inner", "io:inner"});
  CHECK(table.rows[2][col(table, "style")].s == "PushPop");
  CHECK(table.rows[3][col(table, "style")].s == "StartEnd");
  const auto& inner = table.rows[2];
  CHECK(intAt(table, inner, "instances") == 3);
  CHECK(intAt(table, inner, "total") == 500);
  CHECK(numAt(table, inner, "med") == 100.0);
  CHECK(intAt(table, inner, "max") == 300);
  const auto& load = row(table, "load");
  CHECK(intAt(table, load, "instances") == 2);
  CHECK(intAt(table, load, "total") == 700);
  CHECK(load[col(table, "style")].s == "StartEnd");
  CHECK(numAt(table, row(table, "outer"), "time_pct") ==
        Approx(100.0 * 1000 / (1000 + 700 + 500 + 20 + 10)));
  CHECK(anyNoteContains(table, "1 mark"));
}

TEST_CASE("report nvtx: ranges still open at exit are counted, timed and named", "[report]") {
  Trace t;
  range(t, "main", 0, 5000, NvtxType::PushPop, "", kNvtxOpen, 9);
  range(t, "step", 100, 200);
  range(t, "bad", 300, 100);  // end before start
  const ReportTable table = report(t, "nvtx");
  const auto& main = row(table, "main");
  CHECK(intAt(table, main, "instances") == 1);
  CHECK(intAt(table, main, "total") == 5000);
  CHECK(anyNoteContains(table, "1 range was still open at exit"));
  CHECK(anyNoteContains(table, "'main' (PushPop, thread 9)"));
  CHECK(intAt(table, row(table, "bad"), "instances") == 1);
  CHECK(anyNoteContains(table, "1 NVTX range record has no valid end"));
}

// ---- utilization and breakdown ------------------------------------------------------

TEST_CASE("report utilization: overlapping kernels on several streams, per device", "[report]") {
  Trace t;
  t.devices.push_back({0, "GPU zero", 9, 0, 1, 1, 1, ""});
  kernel(t, "a", 0, 100, 1);
  kernel(t, "b", 50, 150, 2);  // overlaps a on another stream
  kernel(t, "c", 60, 90, 3);   // inside both
  kernel(t, "d", 300, 400, 1);
  memcpy(t, CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, 10, 150, 200, true, 4);
  kernel(t, "e", 1000, 1100, 1, 1);  // device 1
  kernel(t, "f", 1300, 1400, 2, 1);
  kernel(t, "g", 1350, 1500, 1, 1);
  const ReportTable table = report(t, "utilization");
  REQUIRE(table.rows.size() == 2);
  const auto& d0 = table.rows[0];
  CHECK(intAt(table, d0, "device") == 0);
  CHECK(intAt(table, d0, "span") == 400);
  CHECK(intAt(table, d0, "kernel_busy") == 250);  // [0,150) + [300,400)
  CHECK(numAt(table, d0, "kernel_pct") == Approx(62.5));
  CHECK(intAt(table, d0, "gpu_busy") == 300);  // the copy fills [150,200)
  CHECK(numAt(table, d0, "gpu_pct") == Approx(75.0));
  CHECK(intAt(table, d0, "idle_gaps") == 1);
  CHECK(intAt(table, d0, "idle") == 100);
  CHECK(intAt(table, d0, "largest_gap") == 100);
  CHECK(d0[col(table, "name")].s == "GPU zero");
  const auto& d1 = table.rows[1];
  CHECK(intAt(table, d1, "device") == 1);
  CHECK(intAt(table, d1, "span") == 500);
  CHECK(intAt(table, d1, "kernel_busy") == 300);  // [1000,1100) + [1300,1500)
  CHECK(intAt(table, d1, "idle") == 200);
}

TEST_CASE("report breakdown: per step when a range marks steps, else the whole run", "[report]") {
  Trace t;
  range(t, "ProfilerStep#1", 0, 1000);
  range(t, "ProfilerStep#2", 1000, 2000);
  range(t, "other", 0, 2000);
  kernel(t, "k", 100, 400);  // step 1: Kernel 300
  memcpy(t, CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, 1, 300,
         500);                                  // Memcpy 100 (300-400 is Kernel)
  memset(t, 1, 500, 550);                       // Memset 50
  api(t, "cudaLaunchKernel", 0, 150);           // Runtime API 100
  api(t, "cudaDeviceSynchronize", 550, 700);    // Sync 150
  kernel(t, "k", 1000, 1500);                   // step 2: Kernel 500
  api(t, "cudaStreamSynchronize", 1400, 1600);  // Sync 100
  api(t, "cudaMalloc", 1550, 1800);             // Runtime API 200
  ReportOptions options;
  options.stepRange = "ProfilerStep";
  const ReportTable table = report(t, "breakdown", options);
  REQUIRE(table.rows.size() == 3);
  const auto& s1 = table.rows[0];
  CHECK(intAt(table, s1, "step") == 0);
  CHECK(s1[col(table, "range")].s == "ProfilerStep#1");
  CHECK(intAt(table, s1, "total") == 1000);
  CHECK(intAt(table, s1, "kernel") == 300);
  CHECK(intAt(table, s1, "memcpy") == 100);
  CHECK(intAt(table, s1, "memset") == 50);
  CHECK(intAt(table, s1, "runtime_api") == 100);
  CHECK(intAt(table, s1, "sync") == 150);
  CHECK(intAt(table, s1, "other") == 300);
  CHECK(numAt(table, s1, "kernel_pct") == Approx(30.0));
  const auto& s2 = table.rows[1];
  CHECK(intAt(table, s2, "kernel") == 500);
  CHECK(intAt(table, s2, "sync") == 100);
  CHECK(intAt(table, s2, "runtime_api") == 200);
  CHECK(intAt(table, s2, "other") == 200);
  const auto& avg = table.rows[2];
  CHECK(avg[col(table, "range")].s == "Average");
  CHECK(avg[col(table, "step")].kind == Cell::Kind::Empty);
  CHECK(numAt(table, avg, "kernel") == Approx(400.0));
  CHECK(numAt(table, avg, "kernel_pct") == Approx(40.0));
  CHECK(numAt(table, avg, "other_pct") == Approx(25.0));

  // No step range: one row over the whole run (first start to last end of any record).
  const ReportTable whole = report(t, "breakdown");
  REQUIRE(whole.rows.size() == 1);
  CHECK(whole.rows[0][col(whole, "range")].s == "whole run");
  CHECK(intAt(whole, whole.rows[0], "total") == 2000);
  CHECK(intAt(whole, whole.rows[0], "kernel") == 800);
  // A step range that names nothing says so.
  options.stepRange = "NoSuchStep";
  const ReportTable missing = report(t, "breakdown", options);
  REQUIRE(missing.rows.size() == 1);
  CHECK(anyNoteContains(missing, "no NVTX range is named 'NoSuchStep'"));
}

TEST_CASE("report breakdown: overlapping steps each get their own share", "[report]") {
  Trace t;
  range(t, "iter A", 0, 600, NvtxType::StartEnd);
  range(t, "iter B", 400, 1000, NvtxType::StartEnd, "", kNvtxOpen);
  kernel(t, "k", 100, 500);
  api(t, "cudaLaunchKernel", 50, 150);
  api(t, "cudaMemcpy", 550, 700);
  ReportOptions options;
  options.stepRange = "iter";
  const ReportTable table = report(t, "breakdown", options);
  REQUIRE(table.rows.size() == 3);
  CHECK(intAt(table, table.rows[0], "kernel") == 400);
  CHECK(intAt(table, table.rows[0], "runtime_api") == 100);  // [50,100) and [550,600)
  CHECK(intAt(table, table.rows[0], "other") == 100);
  CHECK(intAt(table, table.rows[1], "kernel") == 100);
  CHECK(intAt(table, table.rows[1], "runtime_api") == 150);
  CHECK(intAt(table, table.rows[1], "other") == 350);
  CHECK(anyNoteContains(table, "1 step was still open at exit"));
}

// ---- coverage -----------------------------------------------------------------------

TEST_CASE("report coverage: the fewest names reaching the threshold, exact at the boundary",
          "[report]") {
  Trace t;
  kernel(t, "a", 0, 50);
  kernel(t, "b", 100, 140);
  kernel(t, "c", 200, 210);
  api(t, "cudaStreamCreateWithFlags", 0, 4232);
  api(t, "cudaMemGetInfo", 0, 3358);
  api(t, "cudaFree", 0, 2137);
  api(t, "cudaLaunchKernel", 0, 273);
  ReportOptions options;  // 90%
  ReportTable table = report(t, "coverage", options);
  auto kindRows = [&](const ReportTable& tab, const char* kind) {
    std::vector<std::string> out;
    for (const auto& r : tab.rows)
      if (r[col(tab, "kind")].s == kind) out.push_back(r[col(tab, "name")].s);
    return out;
  };
  // 50 + 40 is exactly 90% of 100: two kernels, not three.
  CHECK(kindRows(table, "GPU") == std::vector<std::string>{"a", "b"});
  CHECK(numAt(table, table.rows[1], "cumulative_pct") == Approx(90.0));
  // As in the course report: three calls cover 97.27% of the API time.
  CHECK(kindRows(table, "API") ==
        std::vector<std::string>{"cudaStreamCreateWithFlags", "cudaMemGetInfo", "cudaFree"});
  CHECK(anyNoteContains(table, "GPU: 2 of 3"));

  options.coverageBasisPoints = 9001;  // 90.01%: one more
  table = report(t, "coverage", options);
  CHECK(kindRows(table, "GPU") == std::vector<std::string>{"a", "b", "c"});
  options.coverageBasisPoints = 5000;  // exactly the first one
  table = report(t, "coverage", options);
  CHECK(kindRows(table, "GPU") == std::vector<std::string>{"a"});
  CHECK(table.title == "What covers 50% of the time");

  // Ties at the cut: the first by name is taken.
  Trace tie;
  kernel(tie, "y", 0, 45);
  kernel(tie, "x", 0, 45);
  kernel(tie, "w", 0, 10);
  options.coverageBasisPoints = 4500;
  CHECK(kindRows(report(tie, "coverage", options), "GPU") == std::vector<std::string>{"x"});
}

// ---- findings ------------------------------------------------------------------------

TEST_CASE("report findings: each backed by numbers and records", "[report]") {
  Trace t;
  // 12 synchronous pageable DtoH copies of 4 KiB: in a loop, and from pageable memory.
  for (int i = 0; i < 12; ++i)
    memcpy(t, CopyKind::DtoH, MemoryKind::Device, MemoryKind::Pageable, 4096,
           1'000'000 + i * 10'000, 1'000'000 + i * 10'000 + 2'000, false, 7);
  // 200 tiny kernels with long gaps between them on stream 7; stream 9 nearly idle.
  for (int i = 0; i < 200; ++i)
    kernel(t, "_Z4tinyv", 2'000'000 + i * 10'000, 2'000'000 + i * 10'000 + 2'000, 7);
  kernel(t, "_Z4oncev", 5'000'000, 5'020'000, 9);
  // One call dominates the API time.
  api(t, "cudaStreamCreateWithFlags", 0, 900'000);
  for (int i = 0; i < 200; ++i)
    api(t, "cudaLaunchKernel", 2'000'000 + i * 10'000 - 500, 2'000'000 + i * 10'000);
  const ReportTable table = report(t, "findings");
  CHECK(table.style == TableStyle::List);
  std::vector<std::string> titles = names(table, "finding");
  auto find = [&](const std::string& title) -> const std::vector<Cell>& {
    for (const auto& r : table.rows)
      if (r[col(table, "finding")].s.rfind(title, 0) == 0) return r;
    FAIL("no finding " << title);
    return table.rows.front();
  };
  const auto& pageable = find("Copies from pageable memory");
  CHECK_THAT(pageable[col(table, "details")].s, Catch::StartsWith("12 of 12 copies (48.000 KiB"));
  CHECK_THAT(pageable[col(table, "records")].s, Catch::Contains("correlation "));
  const auto& loop = find("Synchronous copies in a loop");
  CHECK_THAT(loop[col(table, "details")].s,
             Catch::StartsWith("12 synchronous DtoH copies of 4.000 KiB"));
  const auto& idle = find("GPU 0 idle");
  CHECK_THAT(idle[col(table, "details")].s, Catch::Contains("in 200 gaps"));
  CHECK_THAT(idle[col(table, "records")].s,
             Catch::Contains("before: tiny()") && Catch::Contains("after: once()"));
  const auto& tiny = find("Many tiny kernels");
  CHECK_THAT(tiny[col(table, "details")].s, Catch::StartsWith("200 of 201 kernels (99.5%)"));
  CHECK_THAT(tiny[col(table, "details")].s,
             Catch::Contains("cudaLaunchKernel takes 500ns on average"));
  CHECK_THAT(tiny[col(table, "records")].s, Catch::StartsWith("tiny() (200 tiny, correlation "));
  const auto& stream = find("One stream busy");
  CHECK_THAT(stream[col(table, "details")].s, Catch::Contains("stream 7 carries"));
  const auto& dominant = find("API time dominated by cudaStreamCreateWithFlags");
  CHECK_THAT(dominant[col(table, "details")].s,
             Catch::Contains("90.0% of the time spent in API calls"));
  CHECK(intAt(table, table.rows[0], "number") == 1);

  // A quiet trace has no findings.
  Trace quiet;
  kernel(quiet, "k", 0, 1'000'000);
  CHECK(report(quiet, "findings").rows.empty());
}

// ---- rendering ----------------------------------------------------------------------

TEST_CASE("report rendering: names cut in the middle, escaped, time units", "[report]") {
  CHECK(displayName("abcdefghijklmnopqrstuvwxyz", 11) == "abcd...wxyz");
  CHECK(displayName("abcdefghij", 10) == "abcdefghij");
  CHECK(displayName("abcdefghij", 0) == "abcdefghij");
  CHECK(displayName("line\nbreak", 0) == "line\\nbreak");
  // UTF-8 is cut between characters, never inside one.
  CHECK(displayName("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 7) ==
        "\xC3\xA9\xC3\xA9...\xC3\xA9\xC3\xA9");
  CHECK(formatDuration(639, true, TimeUnit::Auto) == "639ns");
  CHECK(formatDuration(1268, true, TimeUnit::Auto) == "1.2680us");
  CHECK(formatDuration(36'540'000, true, TimeUnit::Auto) == "36.540ms");
  CHECK(formatDuration(173'430'000, true, TimeUnit::Auto) == "173.43ms");
  CHECK(formatDuration(50'995'600'000.0, false, TimeUnit::Auto) == "50.996s");
  CHECK(formatDuration(3'498'803'745, true, TimeUnit::Ns) == "3,498,803,745");
  CHECK(formatDuration(2.5, false, TimeUnit::Ns) == "2.5");
  CHECK(formatDuration(1'234'567, true, TimeUnit::Us) == "1,234.567");
  CHECK(formatDuration(1'500'000, true, TimeUnit::Ms) == "1.500");
  CHECK(formatBytes(512) == "512 B");
  CHECK(formatBytes(1 << 20) == "1.000 MiB");
}

TEST_CASE("report rendering: text table aligned, --top, notes", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  RenderOptions options;
  options.top = 2;
  options.nameWidth = 30;
  std::string text;
  renderText(report(t, "api_calls"), options, text);
  CHECK_THAT(text, Catch::StartsWith("API calls (top 2 of 4):\n\n"));
  CHECK_THAT(
      text,
      Catch::Contains(
          " Time(%)     Total  Calls       Avg       Med       Min       Max    StdDev  Name\n"));
  CHECK_THAT(text, Catch::Contains("   62.50  20.000us      1  20.000us  20.000us  20.000us  "
                                   "20.000us       0ns  cudaMemcpyAsync\n"));
  CHECK_THAT(text, Catch::Contains("   31.25  10.000us      3  3.3333us  3.0000us  3.0000us  "
                                   "4.0000us  577.35ns  cudaLaunchKernel\n"));
  CHECK_THAT(text, !Catch::Contains("cuLaunchKernel"));
  // A long name is cut to the width, in the middle.
  text.clear();
  options.top = 3;
  renderText(report(t, "kernels"), options, text);
  CHECK_THAT(text, Catch::Contains("  void gemm<cutl..., float>(int)\n"));
  // Fixed units label the header.
  options.timeUnit = TimeUnit::Us;
  text.clear();
  renderText(report(t, "api_calls"), options, text);
  CHECK_THAT(text, Catch::Contains("Total (us)"));
  CHECK_THAT(text, Catch::Contains("20.000"));
}

TEST_CASE("report rendering: CSV and JSON hold every row and parse back", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  const auto tables = buildAllReports(t, {});
  REQUIRE(tables.size() == reportCatalog().size());
  RenderOptions options;
  // JSON: one document, every report, names whole and escaped.
  const auto doc = nlohmann::json::parse(renderTables(tables, ReportFormat::Json, options));
  REQUIRE(doc["reports"].size() == tables.size());
  const auto& gpu = doc["reports"][0];
  CHECK(gpu["name"] == "gpu_activities");
  CHECK(gpu["rows_total"] == 6);
  CHECK(gpu["rows"][0]["name"] == testing::kHostileKernelName);
  CHECK(gpu["rows"][0]["total_ns"] == 12000);
  CHECK(gpu["rows"][0]["calls"] == 1);
  CHECK(gpu["columns"][1]["key"] == "total_ns");
  CHECK(gpu["columns"][1]["unit"] == "ns");
  CHECK(gpu["rows"][3]["name"] == testing::longTemplateName());  // whole, not cut
  const auto& nvtx = doc["reports"][5];
  CHECK(nvtx["name"] == "nvtx");
  bool utf8 = false;
  for (const auto& r : nvtx["rows"])
    utf8 = utf8 || r["range"] == "my domain:" + testing::kUtf8Message;
  CHECK(utf8);
  // Other units are decimals with the unit in the key.
  options.timeUnit = TimeUnit::Us;
  const auto us = nlohmann::json::parse(renderTables({tables[1]}, ReportFormat::Json, options));
  CHECK(us["reports"][0]["rows"][0]["total_us"] == 20.0);
  CHECK(us["reports"][0]["rows"][1]["avg_us"].get<double>() == Approx(10.0 / 3));

  // CSV: header of keys, names quoted where needed.
  options.timeUnit = TimeUnit::Auto;
  std::string csv;
  renderCsv(tables[0], options, csv);
  CHECK_THAT(csv, Catch::StartsWith(
                      "time_pct,total_ns,calls,avg_ns,med_ns,min_ns,max_ns,stddev_ns,name\n"));
  CHECK_THAT(csv, Catch::Contains(",12000,1,12000,12000,12000,12000,0,\"_"
                                  "Z6kernelIN4math6VectorIfLi3EEEEvPKT_\"\"quoted\"\""));
  CHECK_THAT(csv, Catch::Contains(",10000,1,10000,10000,10000,10000,0,[CUDA memcpy HtoD]\n"));
  CHECK_THAT(
      csv, Catch::Contains(",6000,1,6000,6000,6000,6000,0,\"add(float*, float*, float*, int)\"\n"));
}

TEST_CASE("report: every catalog report builds on an empty trace", "[report]") {
  Trace t;
  for (const auto& table : buildAllReports(t, {})) {
    INFO(table.name);
    CHECK(table.rows.empty());
    std::string text;
    renderText(table, {}, text);
    CHECK_THAT(text, Catch::Contains("(none)"));
  }
  std::string error;
  CHECK(parseReportNames("all", error)->size() == reportCatalog().size());
  CHECK(*parseReportNames("nvtx, api_calls", error) ==
        std::vector<std::string>{"nvtx", "api_calls"});
  CHECK_FALSE(parseReportNames("nvtx,bogus", error));
  CHECK_THAT(error, Catch::Contains("bogus"));
  CHECK_FALSE(parseReportNames(",", error));
}

TEST_CASE("report: the exit summary shows the top rows and where the rest is", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  const std::string summary = exitSummary(buildAllReports(t, {}), 2, "/tmp/run.reports.txt");
  CHECK_THAT(summary, Catch::Contains("cuptitrace: GPU activities (top 2 of 6):"));
  CHECK_THAT(summary, Catch::Contains("cuptitrace: API calls (top 2 of 4):"));
  CHECK_THAT(summary, Catch::Contains("in /tmp/run.reports.txt"));
  CHECK_THAT(summary, !Catch::Contains("NVTX ranges"));
}

TEST_CASE("report: the reports file is written whole, or not at all", "[report]") {
  Trace t;
  testing::fillSampleTrace(t);
  const auto tables = buildAllReports(t, {});
  char pattern[] = "/tmp/cuptitrace-reports-XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  const std::string path = std::string(pattern) + "/run.reports.txt";
  std::string error;
  REQUIRE(writeReportsFile(tables, path, error));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string text(1 << 20, '\0');
  text.resize(std::fread(&text[0], 1, text.size(), f));
  std::fclose(f);
  CHECK_THAT(text, Catch::Contains("GPU activities:") && Catch::Contains("Findings:") &&
                       Catch::Contains("NVTX ranges:"));
  CHECK_THAT(text, Catch::Contains("cutlass::layout::RowMajor<100>"));  // whole names in the file
  // An existing file is replaced only when asked.
  CHECK_FALSE(writeReportsFile(tables, path, error));
  CHECK_THAT(error, Catch::Contains(path));
  CHECK(writeReportsFile(tables, path, error, true));
  std::remove(path.c_str());
  ::rmdir(pattern);
  CHECK_FALSE(writeReportsFile(tables, "/nonexistent-dir/x.reports.txt", error));
  CHECK_THAT(error, Catch::Contains("/nonexistent-dir/x.reports.txt"));
}

}  // namespace cuptitrace
