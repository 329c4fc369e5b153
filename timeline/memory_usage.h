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
// The encoders of these tracks, for Chrome JSON and Perfetto, are in
// exporters/memory_tracks.h; the memory report reads the same model.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/trace.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

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

}  // namespace cuptitrace
