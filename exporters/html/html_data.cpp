// One trace's data for its page: the run's facts, every report, the series
// over time (memory per device, GPU metrics per device and metric) and, when
// small, the trace as a .pftrace for Perfetto.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/gpu_metrics.h"
#include "core/version.h"
#include "exporters/html/html_data.h"
#include "exporters/html/html_series.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "timeline/gpu_metric_tracks.h"
#include "timeline/memory_usage.h"

namespace cuptitrace::html {
namespace {

void key(JsonText& j, const char* k) {
  j.quoted(k);
  j.put(':');
}

void runFacts(const Trace& trace, const HtmlOptions& options, JsonText& j) {
  const TraceMetadata& m = trace.meta;
  j.lit("{");
  key(j, "source"); j.quoted(options.source);
  j.lit(","); key(j, "command"); j.quoted(m.commandLine);
  j.lit(","); key(j, "process"); j.quoted(m.processName);
  j.lit(","); key(j, "host"); j.quoted(m.hostName);
  j.lit(","); key(j, "pid"); j.uint(m.pid);
  j.lit(","); key(j, "tool_version"); j.quoted(m.toolVersion.empty() ? kVersion : m.toolVersion);
  j.lit(","); key(j, "start_wall_ns"); j.uint(m.startRealtimeNs);
  j.lit(","); key(j, "base_ns"); j.uint(m.baseTimestampNs);
  j.lit(","); key(j, "start_ns"); j.uint(m.startTimestampNs);
  j.lit(","); key(j, "end_ns"); j.uint(m.endTimestampNs);
  j.lit(","); key(j, "cupti_version"); j.uint(m.cuptiVersion);
  j.lit(","); key(j, "driver_version"); j.sint(m.driverVersion);
  j.lit(","); key(j, "rank"); j.sint(m.rank);
  j.lit(","); key(j, "world_size"); j.uint(m.worldSize);
  j.lit(","); key(j, "devices"); j.put('[');
  for (size_t i = 0; i < trace.devices.size(); ++i) {
    const DeviceInfo& d = trace.devices[i];
    if (i) j.put(',');
    j.lit("{"); key(j, "id"); j.uint(d.id);
    j.lit(","); key(j, "name"); j.quoted(d.name);
    j.lit(","); key(j, "compute_capability");
    j.quoted(std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor));
    j.lit(","); key(j, "sms"); j.uint(d.multiprocessors);
    j.lit(","); key(j, "memory_bytes"); j.uint(d.globalMemoryBytes);
    j.lit(","); key(j, "clock_mhz"); j.uint(d.coreClockKHz / 1000);
    j.put('}');
  }
  j.lit("],"); key(j, "records"); j.put('{');
  bool first = true;
  for (int k = 0; k < kRecordKindCount; ++k) {
    const uint64_t n = trace.store.count(static_cast<RecordKind>(k));
    if (n == 0) continue;
    if (!first) j.put(',');
    first = false;
    key(j, recordKindName(static_cast<RecordKind>(k)));
    j.uint(n);
  }
  j.lit("}}");
}

void points(const std::vector<SeriesPoint>& ps, uint64_t base, JsonText& j) {
  j.put('[');
  for (size_t i = 0; i < ps.size(); ++i) {
    if (i) j.put(',');
    j.put('[');
    j.uint(ps[i].t >= base ? ps[i].t - base : 0);
    j.put(',');
    j.dbl(ps[i].v);
    j.put(']');
  }
  j.put(']');
}

// Memory allocated through CUDA per device, over time, with its peak.
void memorySeries(const Trace& trace, const HtmlOptions& options, uint64_t base, JsonText& j) {
  const MemoryUsage usage = memoryUsage(trace);
  j.put('[');
  bool first = true;
  for (const DeviceMemoryUsage& d : usage.devices) {
    if (d.points.empty()) continue;
    SeriesReducer r(d.points.front().ts, d.points.back().ts, options.seriesPoints);
    for (const CounterPoint& p : d.points) r.add(p.ts, static_cast<double>(p.value));
    if (!first) j.put(',');
    first = false;
    j.lit("{"); key(j, "device"); j.uint(d.device);
    j.lit(","); key(j, "peak_bytes"); j.uint(d.all.peakBytes);
    j.lit(","); key(j, "peak_ns"); j.uint(d.all.peakTs >= base ? d.all.peakTs - base : 0);
    j.lit(","); key(j, "changes"); j.uint(d.points.size());
    j.lit(","); key(j, "points"); points(r.points(), base, j);
    j.put('}');
  }
  j.put(']');
}

// Each GPU metric of each device over time: two passes over the samples, the
// first for each track's span, the second into its reducer (bounded memory).
void metricSeries(const Trace& trace, const HtmlOptions& options, uint64_t base, JsonText& j) {
  const GpuMetricTimeline timeline = gpuMetricTimeline(trace);
  const auto& records = trace.store.records<GpuMetricRecord>();
  const size_t n = timeline.tracks.size();
  std::vector<uint64_t> from(n, UINT64_MAX), to(n, 0);
  records.forEach([&](const GpuMetricRecord& r) {
    const std::vector<uint32_t>* slots = timeline.slotsOf(r);
    if (slots == nullptr) return;
    for (const uint32_t t : *slots) from[t] = std::min(from[t], r.start), to[t] = std::max(to[t], r.start);
  });
  std::vector<SeriesReducer> reducers;
  reducers.reserve(n);
  for (size_t t = 0; t < n; ++t) reducers.emplace_back(from[t], to[t], options.seriesPoints);
  records.forEach([&](const GpuMetricRecord& r) {
    const std::vector<uint32_t>* slots = timeline.slotsOf(r);
    if (slots == nullptr) return;
    for (size_t i = 0; i < slots->size() && i < kGpuMetricSlots; ++i)
      if (!std::isnan(r.values[i])) reducers[(*slots)[i]].add(r.start, static_cast<double>(r.values[i]));
  });
  j.put('[');
  for (size_t t = 0; t < n; ++t) {
    const GpuMetricTrack& track = timeline.tracks[t];
    if (t) j.put(',');
    j.lit("{"); key(j, "device"); j.uint(track.device);
    j.lit(","); key(j, "name"); j.quoted(track.metric.label);
    j.lit(","); key(j, "unit"); j.quoted(track.metric.unit);
    j.lit(","); key(j, "samples"); j.uint(reducers[t].added());
    j.lit(","); key(j, "points"); points(reducers[t].points(), base, j);
    j.put('}');
  }
  j.put(']');
}

const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64(std::string_view in, JsonText& j) {
  j.put('"');
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    const char out[4] = {kBase64[v >> 18], kBase64[(v >> 12) & 63], kBase64[(v >> 6) & 63], kBase64[v & 63]};
    j.put(std::string_view(out, 4));
  }
  if (i < in.size()) {
    const bool two = i + 1 < in.size();
    const uint32_t v = (uint8_t(in[i]) << 16) | (two ? uint8_t(in[i + 1]) << 8 : 0);
    const char out[4] = {kBase64[v >> 18], kBase64[(v >> 12) & 63], two ? kBase64[(v >> 6) & 63] : '=', '='};
    j.put(std::string_view(out, 4));
  }
  j.put('"');
}

