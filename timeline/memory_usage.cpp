// The memory model behind the memory tracks: device memory in use over time
// and unified memory events laid out in lanes, built once for every format.
#include "timeline/memory_usage.h"

#include <algorithm>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace cuptitrace {
namespace {

DeviceMemoryUsage& deviceUsage(std::vector<DeviceMemoryUsage>& devices, uint32_t device) {
  for (auto& d : devices)
    if (d.device == device) return d;
  devices.emplace_back();
  devices.back().device = device;
  return devices.back();
}

void noteAllocation(MemoryKindUsage& u, uint64_t& current, uint64_t bytes, uint64_t ts) {
  ++u.allocations;
  u.allocatedBytes += bytes;
  current += bytes;
  if (current > u.peakBytes) {
    u.peakBytes = current;
    u.peakTs = ts;
  }
}

bool hasCounter(uint8_t kind) {
  const auto k = static_cast<UvmKind>(kind);
  return isUvmTransfer(kind) || k == UvmKind::GpuPageFault || k == UvmKind::CpuPageFault;
}

}  // namespace

bool isUvmTransfer(uint8_t kind) {
  const auto k = static_cast<UvmKind>(kind);
  return k == UvmKind::BytesHtoD || k == UvmKind::BytesDtoH || k == UvmKind::BytesDtoD;
}

const char* uvmCounterKey(uint8_t kind) {
  switch (static_cast<UvmKind>(kind)) {
    case UvmKind::GpuPageFault: return "fault_groups";
    case UvmKind::CpuPageFault: return "faults";
    default: return "bytes";
  }
}

bool isStaticMemory(uint8_t memoryKind) {
  const auto k = static_cast<MemoryKind>(memoryKind);
  return k == MemoryKind::DeviceStatic || k == MemoryKind::ManagedStatic;
}

MemoryUsage memoryUsage(const Trace& trace) {
  MemoryUsage usage;
  const auto& records = trace.store.records<MemoryRecord>();
  std::vector<uint32_t> order;
  order.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].timestamp == 0)
      ++usage.undated;
    else
      order.push_back(static_cast<uint32_t>(i));
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const MemoryRecord& x = records[a];
    const MemoryRecord& y = records[b];
    return std::tie(x.timestamp, x.operation, a) < std::tie(y.timestamp, y.operation, b);
  });

  struct Current {
    uint64_t all = 0;
    std::array<uint64_t, 8> byKind{};
  };
  std::map<uint32_t, Current> current;                 // by device
  std::unordered_map<uint64_t, uint32_t> allocated;    // address -> allocation record
  auto release = [&](const MemoryRecord& alloc, uint64_t ts) {
    DeviceMemoryUsage& d = deviceUsage(usage.devices, alloc.deviceId);
    Current& c = current[alloc.deviceId];
    const size_t kind = alloc.memoryKind & 7u;
    ++d.all.frees;
    ++d.byKind[kind].frees;
    c.all -= alloc.bytes;
    c.byKind[kind] -= alloc.bytes;
    d.points.push_back({ts, c.all});
  };
  for (const uint32_t i : order) {
    const MemoryRecord& r = records[i];
    if (r.operation == static_cast<uint8_t>(MemoryOp::Allocation)) {
      const auto [it, added] = allocated.try_emplace(r.address, i);
      if (!added) {
        // The free of what was here was lost: it is gone by now.
        ++usage.reusedAddresses;
        release(records[it->second], r.timestamp);
        it->second = i;
      }
      DeviceMemoryUsage& d = deviceUsage(usage.devices, r.deviceId);
      Current& c = current[r.deviceId];
      const size_t kind = r.memoryKind & 7u;
      noteAllocation(d.all, c.all, r.bytes, r.timestamp);
      noteAllocation(d.byKind[kind], c.byKind[kind], r.bytes, r.timestamp);
      d.points.push_back({r.timestamp, c.all});
    } else {
      const auto it = allocated.find(r.address);
      if (it == allocated.end()) {
        ++usage.unmatchedFrees;
        continue;
      }
      release(records[it->second], r.timestamp);
      allocated.erase(it);
    }
  }

  for (const auto& [address, i] : allocated) {
    const MemoryRecord& r = records[i];
    DeviceMemoryUsage& d = deviceUsage(usage.devices, r.deviceId);
    ++d.all.liveCount;
    d.all.liveBytes += r.bytes;
    ++d.byKind[r.memoryKind & 7u].liveCount;
    d.byKind[r.memoryKind & 7u].liveBytes += r.bytes;
    usage.live.push_back(i);
  }
  std::sort(usage.live.begin(), usage.live.end(), [&](uint32_t a, uint32_t b) {
    const MemoryRecord& x = records[a];
    const MemoryRecord& y = records[b];
    return std::make_tuple(y.bytes, x.timestamp, a) < std::make_tuple(x.bytes, y.timestamp, b);
  });
  std::sort(usage.devices.begin(), usage.devices.end(),
            [](const DeviceMemoryUsage& a, const DeviceMemoryUsage& b) { return a.device < b.device; });
  return usage;
}

