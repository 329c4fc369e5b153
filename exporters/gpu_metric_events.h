// GPU metrics on the timeline, encoded: the counter tracks of
// timeline/gpu_metric_tracks.h as Chrome JSON counter events ("ph":"C") and
// as Perfetto counter tracks, the way memory_tracks.h draws memory usage.
// Both stream from the store: nothing is held per sample.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "exporters/memory_tracks.h"
#include "exporters/pftrace/proto_writer.h"
#include "timeline/gpu_metric_tracks.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

class JsonText;

// Appends one counter event per sample and metric of `in`'s trace to a
// Chrome JSON event array whose times count from `base`: name the metric's
// label, one argument keyed by its unit in brackets (Perfetto names the
// track "SMs Active [Throughput %]"), in the GPU's process (named, and
// sorted at sortBase + 1 + device). Each event is preceded by ",\n" unless
// `first`; `flush` runs after each. Returns the events written.
size_t writeJsonGpuMetricEvents(const TimelineInput& in, uint64_t base, uint64_t sortBase,
                                JsonText& out, bool first, const std::function<void()>& flush);

// The same as Perfetto packets of a sequence of their own (its own
// incremental clock, tied to REALTIME as the timeline's is): the header (the
// clock, a counter track per metric under each GPU's process track) goes
// after the timeline's descriptors, each sample's packets before the first
// timeline event later than it (takeUntil), the rest at the end. Samples of
// several devices are merged in time order.
class PerfettoGpuMetricSequence {
 public:
  PerfettoGpuMetricSequence(const TimelineInput& in, const PerfettoMemoryOptions& options);

  bool empty() const { return timeline_.samples == 0; }
  size_t packets() const { return headerPackets_ + events_; }
  size_t events() const { return events_; }
  std::string_view header() const { return header_.view(); }
  // The packets of the samples that start at or before `wall` (wall clock:
  // trace time plus the trace's wall-clock offset) not taken yet.
  std::string_view takeUntil(uint64_t wall);
  std::string_view rest() { return takeUntil(UINT64_MAX); }

 private:
  struct Cursor {
    uint32_t device;
    size_t next;  // index of the device's next drawable record, or size() when done
  };
  void advance(Cursor& c) const;

  const Trace& trace_;
  GpuMetricTimeline timeline_;
  uint32_t sequenceId_ = 0;
  uint64_t offset_ = 0;  // wall-clock offset
  uint64_t last_ = 0;    // the sequence clock's last value
  std::vector<uint64_t> trackUuids_;
  std::vector<Cursor> cursors_;
  ProtoWriter header_;
  ProtoWriter out_;  // the packets handed out by the last takeUntil
  size_t headerPackets_ = 0;
  size_t events_ = 0;
};

}  // namespace cuptitrace
