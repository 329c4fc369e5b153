// The devices report: what CUPTI said of each GPU, its contexts and its work.
#include <catch2/catch.hpp>
#include <string>

#include "reports/report_table.h"
#include "reports/reports.h"
#include "memory_fixture.h"
#include "report_cells.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;

namespace {

KernelRecord kernelOn(uint32_t device, uint32_t context, uint32_t stream, uint64_t start) {
  KernelRecord k{};
  k.start = start;
  k.end = start + 100;
  k.deviceId = device;
  k.contextId = context;
  k.streamId = stream;
  return k;
}

}  // namespace

TEST_CASE("report devices: details, contexts with their names and work per GPU", "[report]") {
  Trace t;
  t.meta.baseTimestampNs = 1000;
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 80ull << 30, 1980000, "GPU-0"});
  t.devices.push_back({1, "NVIDIA A100-SXM4-40GB", 8, 0, 108, 40ull << 30, 1410000, "GPU-1"});
  t.contexts.push_back({1, 0, 7});
  t.contexts.push_back({2, 0, 20});
  t.contexts.push_back({3, 1, 30});
  t.contextNames[2] = "trainer";
  t.deviceNames[1] = "spare";
  t.store.add(kernelOn(0, 1, 7, 2000));
  t.store.add(kernelOn(0, 1, 13, 3000));
  t.store.add(kernelOn(0, 2, 20, 4000));
  MemcpyRecord m{};
  m.start = 5000;
  m.end = 5100;
  m.deviceId = 1;
  m.streamId = 30;
  t.store.add(m);
  t.store.add(kernelOn(4, 9, 40, 6000));  // a device CUPTI never described

  const ReportTable r = buildReport(t, "devices", {});
  CHECK(r.name == "devices");
  REQUIRE(r.rows.size() == 3);
  CHECK(reportCell(r, 0, "device").i == 0);
  CHECK(reportCell(r, 0, "compute_capability").s == "9.0");
  CHECK(reportCell(r, 0, "multiprocessors").i == 132);
  CHECK(reportCell(r, 0, "memory").i == 80ull << 30);
  CHECK(reportCell(r, 0, "clock_mhz").i == 1980);
  CHECK(reportCell(r, 0, "kernels").i == 3);
  CHECK(reportCell(r, 0, "copies").i == 0);
  CHECK(reportCell(r, 0, "streams").i == 3);
  CHECK(reportCell(r, 0, "contexts").s == "context 1, trainer");
  CHECK(reportCell(r, 0, "name").s.find("NVIDIA H100 80GB HBM3 (CC 9.0, 132 SMs") == 0);

  CHECK(reportCell(r, 1, "device").i == 1);
  CHECK(reportCell(r, 1, "compute_capability").s == "8.0");
  CHECK(reportCell(r, 1, "kernels").i == 0);
  CHECK(reportCell(r, 1, "copies").i == 1);
  CHECK(reportCell(r, 1, "contexts").s == "context 3");
  CHECK(reportCell(r, 1, "name").s.find("spare (") == 0);  // the NVTX name first

  CHECK(reportCell(r, 2, "device").i == 4);
  CHECK(reportCell(r, 2, "kernels").i == 1);
  CHECK(reportCell(r, 2, "multiprocessors").kind == Cell::Kind::Empty);
  CHECK(reportNoteContains(r, "1 devices ran work that CUPTI never described"));
}

TEST_CASE("report devices: an empty trace has no rows", "[report]") {
  Trace t;
  const ReportTable r = buildReport(t, "devices", {});
  CHECK(r.rows.empty());
  CHECK(r.notes.empty());
}
