// GPU metrics on the timeline: one counter track per metric under each GPU's
// process, named as Nsight Systems names the metric ("SMs Active [Throughput
// %]"), holding one point per sample at the sample's start (its value holds
// until the next sample). Decided once here for both timeline formats
// (exporters/gpu_metric_events.h writes them) and read by the reports.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/gpu_metrics.h"
#include "core/trace.h"

namespace cuptitrace {

struct GpuMetricTrack {
  uint32_t device = 0;
  GpuMetric metric;
  std::string name;  // metric.displayName(): the track's name in both formats
  // In Chrome JSON a counter event's name and its argument's key, which
  // Perfetto joins with a space into the track's name: "SMs Active" and
  // "[Throughput %]".
  std::string jsonName;
  std::string jsonKey;
  uint64_t samples = 0;  // points on the track
};

struct GpuMetricTimeline {
  // By device, then in the order the device's metric sets list them; one
  // track per device and name, whichever sets it appears in.
  std::vector<GpuMetricTrack> tracks;
  // The track of each slot of a (device, metric set): tracks[slots[{d, s}][i]] holds values[i].
  std::map<std::pair<uint32_t, StringId>, std::vector<uint32_t>> slots;
  std::vector<uint32_t> devices;  // devices with samples, ascending
  uint64_t samples = 0;           // GpuMetricRecords drawn
  uint64_t undrawn = 0;           // records without a time, or with a set that cannot be read
  // The tracks' slots of a record; nullptr when it is not drawn.
  const std::vector<uint32_t>* slotsOf(const GpuMetricRecord& r) const;
};

GpuMetricTimeline gpuMetricTimeline(const Trace& trace);

// A record is drawn when its set can be read and it has a start.
bool drawableGpuMetric(const GpuMetricRecord& r);

}  // namespace cuptitrace
