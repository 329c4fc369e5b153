// The uvm report on a small synthetic trace of unified memory records.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "reports/report_table.h"
#include "reports/reports.h"
#include "memory_fixture.h"
#include "report_cells.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;

namespace {

// Device 0: four HtoD migrations (one without an end), two DtoH, two GPU
// fault groups, a thrashing and a throttling record; device 1: one large
// HtoD; five CPU page faults, which belong to no device.
void uvmTrace(Trace& t) {
  addUvm(t, UvmKind::BytesHtoD, 0, 1000, 4096, 0);
  addUvm(t, UvmKind::BytesHtoD, 2000, 4000, 8192, 0);
  addUvm(t, UvmKind::BytesHtoD, 5000, 5500, 65536, 0);
  addUvm(t, UvmKind::BytesHtoD, 6000, 0, 4096, 0);  // no end: counted, not timed
  addUvm(t, UvmKind::BytesDtoH, 10000, 10400, 4096, 0);
  addUvm(t, UvmKind::BytesDtoH, 11000, 11200, 4096, 0);
  addUvm(t, UvmKind::BytesHtoD, 20000, 30000, 2 << 20, 1);
  for (uint64_t i = 0; i < 5; ++i)
    addUvm(t, UvmKind::CpuPageFault, 40000 + i, 40000 + i, 0x400000 + i, kUvmNoDevice);
  addUvm(t, UvmKind::GpuPageFault, 7000, 7100, 3, 0);
  addUvm(t, UvmKind::GpuPageFault, 8000, 8200, 4, 0);
  addUvm(t, UvmKind::Thrashing, 9000, 9000, 65536, 0);
  addUvm(t, UvmKind::Throttling, 9500, 9800, 0, 0);
}

}  // namespace

TEST_CASE("report uvm: per device and counter, by bytes then count", "[report]") {
  Trace t;
  uvmTrace(t);
  const ReportTable r = buildReport(t, "uvm", {});
  CHECK(r.name == "uvm");
  REQUIRE(r.rows.size() == 7);

  // Device 1's 2 MiB migration moved the most bytes.
  CHECK(reportCell(r, 0, "device").i == 1);
  CHECK(reportCell(r, 0, "counter").s == "HtoD");
  CHECK(reportCell(r, 0, "count").i == 1);
  CHECK(reportCell(r, 0, "total_bytes").i == (2u << 20));
  CHECK(reportCell(r, 0, "time").i == 10000);

  // Device 0's HtoD: the migration without an end has bytes but no time.
  CHECK(reportCell(r, 1, "device").i == 0);
  CHECK(reportCell(r, 1, "counter").s == "HtoD");
  CHECK(reportCell(r, 1, "count").i == 4);
  CHECK(reportCell(r, 1, "total_bytes").i == 4096 + 8192 + 65536 + 4096);
  CHECK(reportCell(r, 1, "min_bytes").i == 4096);
  CHECK(reportCell(r, 1, "max_bytes").i == 65536);
  CHECK(reportCell(r, 1, "avg_bytes").d == Approx(20480));
  CHECK(reportCell(r, 1, "med_bytes").d == Approx(6144));
  CHECK(reportCell(r, 1, "stddev_bytes").d == Approx(std::sqrt(2717908992.0 / 3)));
  CHECK(reportCell(r, 1, "time").i == 1000 + 2000 + 500);
  CHECK(reportCell(r, 1, "fault_groups").kind == Cell::Kind::Empty);

  // Thrashing has bytes and no time: an instant.
  CHECK(reportCell(r, 2, "counter").s == "Thrashing");
  CHECK(reportCell(r, 2, "total_bytes").i == 65536);
  CHECK(reportCell(r, 2, "time").kind == Cell::Kind::Empty);

  CHECK(reportCell(r, 3, "counter").s == "DtoH");
  CHECK(reportCell(r, 3, "count").i == 2);
  CHECK(reportCell(r, 3, "total_bytes").i == 8192);
  CHECK(reportCell(r, 3, "avg_bytes").d == Approx(4096));
  CHECK(reportCell(r, 3, "stddev_bytes").d == Approx(0));
  CHECK(reportCell(r, 3, "time").i == 600);

  // Faults have no bytes: ordered by count.
  CHECK(reportCell(r, 4, "counter").s == "CPU page fault");
  CHECK(reportCell(r, 4, "device").kind == Cell::Kind::Empty);
  CHECK(reportCell(r, 4, "count").i == 5);
  CHECK(reportCell(r, 4, "total_bytes").kind == Cell::Kind::Empty);
  CHECK(reportCell(r, 4, "time").kind == Cell::Kind::Empty);

  CHECK(reportCell(r, 5, "counter").s == "GPU page fault");
  CHECK(reportCell(r, 5, "device").i == 0);
  CHECK(reportCell(r, 5, "count").i == 2);
  CHECK(reportCell(r, 5, "fault_groups").i == 7);
  CHECK(reportCell(r, 5, "time").i == 300);
  CHECK(reportCell(r, 5, "total_bytes").kind == Cell::Kind::Empty);

  CHECK(reportCell(r, 6, "counter").s == "Throttling");
  CHECK(reportCell(r, 6, "count").i == 1);
  CHECK(reportCell(r, 6, "time").i == 300);

  CHECK(reportNoteContains(r, "1 unified memory record has no valid end"));
  CHECK(reportNoteContains(r, "HtoD on device 0"));
}

TEST_CASE("report uvm: JSON rows carry the counter name and count", "[report]") {
  Trace t;
  uvmTrace(t);
  std::string text;
  renderJson({buildReport(t, "uvm", {})}, {}, text);
  const auto doc = nlohmann::json::parse(text);
  const auto& rows = doc["reports"][0]["rows"];
  REQUIRE(rows.size() == 7);
  CHECK(rows[4]["counter"] == "CPU page fault");
  CHECK(rows[4]["count"] == 5);
  CHECK(rows[4]["device"].is_null());
  CHECK(rows[1]["time_ns"] == 3500);
}

TEST_CASE("report uvm: a trace without unified memory records says how to get them", "[report]") {
  Trace t;
  addApi(t, 10, 20, "cudaMallocManaged", 1);
  const ReportTable r = buildReport(t, "uvm", {});
  CHECK(r.rows.empty());
  CHECK(reportNoteContains(r, "CUPTITRACE_ACTIVITIES=default,uvm"));
  std::string text;
  renderText(r, {}, text);
  CHECK_THAT(text, Catch::StartsWith("Unified memory:") && Catch::Contains("(none)"));
}
