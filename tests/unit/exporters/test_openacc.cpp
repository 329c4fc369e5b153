// OpenACC events in the outputs: nesting on the thread, exclusive time, the
// openacc report (nvprof's OpenACC (excl)), the CSV table and the native trace.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "exporters/csv/csv.h"
#include "exporters/native/native.h"
#include "timeline/openacc_nesting.h"
#include "reports/reports.h"
#include "exporters/split_output.h"
#include "core/config.h"
#include "csv_table.h"
#include "openacc_fixture.h"
#include "report_cells.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;

namespace {


const std::vector<Cell>* rowNamed(const ReportTable& t, const std::string& name) {
  const size_t c = reportColumn(t, "name");
  for (const auto& row : t.rows)
    if (row[c].s == name) return &row;
  return nullptr;
}

}  // namespace

TEST_CASE("openacc: events nest by construct on their thread") {
  Trace t;
  openAccTrace(t);
  const auto n = nestOpenAcc(t);
  REQUIRE(n.size() == 9);
  // enter data holds its create and uploads; the compute construct its launch and wait.
  CHECK(n[0].parent == kNoOpenAccParent);
  CHECK(n[0].depth == 0);
  for (size_t i : {1, 2, 3}) {
    CHECK(n[i].parent == 0);
    CHECK(n[i].depth == 1);
  }
  CHECK(n[4].parent == kNoOpenAccParent);
  CHECK(n[5].parent == 4);
  CHECK(n[6].parent == 4);
  CHECK(n[8].parent == 7);
  CHECK(n[0].exclusiveNs == 50);
  CHECK(n[4].exclusiveNs == 50);
  CHECK(n[7].exclusiveNs == 60);
  CHECK(n[5].exclusiveNs == 50);  // a leaf keeps its whole time
}

TEST_CASE("openacc: only events of the same thread nest, and only when held whole") {
  std::vector<OpenAccRecord> r(4);
  r[0].start = 100, r[0].end = 200, r[0].cuThreadId = 1;
  r[1].start = 120, r[1].end = 150, r[1].cuThreadId = 2;  // another thread
  r[2].start = 150, r[2].end = 250, r[2].cuThreadId = 1;  // overlaps, not held
  r[3].start = 160, r[3].end = 0, r[3].cuThreadId = 1;    // no end: not timed
  const auto n = nestOpenAcc(r);
  CHECK(n[1].parent == kNoOpenAccParent);
  CHECK(n[2].parent == kNoOpenAccParent);
  CHECK(n[3].parent == kNoOpenAccParent);
  CHECK(n[0].exclusiveNs == 100);
  CHECK(n[3].exclusiveNs == 0);
}

TEST_CASE("openacc: event labels are nvprof's") {
  Trace t;
  openAccTrace(t);
  const auto& r = t.store.records<OpenAccRecord>();
  CHECK(openAccEventLabel(r[2], t.strings) == "acc_enqueue_upload@layers_acc.c:50 (x[:n])");
  CHECK(openAccEventLabel(r[5], t.strings) == "acc_enqueue_launch@layers_acc.c:53 (saxpy$_omp_fn$0)");
  CHECK(openAccEventLabel(r[4], t.strings) == "acc_compute_construct@layers_acc.c:52");
  OpenAccRecord bare{};
  bare.eventKind = static_cast<uint8_t>(OpenAccEvent::DeviceInit);
  CHECK(openAccEventLabel(bare, t.strings) == "acc_device_init");
}

TEST_CASE("openacc report: exclusive time per event and line, sorted by it") {
  Trace t;
  openAccTrace(t);
  // A second compute construct: two calls of the same row.
  addOpenAcc(t, OpenAccEvent::ComputeConstruct, 1'002'000, 1'002'070, 52);
  const ReportTable table = buildReport(t, "openacc", {});
  CHECK(table.title == "OpenACC (excl)");
  std::vector<std::string> keys;
  for (const auto& c : table.columns) keys.push_back(c.key);
  CHECK(keys == std::vector<std::string>{"time_pct", "excl_total", "calls", "avg", "min", "max", "name"});
  REQUIRE(table.rows.size() == 9);
  // The wait's 200 ns come first.
  CHECK(reportCell(table, 0, "name").s == "acc_wait@layers_acc.c:53");
  CHECK(reportCell(table, 0, "excl_total").i == 200);
  const auto* compute = rowNamed(table, "acc_compute_construct@layers_acc.c:52");
  REQUIRE(compute != nullptr);
  CHECK((*compute)[reportColumn(table, "calls")].i == 2);
  CHECK((*compute)[reportColumn(table, "excl_total")].i == 120);  // 50 + 70
  CHECK((*compute)[reportColumn(table, "min")].i == 50);
  CHECK((*compute)[reportColumn(table, "max")].i == 70);
  CHECK((*compute)[reportColumn(table, "avg")].d == Approx(60));
  const auto* create = rowNamed(table, "acc_create@layers_acc.c:50 (x[:n])");
  REQUIRE(create != nullptr);
  CHECK((*create)[reportColumn(table, "excl_total")].i == 0);
  CHECK((*create)[reportColumn(table, "calls")].i == 1);
  // Percent of the total exclusive time: 200 + 120 + 60 + 50 + 50 + 40 + 30 + 20 + 0 = 570.
  CHECK(reportCell(table, 0, "time_pct").d == Approx(100.0 * 200 / 570));

  // Also in CSV and JSON form, like every report.
  const std::string csv = renderTables({table}, ReportFormat::Csv, {});
  CHECK(csv.find("time_pct,excl_total_ns,calls,avg_ns,min_ns,max_ns,name") != std::string::npos);
  const std::string json = renderTables({table}, ReportFormat::Json, {});
  CHECK(json.find("\"openacc\"") != std::string::npos);
}

