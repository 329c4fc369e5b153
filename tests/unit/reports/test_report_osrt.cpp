// The osrt report: C library calls per function, kept apart from the CUDA API calls.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "reports/report_table.h"
#include "reports/reports.h"
#include "memory_fixture.h"
#include "report_cells.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;

namespace {

constexpr uint64_t kBase = 1'000'000'000ull;

void osrt(Trace& t, uint64_t start, uint64_t duration, const char* name) {
  addApi(t, kBase + start, duration == 0 ? 0 : kBase + start + duration, name, 0, ApiDomain::Osrt);
}

// A CUDA call, a 20 us usleep, three fgets, two fopen and an fclose without an
// end; 7 calls were too short to be recorded.
void osrtTrace(Trace& t) {
  t.meta.pid = 10;
  t.meta.baseTimestampNs = kBase;
  t.meta.config = {{"CUPTITRACE_ACTIVITIES", "default,osrt"}, {"CUPTITRACE_OSRT_THRESHOLD", "0ns"}};
  t.counters["osrt.below_threshold"] = 7;
  addApi(t, kBase, kBase + 50000, "cudaLaunchKernel", 1);
  osrt(t, 100000, 20000, "usleep");
  osrt(t, 1000, 2000, "fgets");
  osrt(t, 4000, 1000, "fgets");
  osrt(t, 6000, 6000, "fgets");
  osrt(t, 200, 1500, "fopen");
  osrt(t, 300, 500, "fopen");
  osrt(t, 13000, 0, "fclose");  // no end
}

}  // namespace

TEST_CASE("report osrt: per function statistics, sorted by total time", "[report]") {
  Trace t;
  osrtTrace(t);
  const ReportTable r = buildReport(t, "osrt", {});
  CHECK(r.name == "osrt");
  REQUIRE(r.rows.size() == 4);
  const uint64_t total = 20000 + 9000 + 2000;

  CHECK(reportCell(r, 0, "name").s == "usleep");
  CHECK(reportCell(r, 0, "calls").i == 1);
  CHECK(reportCell(r, 0, "total").i == 20000);
  CHECK(reportCell(r, 0, "time_pct").d == Approx(100.0 * 20000 / total));
  CHECK(reportCell(r, 0, "stddev").d == Approx(0));

  CHECK(reportCell(r, 1, "name").s == "fgets");
  CHECK(reportCell(r, 1, "calls").i == 3);
  CHECK(reportCell(r, 1, "total").i == 9000);
  CHECK(reportCell(r, 1, "time_pct").d == Approx(100.0 * 9000 / total));
  CHECK(reportCell(r, 1, "avg").d == Approx(3000));
  CHECK(reportCell(r, 1, "med").d == Approx(2000));
  CHECK(reportCell(r, 1, "min").i == 1000);
  CHECK(reportCell(r, 1, "max").i == 6000);
  CHECK(reportCell(r, 1, "stddev").d == Approx(std::sqrt(7e6)));

  CHECK(reportCell(r, 2, "name").s == "fopen");
  CHECK(reportCell(r, 2, "calls").i == 2);
  CHECK(reportCell(r, 2, "total").i == 2000);
  CHECK(reportCell(r, 2, "med").d == Approx(1000));

  // Counted, not timed.
  CHECK(reportCell(r, 3, "name").s == "fclose");
  CHECK(reportCell(r, 3, "calls").i == 1);
  CHECK(reportCell(r, 3, "total").i == 0);
  CHECK(reportCell(r, 3, "avg").kind == Cell::Kind::Empty);

  CHECK(reportNoteContains(r, "1 OS runtime call record has no valid end"));
  CHECK(reportNoteContains(r, "fclose (thread 10)"));
  CHECK(reportNoteContains(r, "CUPTITRACE_OSRT_THRESHOLD (0ns)"));
  CHECK(reportNoteContains(r, "7 such calls (osrt.below_threshold)"));
}

TEST_CASE("report osrt: CUDA calls and C library calls stay in their own reports", "[report]") {
  Trace t;
  osrtTrace(t);
  const auto tables = buildReports(t, {"api_calls", "osrt"}, {});
  REQUIRE(tables.size() == 2);
  REQUIRE(tables[0].rows.size() == 1);
  CHECK(reportCell(tables[0], 0, "name").s == "cudaLaunchKernel");
  CHECK(reportCell(tables[0], 0, "time_pct").d == Approx(100));
  CHECK_FALSE(reportNoteContains(tables[0], "no valid end"));  // fclose is not an API call
  for (const auto& row : tables[1].rows) CHECK(row.back().s != "cudaLaunchKernel");
}

TEST_CASE("report osrt: a trace without osrt records says how to get them", "[report]") {
  Trace t;
  addApi(t, 10, 20, "cudaLaunchKernel", 1);
  const ReportTable r = buildReport(t, "osrt", {});
  CHECK(r.rows.empty());
  CHECK(reportNoteContains(r, "CUPTITRACE_ACTIVITIES=default,osrt"));
  std::string text;
  renderText(r, {}, text);
  CHECK_THAT(text, Catch::StartsWith("OS runtime calls:") && Catch::Contains("(none)"));
}
