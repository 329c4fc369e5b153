// The gpu_memory, allocations, leaks and graphs reports on small synthetic traces.
#include <catch2/catch.hpp>

#include <string>

#include "reports/report_table.h"
#include "reports/reports.h"
#include "memory_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;

namespace {

constexpr uint64_t kBase = 1'000'000'000ull;

size_t column(const ReportTable& t, const std::string& key) {
  for (size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i].key == key) return i;
  FAIL("no column " << key);
  return 0;
}
const Cell& cell(const ReportTable& t, size_t row, const std::string& key) {
  return t.rows.at(row).at(column(t, key));
}
bool noteContains(const ReportTable& t, const std::string& text) {
  for (const auto& n : t.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

// Device 0: a 1 MiB device buffer (freed), 256 KiB pinned and 4 MiB managed
// never freed; a static variable; device 1: 64 bytes, freed.
Trace& memoryTrace(Trace& t) {
  t.meta.pid = 10;
  t.meta.baseTimestampNs = kBase;
  addApi(t, kBase + 90, kBase + 110, "cudaMalloc", 1);
  addApi(t, kBase + 95, kBase + 105, "cuMemAlloc_v2", 1, ApiDomain::Driver);
  addApi(t, kBase + 190, kBase + 210, "cudaMallocHost", 2);
  addApi(t, kBase + 290, kBase + 310, "cudaMallocManaged", 3);
  addAllocation(t, kBase + 100, 0xA000, 1 << 20, 0, MemoryKind::Device, 1);
  addAllocation(t, kBase + 200, 0xB000, 256 << 10, 0, MemoryKind::Pinned, 2);
  addAllocation(t, kBase + 300, 0xC000, 4 << 20, 0, MemoryKind::Managed, 3);
  addFree(t, kBase + 400, 0xA000, 1 << 20, 0, MemoryKind::Device, 4);
  addAllocation(t, kBase + 10, 0xD000, 512, 0, MemoryKind::DeviceStatic, 0);
  addAllocation(t, kBase + 500, 0xE000, 64, 1, MemoryKind::Device, 6);
  addFree(t, kBase + 600, 0xE000, 64, 1, MemoryKind::Device, 7);
  addFree(t, kBase + 700, 0xF000, 128, 1, MemoryKind::Device, 8);  // allocated before the trace
  return t;
}

}  // namespace

TEST_CASE("report gpu_memory: peak and live bytes per device and memory kind") {
  Trace t;
  memoryTrace(t);
  const ReportTable r = buildReport(t, "gpu_memory", {});
  CHECK(r.name == "gpu_memory");
  // Device 0: All, Device, Managed, Pinned, DeviceStatic; device 1: All, Device.
  REQUIRE(r.rows.size() == 7);
  CHECK(cell(r, 0, "device").i == 0);
  CHECK(cell(r, 0, "memory_kind").s == "All");
  CHECK(cell(r, 0, "allocations").i == 4);
  CHECK(cell(r, 0, "frees").i == 1);
  // All four at once, at 300 ns: 512 + 1 MiB + 256 KiB + 4 MiB.
  CHECK(cell(r, 0, "peak_bytes").i == 512 + (1 << 20) + (256 << 10) + (4 << 20));
  CHECK(cell(r, 0, "peak_at").i == 300);
  CHECK(cell(r, 0, "live_at_end").i == 3);
  CHECK(cell(r, 0, "live_bytes").i == 512 + (256 << 10) + (4 << 20));
  CHECK(cell(r, 1, "memory_kind").s == "Device");
  CHECK(cell(r, 1, "peak_bytes").i == (1 << 20));
  CHECK(cell(r, 1, "live_at_end").i == 0);
  CHECK(cell(r, 2, "memory_kind").s == "Managed");
  CHECK(cell(r, 3, "memory_kind").s == "Pinned");
  CHECK(cell(r, 4, "memory_kind").s == "DeviceStatic");
  CHECK(cell(r, 5, "device").i == 1);
  CHECK(cell(r, 5, "peak_bytes").i == 64);
  CHECK(cell(r, 5, "live_bytes").i == 0);
  CHECK(noteContains(r, "1 frees of memory allocated before the trace started"));
}

TEST_CASE("report allocations: the largest first, with lifetimes and the calls behind them") {
  Trace t;
  memoryTrace(t);
  const ReportTable r = buildReport(t, "allocations", {});
  REQUIRE(r.rows.size() == 5);
  CHECK(cell(r, 0, "bytes").i == (4 << 20));
  CHECK(cell(r, 0, "call").s == "cudaMallocManaged");
  CHECK(cell(r, 0, "lifetime").kind == Cell::Kind::Empty);  // never freed
  CHECK(cell(r, 1, "bytes").i == (1 << 20));
  CHECK(cell(r, 1, "call").s == "cudaMalloc");  // the runtime call, not the driver call it made
  CHECK(cell(r, 1, "lifetime").i == 300);
  CHECK(cell(r, 1, "at").i == 100);
  CHECK(cell(r, 1, "address").s == "0xa000");
  CHECK(cell(r, 1, "memory_kind").s == "Device");
  CHECK(cell(r, 2, "bytes").i == (256 << 10));
  CHECK(cell(r, 4, "bytes").i == 64);
  CHECK(cell(r, 4, "lifetime").i == 100);
}

TEST_CASE("report leaks: never freed, largest first, static memory left out") {
  Trace t;
  memoryTrace(t);
  const ReportTable r = buildReport(t, "leaks", {});
  REQUIRE(r.rows.size() == 2);
  CHECK(cell(r, 0, "bytes").i == (4 << 20));
  CHECK(cell(r, 0, "memory_kind").s == "Managed");
  CHECK(cell(r, 0, "call").s == "cudaMallocManaged");
  CHECK(cell(r, 0, "correlation").i == 3);
  CHECK(cell(r, 1, "bytes").i == (256 << 10));
  CHECK(noteContains(r, "2 allocations of "));
  CHECK(noteContains(r, "1 static allocations"));
}

TEST_CASE("report memory: a trace without memory records says how to get them") {
  Trace t;
  for (const char* name : {"gpu_memory", "allocations", "leaks"}) {
    const ReportTable r = buildReport(t, name, {});
    INFO(name);
    CHECK(r.rows.empty());
    CHECK(noteContains(r, "CUPTITRACE_ACTIVITIES=default,memory"));
  }
}

TEST_CASE("report graphs: launches from node records grouped by graph and launch") {
  Trace t;
  // Graph 5 launched twice (correlations 20, 21), 3 kernels each; graph 6 once.
  addGraphKernel(t, 1000, 1100, 5, 1, 20);
  addGraphKernel(t, 1100, 1300, 5, 2, 20);
  addGraphKernel(t, 1300, 1400, 5, 3, 20);
  addGraphKernel(t, 2000, 2200, 5, 1, 21);
  addGraphKernel(t, 2200, 2300, 5, 2, 21);
  addGraphKernel(t, 2300, 2600, 5, 3, 21);
  addGraphKernel(t, 5000, 5050, 6, 9, 30);
  addGraphKernel(t, 7000, 7010, 0, 0, 31);  // not from a graph
  const ReportTable r = buildReport(t, "graphs", {});
  REQUIRE(r.rows.size() == 2);
  CHECK(cell(r, 0, "graph").s == "5");
  CHECK(cell(r, 0, "launches").i == 2);
  CHECK(cell(r, 0, "total").i == 400 + 600);
  CHECK(cell(r, 0, "min").i == 400);
  CHECK(cell(r, 0, "max").i == 600);
  CHECK(cell(r, 0, "avg").d == Approx(500));
  CHECK(cell(r, 0, "nodes_per_launch").d == Approx(3));
  CHECK(cell(r, 1, "graph").s == "6");
  CHECK(cell(r, 1, "launches").i == 1);
  CHECK(cell(r, 1, "total").i == 50);
  CHECK(noteContains(r, "from their node records"));
}

TEST_CASE("report graphs: graph-level records, untimed launches counted") {
  Trace t;
  addGraphLaunch(t, 1000, 4000, 9, 50);
  addGraphLaunch(t, 5000, 6000, 9, 51);
  addGraphLaunch(t, 7000, 0, 9, 52);  // no end
  const ReportTable r = buildReport(t, "graphs", {});
  REQUIRE(r.rows.size() == 1);
  CHECK(cell(r, 0, "launches").i == 3);
  CHECK(cell(r, 0, "total").i == 4000);
  CHECK(cell(r, 0, "med").d == Approx(2000));
  CHECK(cell(r, 0, "nodes_per_launch").kind == Cell::Kind::Empty);
  CHECK(noteContains(r, "3 launches from graph-level records"));
  CHECK(noteContains(r, "1 launches without a valid time"));
}
