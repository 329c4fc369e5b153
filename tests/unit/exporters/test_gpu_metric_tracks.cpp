// GPU metric samples in every output: counter tracks in the Chrome JSON and
// the .pftrace (read back as Perfetto reads them), Nsight Systems' GPU_METRICS
// and TARGET_INFO_GPU_METRICS tables (read back with SQLite), the CSV table,
// and the native format's round trip.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "exporters/json/chrome_json.h"
#include "exporters/csv/csv.h"
#include "exporters/native/native.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "exporters/sqlite/sqlite.h"
#include "gpu_metrics_fixture.h"
#include "pftrace_decoder.h"
#include "sqlite_query.h"
#include "temp_dir.h"
#include "timeline/gpu_metric_tracks.h"
#include "timeline/track_layout.h"

using namespace cuptitrace;
using namespace cuptitrace::testing;
using nlohmann::json;

namespace {

constexpr size_t kSamples = 2454;
constexpr size_t kMetrics = 9;

}  // namespace

TEST_CASE("gpu metric tracks: one track per metric under the GPU, a point per sample") {
  Trace t;
  gpuMetricsTrace(t);
  const GpuMetricTimeline tl = gpuMetricTimeline(t);
  REQUIRE(tl.tracks.size() == kMetrics);
  CHECK(tl.samples == kSamples);
  CHECK(tl.devices == std::vector<uint32_t>{0});
  CHECK(tl.tracks[1].name == "SMs Active [Throughput %]");
  CHECK(tl.tracks[1].jsonName == "SMs Active");
  CHECK(tl.tracks[1].jsonKey == "[Throughput %]");
  for (const GpuMetricTrack& k : tl.tracks) CHECK(k.samples == kSamples);
  // A value not evaluated is no point; a record with no time is not drawn.
  GpuMetricRecord nan = t.store.records<GpuMetricRecord>()[0];
  nan.start += 1;
  nan.values[2] = std::nanf("");
  t.store.add(nan);
  GpuMetricRecord untimed = nan;
  untimed.start = 0;
  t.store.add(untimed);
  const GpuMetricTimeline again = gpuMetricTimeline(t);
  CHECK(again.samples == kSamples + 1);
  CHECK(again.undrawn == 1);
  CHECK(again.tracks[2].samples == kSamples);
  CHECK(again.tracks[1].samples == kSamples + 1);
}

TEST_CASE("gpu metric tracks: Chrome JSON counter events named so Perfetto shows Nsight's names") {
  Trace t;
  gpuMetricsTrace(t);
  std::ostringstream out;
  writeChromeJson(t, out);
  const json doc = json::parse(out.str());
  const uint32_t gpuPid = gpuProcessId(t.meta.pid, 0);
  std::map<std::string, size_t> counts;
  double firstSm = -1, firstTs = -1;
  for (const json& e : doc.at("traceEvents")) {
    if (e.value("ph", "") != "C" || e.value("cat", "") != "gpu_metrics") continue;
    CHECK(e.at("pid") == gpuPid);
    REQUIRE(e.at("args").size() == 1);
    // Perfetto's importer names the track "<name> <key>".
    const std::string track = e.at("name").get<std::string>() + " " + e.at("args").begin().key();
    ++counts[track];
    if (track == "SMs Active [Throughput %]" && firstTs < 0) {
      firstTs = e.at("ts").get<double>();
      firstSm = e.at("args").begin().value().get<double>();
    }
  }
  REQUIRE(counts.size() == kMetrics);
  for (const auto& [name, n] : counts) {
    INFO(name);
    CHECK(n == kSamples);
  }
  CHECK(counts.count("DRAM Read Bandwidth [Throughput %]") == 1);
  CHECK(counts.count("GPC Clock Frequency [MHz]") == 1);
  CHECK(firstTs == Approx(0.0));  // the first sample starts at the trace's base
  CHECK(firstSm == Approx(0.0));
  // The GPU's process is named.
  bool named = false;
  for (const json& e : doc.at("traceEvents"))
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name" && e.at("pid") == gpuPid)
      named = true;
  CHECK(named);
}

