// Busy times swept a window of start times at a time: the utilization and
// breakdown reports against brute force, and the same reports whatever the
// window size.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/trace.h"
#include "reports/busy_sweep.h"
#include "reports/gpu_summary.h"
#include "reports/report_table.h"
#include "reports/reports.h"
#include "reports/stats.h"
#include "trace_fixture.h"

using namespace cuptitrace;

namespace {

constexpr uint64_t kBase = 1'000'000'000ull;
constexpr uint64_t kSpan = 40'000;  // ns: small enough to check every nanosecond

// GPU work on two devices (kernels, copies, sets that overlap within and
// across streams, some empty), API calls on two threads (some waiting ones),
// synchronization records and NVTX steps that overlap.
void fillBusyTrace(Trace& t, std::mt19937_64& rng) {
  cuptitrace::testing::initTrace(t);
  auto at = [&](uint64_t max) { return kBase + rng() % max; };
  for (int i = 0; i < 400; ++i) {
    KernelRecord k{};
    k.start = at(kSpan - 2000);
    k.end = k.start + (rng() % 10 == 0 ? 0 : rng() % 600);
    k.deviceId = rng() % 2;
    k.streamId = 7 + rng() % 3;
    k.name = t.strings.intern("k");
    t.store.add(k);
  }
  for (int i = 0; i < 60; ++i) {
    MemcpyRecord m{};
    m.start = at(kSpan - 3000);
    m.end = m.start + rng() % 1500;
    m.deviceId = rng() % 2;
    t.store.add(m);
    MemsetRecord s{};
    s.start = at(kSpan - 3000);
    s.end = s.start + rng() % 300;
    s.deviceId = rng() % 2;
    t.store.add(s);
  }
  for (int i = 0; i < 300; ++i) {
    ApiRecord a{};
    a.start = at(kSpan - 1000);
    a.end = a.start + rng() % 400;
    a.name = t.strings.intern(rng() % 8 == 0 ? "cudaDeviceSynchronize" : "cudaLaunchKernel");
    a.threadId = rng() % 2 ? cuptitrace::testing::kSamplePid : 4243;
    t.store.add(a);
  }
  for (int i = 0; i < 20; ++i) {
    SyncRecord s{};
    s.start = at(kSpan - 1000);
    s.end = s.start + rng() % 700;
    t.store.add(s);
  }
  for (int i = 0; i < 6; ++i) {
    NvtxRecord n{};
    n.type = static_cast<uint8_t>(NvtxType::PushPop);
    n.start = kBase + 6000 * static_cast<uint64_t>(i);
    n.end = n.start + 8000;  // overlapping steps
    n.message = t.strings.intern("Step#" + std::to_string(i));
    t.store.add(n);
  }
}

template <typename T, typename F>
void eachTimed(const Trace& t, F&& f) {
  t.store.records<T>().forEach([&](const T& r) {
    if (r.end != 0 && r.end >= r.start) f(r);
  });
}

std::string allReportsCsv(const Trace& t, const ReportOptions& options) {
  return renderTables(buildAllReports(t, options), ReportFormat::Csv, RenderOptions{});
}

}  // namespace

TEST_CASE("work that ends at the end of time is measured, not swept forever", "[report][windows]") {
  Trace t;
  cuptitrace::testing::initTrace(t);
  KernelRecord k{};
  k.start = kBase;
  k.end = UINT64_MAX;
  k.name = t.strings.intern("k");
  t.store.add(k);
  cuptitrace::testing::addApi(t, kBase + 10, kBase + 20, 1);
  const std::vector<ReportTable> tables = buildAllReports(t, ReportOptions{});
  const ReportTable* breakdown = nullptr;
  for (const ReportTable& table : tables)
    if (table.name == "breakdown") breakdown = &table;
  REQUIRE(breakdown != nullptr);
  REQUIRE(breakdown->rows.size() == 1);
  CHECK(breakdown->rows[0][1].i == UINT64_MAX - kBase);  // the whole run
  CHECK(breakdown->rows[0][3].d == Approx(100.0));       // all of it kernel time
  CHECK(breakdown->rows[0][8].i == 0);                    // the call hides under the kernel
}

TEST_CASE("a union fed in start order measures as merging does", "[report][windows]") {
  std::mt19937_64 rng(2);
  for (int round = 0; round < 50; ++round) {
    std::vector<Interval> v;
    for (int i = 0; i < 200; ++i) {
      const uint64_t s = rng() % 10000;
      v.push_back({s, s + (rng() % 5 == 0 ? 0 : rng() % 150)});
    }
    std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    UnionMeter meter;
    for (const Interval& i : v) meter.add(i.start, i.end);
    mergeIntervals(v);
    CHECK(meter.covered() == coveredLength(v));
    const Gaps expected = gapsOf(v);
    CHECK(meter.gaps().count == expected.count);
    CHECK(meter.gaps().total == expected.total);
    CHECK(meter.gaps().largest == expected.largest);
    CHECK(meter.gaps().largestStart == expected.largestStart);
  }
}

