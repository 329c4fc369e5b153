// The GPU metrics tables of the SQLite output, as Nsight Systems' export
// has them: TARGET_INFO_GPU_METRICS names each device's metrics (metricName
// "SMs Active [Throughput %]"), GPU_METRICS holds one row per sample and
// metric (timestamp: the sample's start, ns, on the trace clock like every
// other table). typeId is (trace index << 8) | device, so that
// `typeId & 0xFF` is the device as in Nsight's exports and devices of merged
// traces stay apart; metricId numbers a device's metrics. Join the two on
// (typeId, metricId).
#include <cmath>
#include <map>

#include "exporters/sqlite/sqlite_schema.h"
#include "exporters/sqlite/sqlite_tables.h"
#include "timeline/gpu_metric_tracks.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

bool writeSqliteGpuMetrics(SqliteDb& db, const SqliteTraceInput& in, uint64_t& rows, const SqliteRowFilter& filter) {
  // The three tables are written together.
  if (!filter.wants("GPU_METRICS")) return true;
  const Trace& trace = *in.trace;
  const GpuMetricTimeline t = gpuMetricTimeline(trace);
  if (t.tracks.empty()) return true;
  SqliteStatement info(db,
                       sqliteInsert("TARGET_INFO_GPU_METRICS",
                                    {"typeId", "sourceId", "typeName", "metricId", "metricName"}));
  SqliteStatement names(db, sqliteInsert("CUPTITRACE_GPU_METRICS",
                                         {"typeId", "metricId", "cuptiName", "unit", "samples"}));
  SqliteStatement sample(db,
                         sqliteInsert("GPU_METRICS", {"timestamp", "typeId", "metricId", "value"}));
  if (!info.ok() || !names.ok() || !sample.ok()) return false;
  auto typeId = [&](uint32_t device) { return (int64_t{in.index} << 8) | (device & 0xFF); };
  // metricId: the track's place among its device's tracks.
  std::vector<int64_t> metricId(t.tracks.size(), 0);
  std::map<uint32_t, int64_t> perDevice;
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    const GpuMetricTrack& k = t.tracks[i];
    metricId[i] = perDevice[k.device]++;
    const std::string typeName = gpuProcessName(trace, k.device);
    info.integer(1, typeId(k.device));
    info.integer(2, k.device);
    info.text(3, typeName);
    info.integer(4, metricId[i]);
    info.text(5, k.name);
    if (!info.step()) return false;
    names.integer(1, typeId(k.device));
    names.integer(2, metricId[i]);
    names.text(3, k.metric.name);
    names.text(4, k.metric.unit);
    names.unsignedInteger(5, k.samples);
    if (!names.step()) return false;
    rows += 2;
  }
  const auto offset = static_cast<uint64_t>(in.timeOffsetNs);
  bool ok = true;
  trace.store.records<GpuMetricRecord>().forEach([&](const GpuMetricRecord& r) {
    const std::vector<uint32_t>* slots = ok ? t.slotsOf(r) : nullptr;
    if (slots == nullptr) return;
    for (size_t i = 0; ok && i < slots->size(); ++i) {
      if (std::isnan(r.values[i])) continue;
      sample.unsignedInteger(1, r.start + offset);
      sample.integer(2, typeId(r.deviceId));
      sample.integer(3, metricId[(*slots)[i]]);
      sample.real(4, static_cast<double>(r.values[i]));
      ok = sample.step();
      if (ok) ++rows;
    }
  });
  return ok;
}

}  // namespace cuptitrace