TEST_CASE("gpu metric tracks: .pftrace counter tracks under the GPU's process, in time order") {
  Trace t;
  gpuMetricsTrace(t);
  std::ostringstream out;
  const PerfettoExportStats stats = writePerfettoProto(t, out);
  const perfetto::Decoded d = perfetto::decodePerfetto(out.str());
  INFO(d.problemText());
  CHECK(d.problems.empty());
  std::map<std::string, uint64_t> byName;  // counter track name -> uuid
  for (const auto& [uuid, info] : d.tracks) {
    if (!info.counter) continue;
    byName[info.name] = uuid;
    REQUIRE(d.tracks.count(info.parent) == 1);
    CHECK(d.tracks.at(info.parent).pid == gpuProcessId(t.meta.pid, 0));
  }
  REQUIRE(byName.size() == kMetrics);
  std::map<uint64_t, size_t> counts;
  uint64_t last = 0;
  double maxDram = 0;
  for (const perfetto::Event& e : d.counters) {
    ++counts[e.track];
    CHECK(e.isDouble);
    CHECK(e.ts >= last);
    last = e.ts;
    if (e.track == byName["DRAM Read Bandwidth [Throughput %]"])
      maxDram = std::max(maxDram, e.doubleCounterValue);
  }
  for (const auto& [name, uuid] : byName) {
    INFO(name);
    CHECK(counts[uuid] == kSamples);
  }
  CHECK(maxDram == Approx(45));
  CHECK(stats.events >= kSamples * kMetrics);
  // The first point is the first sample's start, on the trace's clock.
  const perfetto::Event& first = d.counters.front();
  CHECK(first.ts == kMetricBase);
}

TEST_CASE("gpu metric tracks: SQLite holds Nsight's GPU_METRICS and TARGET_INFO_GPU_METRICS") {
  Trace t;
  gpuMetricsTrace(t);
  TempDir dir;
  const std::string path = dir.path("m.sqlite");
  REQUIRE(writeSqlite(t, path, false).error.empty());
  const auto info =
      sqlite::query(path,
                    "SELECT typeId, sourceId, metricId, metricName FROM TARGET_INFO_GPU_METRICS "
                    "ORDER BY metricId");
  REQUIRE(info.size() == kMetrics);
  CHECK(info[1] == std::vector<std::string>{"0", "0", "1", "SMs Active [Throughput %]"});
  CHECK(sqlite::query(path, "SELECT COUNT(*) FROM GPU_METRICS") ==
        sqlite::Rows{{std::to_string(kSamples * kMetrics)}});
  // A query written for Nsight's export: SM Active while the copy kernel ran.
  const auto avg = sqlite::query(
      path,
      "SELECT ROUND(AVG(g.value)) FROM GPU_METRICS g JOIN TARGET_INFO_GPU_METRICS m "
      "ON g.typeId = m.typeId AND g.metricId = m.metricId "
      "JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON g.timestamp >= k.start AND g.timestamp < k.end "
      "JOIN StringIds s ON s.id = k.demangledName "
      "WHERE m.metricName LIKE 'SMs Active%' AND s.value = 'stream_copy'");
  CHECK(avg == sqlite::Rows{{"99.0"}});
  CHECK(sqlite::query(path,
                      "SELECT cuptiName, samples FROM CUPTITRACE_GPU_METRICS WHERE metricId = 4") ==
        sqlite::Rows{{"dramc__read_throughput.avg.pct_of_peak_sustained_elapsed",
                      std::to_string(kSamples)}});
  // typeId & 0xFF is the device.
  CHECK(sqlite::query(path, "SELECT DISTINCT typeId & 255 FROM GPU_METRICS") ==
        sqlite::Rows{{"0"}});
}

TEST_CASE("gpu metric tracks: the CSV table has a row per sample and metric") {
  Trace t;
  gpuMetricsTrace(t);
  std::ostringstream out;
  writeCsvTable(t, RecordKind::GpuMetric, out);
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  CHECK(line == "start_ns,end_ns,device,metric,name,value");
  size_t rows = 0;
  std::string second;
  while (std::getline(in, line)) {
    if (rows == 1) second = line;
    ++rows;
  }
  CHECK(rows == kSamples * kMetrics);
  CHECK(second ==
        std::to_string(kMetricBase) + "," + std::to_string(kMetricBase + kMetricInterval) +
            ",0,sm__cycles_active.avg.pct_of_peak_sustained_elapsed,SMs Active [Throughput %],0");
}

TEST_CASE("gpu metric tracks: the native format keeps samples and their set") {
  Trace t;
  gpuMetricsTrace(t);
  std::stringstream bytes;
  writeNative(t, bytes);
  Trace back;
  std::string error;
  REQUIRE(readNative(bytes, back, error));
  REQUIRE(back.store.count(RecordKind::GpuMetric) == kSamples);
  const GpuMetricRecord& a = t.store.records<GpuMetricRecord>()[700];
  const GpuMetricRecord& b = back.store.records<GpuMetricRecord>()[700];
  CHECK(a.start == b.start);
  CHECK(a.end == b.end);
  for (size_t i = 0; i < kMetrics; ++i) CHECK(a.values[i] == b.values[i]);
  CHECK(decodeGpuMetricSet(back.strings.get(b.metricSet)).size() == kMetrics);
  CHECK(back.counters["gpu_metrics.samples"] == kSamples);
}