TEST_CASE("utilization and breakdown match brute force, in one window or many", "[report][windows]") {
  std::mt19937_64 rng(4);
  Trace t;
  fillBusyTrace(t, rng);

  // Brute force, nanosecond by nanosecond: per device, kernel and GPU busy
  // time; per step, the first category busy at each instant.
  std::array<std::vector<uint8_t>, 2> kernelAt, gpuAt;
  for (auto* v : {&kernelAt, &gpuAt})
    for (auto& d : *v) d.assign(kSpan, 0);
  std::array<std::vector<uint8_t>, 5> categoryAt;  // Kernel, Memcpy, Memset, Sync, RuntimeApi
  for (auto& c : categoryAt) c.assign(kSpan, 0);
  auto mark = [](std::vector<uint8_t>& v, uint64_t s, uint64_t e) {
    for (uint64_t x = s - kBase; x < e - kBase; ++x) v[x] = 1;
  };
  eachTimed<KernelRecord>(t, [&](const KernelRecord& k) {
    mark(kernelAt[k.deviceId], k.start, k.end);
    mark(gpuAt[k.deviceId], k.start, k.end);
    mark(categoryAt[0], k.start, k.end);
  });
  eachTimed<MemcpyRecord>(t, [&](const MemcpyRecord& m) {
    mark(gpuAt[m.deviceId], m.start, m.end);
    mark(categoryAt[1], m.start, m.end);
  });
  eachTimed<MemsetRecord>(t, [&](const MemsetRecord& m) {
    mark(gpuAt[m.deviceId], m.start, m.end);
    mark(categoryAt[2], m.start, m.end);
  });
  eachTimed<ApiRecord>(t, [&](const ApiRecord& a) {
    const bool sync = t.strings.get(a.name) == "cudaDeviceSynchronize";
    mark(categoryAt[sync ? 3 : 4], a.start, a.end);
  });
  eachTimed<SyncRecord>(t, [&](const SyncRecord& s) { mark(categoryAt[3], s.start, s.end); });
  auto count = [](const std::vector<uint8_t>& v) {
    uint64_t n = 0;
    for (const uint8_t b : v) n += b;
    return n;
  };

  ReportOptions options;
  options.stepRange = "Step#";
  const std::string oneWindow = allReportsCsv(t, options);
  for (const size_t window : {size_t{1} << 20, size_t{50}, size_t{3}}) {
    options.windowRecords = window;
    const std::vector<ReportTable> tables = buildAllReports(t, options);
    const ReportTable* utilization = nullptr;
    const ReportTable* breakdown = nullptr;
    for (const ReportTable& table : tables) {
      if (table.name == "utilization") utilization = &table;
      if (table.name == "breakdown") breakdown = &table;
    }
    REQUIRE(utilization != nullptr);
    REQUIRE(breakdown != nullptr);
    REQUIRE(utilization->rows.size() == 2);
    for (size_t d = 0; d < 2; ++d) {
      const auto& row = utilization->rows[d];
      CHECK(row[0].i == d);
      CHECK(row[2].i == count(kernelAt[d]));  // Kernel busy
      CHECK(row[4].i == count(gpuAt[d]));     // GPU busy
    }
    // Rows: steps 0..5, then the average; columns: step, total, then value and % per category.
    REQUIRE(breakdown->rows.size() == 7);
    for (size_t step = 0; step < 6; ++step) {
      std::array<uint64_t, 6> expected{};  // Kernel, Memcpy, Memset, Sync, Runtime API, Other
      for (uint64_t x = 6000 * step; x < 6000 * step + 8000 && x < kSpan; ++x) {
        size_t c = 0;
        while (c < 5 && !categoryAt[c][x]) ++c;
        ++expected[c];
      }
      const auto& row = breakdown->rows[step];
      // The table shows Kernel, Memcpy, Memset, Communication, Sync, Runtime API, DataLoader,
      // CPU Exec, Other; this trace has no NCCL kernels and no PyTorch operators.
      constexpr size_t kNone = 99;
      const size_t shownCategory[9] = {0, 1, 2, kNone, 3, 4, kNone, kNone, 5};
      for (size_t k = 0; k < 9; ++k)
        CHECK(row[2 + 2 * k].i == (shownCategory[k] == kNone ? 0 : expected[shownCategory[k]]));
    }
    // The same reports, every one of them, whatever the window.
    CHECK(allReportsCsv(t, options) == oneWindow);
  }
}