TEST_CASE("openacc report: a trace without OpenACC says how to get them") {
  Trace t;
  const ReportTable table = buildReport(t, "openacc", {});
  CHECK(table.rows.empty());
  CHECK(reportNoteContains(table, "ACC_PROFLIB"));
}

TEST_CASE("openacc report: printed at exit only for OpenACC programs") {
  Trace empty;
  CHECK(exitSummary(buildAllReports(empty, {}), 10, "").find("OpenACC") == std::string::npos);
  Trace t;
  openAccTrace(t);
  CHECK(exitSummary(buildAllReports(t, {}), 10, "").find("cuptitrace: OpenACC (excl)") != std::string::npos);
}

TEST_CASE("openacc csv: every field, type-specific columns empty elsewhere") {
  Trace t;
  openAccTrace(t);
  const auto rows = csvTableRows(t, RecordKind::OpenAcc);
  REQUIRE(rows.size() == 10);
  const auto& h = rows[0];
  CHECK(h == csvColumns(RecordKind::OpenAcc));
  CHECK(std::string(csvTableName(RecordKind::OpenAcc)) == "openacc");
  for (const auto& row : rows) CHECK(row.size() == h.size());
  const auto& upload = rows[3];
  CHECK(upload[csvColumn(h, "type")] == "data");
  CHECK(upload[csvColumn(h, "event")] == "acc_enqueue_upload");
  CHECK(upload[csvColumn(h, "duration_ns")] == "30");
  CHECK(upload[csvColumn(h, "thread_id")] == std::to_string(kAccTid));
  CHECK(upload[csvColumn(h, "process_id")] == std::to_string(kAccPid));
  CHECK(upload[csvColumn(h, "src_file")] == "/home/me/src/layers_acc.c");
  CHECK(upload[csvColumn(h, "line")] == "50");
  CHECK(upload[csvColumn(h, "var_name")] == "x[:n]");
  CHECK(upload[csvColumn(h, "external_id")] == "1");
  CHECK(upload[csvColumn(h, "num_gangs")].empty());
  const auto& launch = rows[6];
  CHECK(launch[csvColumn(h, "type")] == "launch");
  CHECK(launch[csvColumn(h, "kernel_name")] == "saxpy$_omp_fn$0");
  CHECK(launch[csvColumn(h, "num_gangs")] == "0");
  CHECK(launch[csvColumn(h, "bytes")].empty());
  CHECK(rows[7][csvColumn(h, "implicit")] == "1");
  CHECK(rows[7][csvColumn(h, "type")] == "other");
}

TEST_CASE("openacc native: records and their strings read back") {
  Trace t;
  openAccTrace(t);
  std::stringstream buffer;
  writeNative(t, buffer);
  Trace back;
  std::string error;
  REQUIRE(readNative(buffer, back, error));
  const auto& a = t.store.records<OpenAccRecord>();
  const auto& b = back.store.records<OpenAccRecord>();
  REQUIRE(b.size() == a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(openAccEventLabel(a[i], t.strings) == openAccEventLabel(b[i], back.strings));
    CHECK(b[i].start == a[i].start);
    CHECK(b[i].end == a[i].end);
  }
}

TEST_CASE("openacc split: every part names its events' files, variables and kernels") {
  Trace t;
  openAccTrace(t);
  size_t seen = 0;
  forEachSplitPart(t, 1, kFormatJson, [&](const Trace& part, uint32_t, uint32_t) {
    part.store.records<OpenAccRecord>().forEach([&](const OpenAccRecord& r) {
      ++seen;
      CHECK(part.strings.get(r.srcFile) == "/home/me/src/layers_acc.c");
      CHECK(part.strings.get(r.funcName) == "conv_forward");
      if (r.eventKind == static_cast<uint8_t>(OpenAccEvent::EnqueueLaunch))
        CHECK(part.strings.get(r.kernelName) == "saxpy$_omp_fn$0");
    });
    return true;
  });
  CHECK(seen == 9);
}

TEST_CASE("openacc: OpenACC's ids are not the program's external ids") {
  Trace t;
  openAccTrace(t);
  const ReportTable table = buildReport(t, "external_ids", {});
  CHECK(table.rows.empty());
  CHECK(reportNoteContains(table, "no external ids"));
  // The CSV of external ids still lists them, by their kind.
  const auto rows = csvTableRows(t, RecordKind::ExternalId);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1][1] == "openacc");
}
