// GPU memory and unified memory on the timeline: what the memory and uvm
// records become, computed once for both timeline exporters and the reports.
//
// - Memory allocated: per device, the bytes allocated and not yet freed
//   after each allocation and free, in time order (a counter track in the
//   GPU's process). Frees are matched to allocations by address; a free whose
//   allocation the trace does not hold (made before tracing started, or
//   outside a capture window) is counted and changes nothing.
// - Unified memory: transfers (HtoD, DtoH, DtoD) and GPU page faults as
//   slices in the GPU's process, one track per kind, spread over as many
//   lanes as overlapping records need (a track's slices must nest); CPU page
//   faults as instants on a host process track; cumulative counters of bytes
//   migrated and faults.
//
// The writers here append to what the Chrome JSON and Perfetto exporters
// write; they share nothing else with them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/trace.h"
#include "exporters/proto_writer.h"
#include "exporters/track_layout.h"

namespace cuptitrace {

class JsonText;

struct CounterPoint {
  uint64_t ts;
  uint64_t value;
};

// Allocation statistics of one memory kind (or of all kinds) on one device.
struct MemoryKindUsage {
  uint64_t allocations = 0;
  uint64_t frees = 0;           // frees matched to an allocation in the trace
  uint64_t allocatedBytes = 0;  // sum over allocations
  uint64_t peakBytes = 0;       // most bytes allocated and not freed at once
  uint64_t peakTs = 0;          // when that was first reached
  uint64_t liveCount = 0;       // allocations not freed when the trace ends
  uint64_t liveBytes = 0;
};

struct DeviceMemoryUsage {
  uint32_t device = 0;
  MemoryKindUsage all;
  std::array<MemoryKindUsage, 8> byKind{};  // by MemoryKind value
  std::vector<CounterPoint> points;         // bytes allocated after each change, in time order
};

struct MemoryUsage {
  std::vector<DeviceMemoryUsage> devices;  // by device id, ascending
  // Indices (in the store's memory records) of the allocations never freed
  // by the end of the trace, largest first (ties: earliest first).
  std::vector<uint32_t> live;
  uint64_t unmatchedFrees = 0;   // frees whose allocation the trace does not hold
  uint64_t reusedAddresses = 0;  // allocations at an address still allocated (its free was lost)
  uint64_t undated = 0;          // records without a timestamp: left out
};

// Walks the memory records in time order (allocations before frees at equal times).
MemoryUsage memoryUsage(const Trace& trace);

// Static memory (__device__ and __managed__ variables) is allocated by CUDA
// when a module loads, not by the program: never a leak.
bool isStaticMemory(uint8_t memoryKind);

// ---- Unified memory -------------------------------------------------------------

// One timeline track of unified memory records: the records of one kind on
// one device (kUvmNoDevice: the host), in one lane.
struct UvmTrack {
  uint32_t device = 0;
  uint8_t kind = 0;  // UvmKind
  uint32_t lane = 0;
  std::vector<uint32_t> records;  // indices of UvmRecords, by start
};

// Cumulative count of one kind on one device: bytes for transfers, fault
// groups for GPU faults, faults for CPU faults.
struct UvmCounter {
  uint32_t device = 0;
  uint8_t kind = 0;
  std::vector<CounterPoint> points;
};

struct UvmTimeline {
  std::vector<UvmTrack> tracks;  // by device, kind, lane
  std::vector<UvmCounter> counters;
  uint64_t undrawn = 0;  // records without a start or with an end before it
};

UvmTimeline uvmTimeline(const Trace& trace);

// Names shown on the timeline.
bool isUvmTransfer(uint8_t kind);           // HtoD, DtoH and DtoD migrations: counted in bytes
const char* uvmCounterKey(uint8_t kind);    // the key of a counter's JSON series: bytes, faults, ...
std::string uvmTrackName(uint8_t kind);    // "Unified memory HtoD", "GPU page faults", ...
std::string uvmCounterName(uint8_t kind);  // "Unified memory HtoD (bytes)", ...
inline constexpr const char* kMemoryCounterName = "Memory allocated";

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
