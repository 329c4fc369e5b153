// A Chrome JSON file's "metadata" object for one trace: what was traced and
// how (tool, host, process, clock, CUDA versions, capture windows, the
// configuration), its devices and contexts, the records it held and dropped,
// and what the timeline writer made of them.
#pragma once

#include <cstdint>

#include "exporters/json/json_events.h"
#include "core/json_text.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

class JsonObject;

// What the timeline writer counted while writing the trace's events.
struct JsonTimelineCounts {
  uint64_t base = 0;        // the base timestamp the times are relative to
  uint64_t incomplete = 0;  // records not drawn (no start, or an end missing or before it)
  uint64_t clamped = 0;     // slices cut to fit (track_layout.h)
  uint32_t maxLanes = 1;
  uint64_t laneTracks = 0;
  uint64_t flows = 0;  // launch -> GPU work arrows
};

class JsonTraceMetadata {
 public:
  JsonTraceMetadata(const TimelineInput& in, JsonText& b) : in_(in), trace_(*in.trace), b_(b) {}

  // The metadata object; in a merged file (`place.merged`), also where the
  // trace was put.
  void write(const JsonPlacement& place, const JsonTimelineCounts& counts);

 private:
  void placement(JsonObject& meta, const JsonPlacement& place);
  void fields(JsonObject& meta, uint64_t base);
  void captureWindows(JsonObject& meta);
  void devices(JsonObject& meta);
  void contexts(JsonObject& meta);
  void recordCounts(JsonObject& meta);

  const TimelineInput& in_;
  const Trace& trace_;
  JsonText& b_;
};

}  // namespace cuptitrace