// Kernels of several (mangled) names and calls of both APIs, some of each
// without an end, and driver calls made inside runtime calls: what the
// kernels' and the calls' groups count.
void addNamedWork(Trace& t, std::mt19937_64& rng) {
  const char* kernels[] = {"_Z6vecAddPfS_S_i", "_ZN7cutlass6KernelIiEEvT_", "plain_kernel"};
  for (int i = 0; i < 90; ++i) {
    KernelRecord k{};
    k.start = kBase + rng() % (kSpan - 2000);
    k.end = rng() % 9 == 0 ? 0 : k.start + rng() % 500;
    k.deviceId = rng() % 2;
    k.streamId = 11;
    k.correlationId = 9000 + static_cast<uint32_t>(i);
    k.name = t.strings.intern(kernels[i % 3]);
    t.store.add(k);
  }
  for (int i = 0; i < 60; ++i) {
    ApiRecord a{};
    a.start = kBase + rng() % (kSpan - 1000);
    a.end = rng() % 7 == 0 ? 0 : a.start + 300;
    a.correlationId = 9500 + static_cast<uint32_t>(i);
    a.threadId = 4244;
    a.name = t.strings.intern("cudaMemcpyAsync");
    t.store.add(a);
    if (a.end == 0) continue;
    ApiRecord d = a;  // the driver call it made
    d.domain = static_cast<uint8_t>(ApiDomain::Driver);
    d.start = a.start + 10;
    d.end = a.end - 10;
    d.name = t.strings.intern("cuMemcpyAsync");
    t.store.add(d);
  }
}

TEST_CASE("every report the same when its sweeps and groups run on threads of their own", "[report][windows][parallel]") {
  // With several writer threads, the devices' sweep, the split by category
  // and the kernels' and calls' groups run beside the other tables
  // (ReportData::prepare); with one, in turn.
  auto withThreads = [](const char* n, auto&& f) {
    ::setenv("CUPTITRACE_WRITER_THREADS", n, 1);
    auto result = f();
    ::unsetenv("CUPTITRACE_WRITER_THREADS");
    return result;
  };
  size_t compared = 0;
  for (const bool steps : {true, false}) {
    std::mt19937_64 rng(31);
    Trace t;
    fillBusyTrace(t, rng);
    addNamedWork(t, rng);
    ReportOptions options;
    options.stepRange = steps ? "Step#" : "no such range";  // without: the whole run's split
    for (const size_t window : {size_t{50}, size_t{3}}) {  // planned sweeps: prepare() starts them
      options.windowRecords = window;
      const std::string serial = withThreads("1", [&] { return allReportsCsv(t, options); });
      for (const char* n : {"2", "4"}) {
        const std::string parallel = withThreads(n, [&] { return allReportsCsv(t, options); });
        CHECK(parallel == serial);
        ++compared;
      }
      // Every table asked for by name, as cuptitrace stats does by default.
      std::vector<std::string> names;
      for (const ReportInfo& r : reportCatalog()) names.push_back(r.name);
      // In JSON: with the tables' notes (the records without an end).
      auto some = [&] { return renderTables(buildReports(t, names, options), ReportFormat::Json, RenderOptions{}); };
      CHECK(withThreads("3", some) == withThreads("1", some));
    }
  }
  CHECK(compared == 8);
}

TEST_CASE("capped level sweep: the GPU summary's SM efficiency against every nanosecond", "[report][windows]") {
  std::mt19937_64 rng(29);
  for (int round = 0; round < 200; ++round) {
    // Runs of kernels one after another (the sweep's path without a heap),
    // then overlapping ones; some empty, some touching.
    struct Piece {
      uint64_t start, end, units;
    };
    std::vector<Piece> pieces;
    uint64_t at = rng() % 50;
    const size_t n = 1 + rng() % 40;
    for (size_t i = 0; i < n; ++i) {
      const bool overlap = rng() % 3 == 0;
      const uint64_t start = overlap && at > 30 ? at - rng() % 30 : at + rng() % 20;
      const uint64_t end = start + rng() % 60;
      pieces.push_back({start, end, rng() % 5 == 0 ? 0 : 1 + rng() % 7});
      at = std::max(at, start);
    }
    std::stable_sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.start < b.start; });
    const uint64_t cap = 1 + rng() % 10;
    reports::CappedLevelSweep sweep(cap);
    std::vector<uint64_t> level(4096, 0);
    for (const Piece& p : pieces) {
      sweep.add(p.start, p.end, p.units);
      for (uint64_t x = p.start; x < p.end; ++x) level[x] += p.units;
    }
    uint64_t expected = 0;
    for (const uint64_t l : level) expected += std::min(l, cap);
    CHECK(sweep.total() == expected);
  }
}
