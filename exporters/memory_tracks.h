// GPU memory and unified memory on the timeline, encoded: the memory model
// (timeline/memory_usage.h) as Chrome JSON events and as Perfetto packets.
// The writers here append to what the Chrome JSON and Perfetto exporters
// write; they share nothing else with them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "exporters/pftrace/proto_writer.h"
#include "timeline/memory_usage.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

class JsonText;

// ---- Writers ----------------------------------------------------------------------

// Appends the memory and unified memory events of `in`'s trace to a Chrome
// JSON event array whose times count from `base` (ns, trace clock): counters
// ("ph":"C") and slices, in the processes the timeline gives that trace
// (its host pid, its GPUs' pids), with the names of the tracks and processes
// they use (GPU processes sorted at sortBase + 1 + device). Each event is
// preceded by ",\n" unless `first`; `flush` is called after each event (it
// hands `out` to the stream when it is large). Returns the events written.
size_t writeJsonMemoryEvents(const TimelineInput& in, uint64_t base, uint64_t sortBase, JsonText& out,
                             bool first, const std::function<void()>& flush);

struct PerfettoMemoryOptions {
  uint32_t sequenceId = 0;       // a trusted_packet_sequence_id no other sequence uses
  uint64_t base = 0;             // the timeline's base (its clock's reference), trace clock
  uint64_t hostProcessUuid = 0;  // the host process's track
  // The track of the GPU's process, 0 when the timeline has none (one is then described here).
  std::function<uint64_t(uint32_t device)> gpuProcessUuid;
};

// The same as Perfetto packets (Trace.packet entries) of a sequence of their
// own, with its own incremental clock (id 64, tied to REALTIME as the
// timeline's is) so that its packets can go between the timeline's, which
// keeps every event of the file in time order: the header (the clock,
// counter tracks with a CounterDescriptor, the unified memory tracks) goes
// after the timeline's track descriptors, and each event packet before the
// first timeline event later than it (takeUntil), the rest at the end.
class PerfettoMemorySequence {
 public:
  PerfettoMemorySequence(const TimelineInput& in, const PerfettoMemoryOptions& options);

  bool empty() const { return packets_ == 0; }
  size_t packets() const { return packets_; }  // header and events
  size_t events() const { return starts_.size(); }
  std::string_view header() const;
  // The event packets at or before `wall` (wall clock: trace time plus the
  // trace's wall-clock offset) not taken yet.
  std::string_view takeUntil(uint64_t wall);
  std::string_view rest();

 private:
  ProtoWriter header_;
  ProtoWriter events_;
  std::vector<std::pair<uint64_t, size_t>> starts_;  // (wall time, offset in events_) of each event packet
  size_t next_ = 0;                                  // the first event packet not taken
  size_t packets_ = 0;
};

}  // namespace cuptitrace