// ---- Unified memory -------------------------------------------------------------

std::string uvmTrackName(uint8_t kind) {
  switch (static_cast<UvmKind>(kind)) {
    case UvmKind::BytesHtoD: return "Unified memory HtoD";
    case UvmKind::BytesDtoH: return "Unified memory DtoH";
    case UvmKind::BytesDtoD: return "Unified memory DtoD";
    case UvmKind::GpuPageFault: return "GPU page faults";
    case UvmKind::CpuPageFault: return "CPU page faults";
    default: return std::string("Unified memory ") + uvmKindName(kind);
  }
}

std::string uvmCounterName(uint8_t kind) { return uvmTrackName(kind) + " " + uvmCounterKey(kind); }

UvmTimeline uvmTimeline(const Trace& trace) {
  UvmTimeline timeline;
  const auto& records = trace.store.records<UvmRecord>();
  // Drawn records of each (device, kind), by start, longer first.
  std::map<std::pair<uint32_t, uint8_t>, std::vector<uint32_t>> groups;
  for (size_t i = 0; i < records.size(); ++i) {
    const UvmRecord& r = records[i];
    if (!drawable(r.start, r.end)) {
      ++timeline.undrawn;
      continue;
    }
    groups[{r.deviceId, r.kind}].push_back(static_cast<uint32_t>(i));
  }
  for (auto& [key, indices] : groups) {
    std::sort(indices.begin(), indices.end(), [&](uint32_t a, uint32_t b) {
      const UvmRecord& x = records[a];
      const UvmRecord& y = records[b];
      return std::make_tuple(x.start, y.end, a) < std::make_tuple(y.start, x.end, b);
    });
    // Lanes: each slice goes to the lane that freed up first, when free by
    // its start (interval partitioning: the fewest lanes). Instants need
    // no lane of their own: they stay on the first.
    std::vector<UvmTrack> lanes;
    using LaneEnd = std::pair<uint64_t, uint32_t>;
    std::priority_queue<LaneEnd, std::vector<LaneEnd>, std::greater<LaneEnd>> free;
    uint32_t laneCount = 0;
    for (const uint32_t i : indices) {
      const UvmRecord& r = records[i];
      uint32_t lane = 0;
      if (r.end != r.start) {
        if (!free.empty() && free.top().first <= r.start) {
          lane = free.top().second;
          free.pop();
        } else {
          lane = laneCount++;
        }
        free.push({r.end, lane});
      }
      auto it = std::find_if(lanes.begin(), lanes.end(), [&](const UvmTrack& t) { return t.lane == lane; });
      if (it == lanes.end()) {
        lanes.push_back(UvmTrack{key.first, key.second, lane, {}});
        it = lanes.end() - 1;
      }
      it->records.push_back(i);
    }
    std::sort(lanes.begin(), lanes.end(), [](const UvmTrack& a, const UvmTrack& b) { return a.lane < b.lane; });
    for (auto& t : lanes) timeline.tracks.push_back(std::move(t));

    if (!hasCounter(key.second)) continue;
    UvmCounter counter{key.first, key.second, {}};
    // A transfer counts once it is done; a fault when it happens.
    std::vector<CounterPoint> steps;
    for (const uint32_t i : indices) {
      const UvmRecord& r = records[i];
      const uint64_t amount = static_cast<UvmKind>(r.kind) == UvmKind::CpuPageFault ? 1 : r.value;
      steps.push_back({isUvmTransfer(r.kind) ? r.end : r.start, amount});
    }
    std::stable_sort(steps.begin(), steps.end(),
                     [](const CounterPoint& a, const CounterPoint& b) { return a.ts < b.ts; });
    uint64_t total = 0;
    for (const CounterPoint& s : steps) {
      total += s.value;
      counter.points.push_back({s.ts, total});
    }
    timeline.counters.push_back(std::move(counter));
  }
  return timeline;
}

}  // namespace cuptitrace