// The .pftrace of a small trace, else null (the page then asks for the file).
void timeline(const Trace& trace, const HtmlOptions& options, JsonText& j) {
  uint64_t records = 0;
  for (int k = 0; k < kRecordKindCount; ++k) records += trace.store.count(static_cast<RecordKind>(k));
  if (records == 0 || records > options.embedRecords) {
    j.lit("null");
    return;
  }
  std::ostringstream proto;
  writePerfettoProto(trace, proto);
  const std::string bytes = proto.str();
  if (bytes.size() > options.embedBytes) {
    j.lit("null");
    return;
  }
  base64(bytes, j);
}

}  // namespace

void appendReports(const std::vector<ReportTable>& tables, JsonText& j) {
  RenderOptions render;
  render.timeUnit = TimeUnit::Ns;
  std::string text;
  renderJson(tables, render, text);
  // {"reports":[...]}: the array alone.
  const size_t open = text.find('[');
  const size_t close = text.rfind(']');
  j.put(std::string_view(text).substr(open, close - open + 1));
}

std::string traceData(const Trace& trace, const ReportOptions& reportOptions, const HtmlOptions& options) {
  JsonText j;
  const uint64_t base = trace.meta.baseTimestampNs;
  j.lit("{\"kind\":\"trace\",\"run\":");
  runFacts(trace, options, j);
  j.lit(",\"reports\":");
  std::vector<ReportTable> tables = buildAllReports(trace, reportOptions);
  // With input shapes, the operators by name alone too: the page shows either.
  for (const ReportTable& t : tables) {
    if (t.name != "operators") continue;
    if (std::none_of(t.columns.begin(), t.columns.end(), [](const Column& c) { return c.key == "input_shapes"; }))
      break;
    ReportOptions byName = reportOptions;
    byName.operatorsByShapes = false;
    ReportTable named = buildReport(trace, "operators", byName);
    named.name = "operators_by_name";
    tables.push_back(std::move(named));
    break;
  }
  appendReports(tables, j);
  j.lit(",\"series\":{\"memory\":");
  memorySeries(trace, options, base, j);
  j.lit(",\"gpu_metrics\":");
  metricSeries(trace, options, base, j);
  j.lit("},\"timeline\":");
  timeline(trace, options, j);
  j.put('}');
  return std::string(j.view());
}

}  // namespace cuptitrace::html
