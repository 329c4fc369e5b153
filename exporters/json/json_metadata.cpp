#include "exporters/json/json_metadata.h"

#include <map>
#include <string>
#include <type_traits>

#include "core/api_set.h"
#include "core/trace_metadata_fields.h"
#include "exporters/json/json_object.h"

namespace cuptitrace {

void JsonTraceMetadata::write(const JsonPlacement& place, const JsonTimelineCounts& counts) {
  const TraceMetadata& m = trace_.meta;
  JsonObject meta(b_);
  if (place.merged) placement(meta, place);
  meta.s("tool", "cuptitrace");
  fields(meta, counts.base);
  captureWindows(meta);
  // Which runtime and driver calls were recorded: the lean set is not every call.
  const std::string apiCalls = describeApiSets(recordedApiSets(trace_));
  if (!apiCalls.empty()) meta.s("api_calls", apiCalls);

  meta.key("config");
  JsonObject config(b_);
  for (const auto& [name, value] : m.config) {
    config.escapedKey(name);
    b_.quoted(value);
  }
  config.close();

  devices(meta);
  contexts(meta);
  recordCounts(meta);

  meta.u("incomplete_records", counts.incomplete);
  meta.u("clamped_slices", counts.clamped);
  meta.u("max_lanes", counts.maxLanes);
  meta.u("lane_tracks", counts.laneTracks);
  meta.u("flows", counts.flows);
  // Where OpenACC's arrows moved the bind_ids (json_flows.h): a bind_id less
  // this is the call's correlation id (less flow_id_base, in a merged file).
  if (place.v1Flows != 0) meta.u("bind_id_base", place.flowBase + place.v1Flows);
  meta.close();
}

// The scalar fields, as their table says (core/trace_metadata_fields.h); the
// base timestamp is the one the events' times are relative to.
void JsonTraceMetadata::fields(JsonObject& meta, uint64_t base) {
  const TraceMetadata& m = trace_.meta;
  visitMetadataFields(m, [&](const MetadataField& f, const auto& value) {
    if (!(f.shows & kShownInJson) || !metadataFieldSaid(f, m, value)) return;
    meta.escapedKey(f.name);
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, std::string>) {
      b_.quoted(value);
    } else if (f.timelineBase) {
      b_.uint(base);
    } else if constexpr (std::is_signed_v<T>) {
      b_.sint(value);
    } else {
      b_.uint(value);
    }
  });
}

// Its labels, and the pids, names and ids it was given in the merged file.
void JsonTraceMetadata::placement(JsonObject& meta, const JsonPlacement& place) {
  for (const auto& [key, value] : in_.labels) {
    meta.escapedKey(key);
    b_.quoted(value);
  }
  meta.u("shown_pid", in_.hostPid());
  meta.s("shown_process_name", hostProcessName(trace_) + in_.nameSuffix);
  meta.u("gpu_pid_base", gpuProcessId(in_.gpuKey, 0));
  meta.u("flow_id_base", place.flowBase);
  meta.u("async_id_base", place.asyncBase);
}

// CUPTITRACE_CAPTURE: when collection was on, and when CUPTI was detached past the last window.
void JsonTraceMetadata::captureWindows(JsonObject& meta) {
  const TraceMetadata& m = trace_.meta;
  if (m.captureWindows.empty()) return;
  meta.key("capture_windows");
  b_.put('[');
  for (size_t w = 0; w < m.captureWindows.size(); ++w) {
    if (w != 0) b_.put(',');
    JsonObject window(b_);
    window.u("start_ns", m.captureWindows[w].startNs);
    window.u("end_ns", m.captureWindows[w].endNs);
    window.close();
  }
  b_.put(']');
}

void JsonTraceMetadata::devices(JsonObject& meta) {
  meta.key("devices");
  b_.put('[');
  for (size_t i = 0; i < trace_.devices.size(); ++i) {
    const DeviceInfo& d = trace_.devices[i];
    if (i != 0) b_.put(',');
    JsonObject device(b_);
    device.u("id", d.id);
    device.s("name", d.name);
    const auto named = trace_.deviceNames.find(d.id);
    if (named != trace_.deviceNames.end()) device.s("nvtx_name", named->second);
    device.s("compute_capability",
             std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor));
    device.u("multiprocessors", d.multiprocessors);
    device.u("global_memory_bytes", d.globalMemoryBytes);
    device.u("core_clock_khz", d.coreClockKHz);
    if (d.memoryBandwidthKBps != 0) device.u("memory_bandwidth_kbps", d.memoryBandwidthKBps);
    if (d.l2CacheBytes != 0) device.u("l2_cache_bytes", d.l2CacheBytes);
    if (d.copyEngines != 0) device.u("copy_engines", d.copyEngines);
    device.s("uuid", d.uuid);
    device.close();
  }
  b_.put(']');
}

// The contexts that track names call "context N", with the names NVTX gave them.
void JsonTraceMetadata::contexts(JsonObject& meta) {
  std::map<uint32_t, const ContextInfo*> contexts;
  for (const ContextInfo& c : trace_.contexts) contexts[c.contextId] = &c;
  for (const auto& named : trace_.contextNames) contexts.emplace(named.first, nullptr);
  if (contexts.empty()) return;
  meta.key("contexts");
  b_.put('[');
  for (auto it = contexts.begin(); it != contexts.end(); ++it) {
    if (it != contexts.begin()) b_.put(',');
    JsonObject context(b_);
    context.u("id", it->first);
    if (it->second != nullptr) {
      context.u("device", it->second->deviceId);
      context.u("null_stream", it->second->nullStreamId);
    }
    const auto named = trace_.contextNames.find(it->first);
    if (named != trace_.contextNames.end()) context.s("nvtx_name", named->second);
    context.close();
  }
  b_.put(']');
}

// The records the trace holds and dropped, by kind, and its named counters.
void JsonTraceMetadata::recordCounts(JsonObject& meta) {
  // {kind: count(kind)} over every record kind.
  const auto byKind = [&](auto count) {
    JsonObject kinds(b_);
    for (int k = 0; k < kRecordKindCount; ++k) {
      const auto kind = static_cast<RecordKind>(k);
      kinds.escapedKey(recordKindName(kind));
      b_.uint(count(kind));
    }
    kinds.close();
  };
  meta.key("records");
  byKind([&](RecordKind kind) { return trace_.store.count(kind); });
  meta.u("dropped_records", trace_.totalDropped());
  meta.key("dropped");
  byKind([&](RecordKind kind) { return trace_.store.dropped(kind); });
  meta.key("counters");
  JsonObject counters(b_);
  for (const auto& [name, value] : trace_.counters) {
    counters.escapedKey(name);
    b_.uint(value);
  }
  counters.close();
}

}  // namespace cuptitrace
