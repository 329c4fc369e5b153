#include "timeline/gpu_metric_tracks.h"

#include <algorithm>
#include <cmath>

namespace cuptitrace {

bool drawableGpuMetric(const GpuMetricRecord& r) { return r.start != 0 && r.end >= r.start; }

const std::vector<uint32_t>* GpuMetricTimeline::slotsOf(const GpuMetricRecord& r) const {
  if (!drawableGpuMetric(r)) return nullptr;
  const auto it = slots.find({r.deviceId, r.metricSet});
  return it == slots.end() || it->second.empty() ? nullptr : &it->second;
}

GpuMetricTimeline gpuMetricTimeline(const Trace& trace) {
  GpuMetricTimeline t;
  const auto& records = trace.store.records<GpuMetricRecord>();
  if (records.empty()) return t;
  // Sets by (device, set id), in order of first appearance; then tracks per device.
  std::map<std::pair<uint32_t, StringId>, std::vector<GpuMetric>> sets;
  std::vector<std::pair<uint32_t, StringId>> order;
  records.forEach([&](const GpuMetricRecord& r) {
    const std::pair<uint32_t, StringId> key{r.deviceId, r.metricSet};
    if (sets.count(key) == 0) {
      sets.emplace(key, decodeGpuMetricSet(trace.strings.get(r.metricSet)));
      order.push_back(key);
    }
  });
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& key : order) {
    std::vector<uint32_t>& slots = t.slots[key];
    for (const GpuMetric& m : sets[key]) {
      const std::string name = m.displayName();
      uint32_t index = static_cast<uint32_t>(t.tracks.size());
      for (uint32_t i = 0; i < t.tracks.size(); ++i)
        if (t.tracks[i].device == key.first && t.tracks[i].name == name) index = i;
      if (index == t.tracks.size()) {
        GpuMetricTrack track;
        track.device = key.first;
        track.metric = m;
        track.name = name;
        track.jsonName = m.label;
        track.jsonKey = "[" + m.unit + "]";
        t.tracks.push_back(std::move(track));
      }
      slots.push_back(index);
    }
  }
  records.forEach([&](const GpuMetricRecord& r) {
    const std::vector<uint32_t>* slots = t.slotsOf(r);
    if (slots == nullptr) {
      ++t.undrawn;
      return;
    }
    ++t.samples;
    for (size_t i = 0; i < slots->size(); ++i)
      if (!std::isnan(r.values[i])) ++t.tracks[(*slots)[i]].samples;
  });
  for (const GpuMetricTrack& k : t.tracks)
    if (k.samples != 0 && (t.devices.empty() || t.devices.back() != k.device))
      t.devices.push_back(k.device);
  return t;
}

}  // namespace cuptitrace
