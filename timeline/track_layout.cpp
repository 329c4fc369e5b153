#include "timeline/track_layout.h"

#include <algorithm>
#include <queue>
#include <set>
#include <vector>

#include "core/rank_info.h"

namespace cuptitrace {
uint32_t layoutTrack(Slice* begin, Slice* end, OverlapPolicy policy) {
  TrackLayout layout(policy);
  layout.run(begin, end);
  return layout.lanes();
}

std::string laneName(const std::string& name, uint32_t lane) {
  // "·" (U+00B7): the lane reads as part of the track's name, not as another stream.
  return lane == 0 ? name : name + " \u00b7" + std::to_string(lane + 1);
}

// ---- Names -------------------------------------------------------------------

TimelineInput timelineInput(const Trace& trace) {
  TimelineInput in;
  in.trace = &trace;
  in.gpuKey = trace.meta.pid;
  return in;
}

namespace {

// "[rank 3] " before a process's name when a launcher gave it a rank: first,
// because Perfetto cuts long names at their end.
std::string rankPrefix(const Trace& trace) {
  return trace.meta.rank >= 0 ? "[" + rankLabel(trace.meta.rank) + "] " : std::string();
}

}  // namespace

std::string hostProcessName(const Trace& trace) {
  const std::string& program = trace.meta.processName;
  return rankPrefix(trace) + (program.empty() ? "Process " + std::to_string(trace.meta.pid) : program);
}

namespace {

// A device's name (NVTX's, else CUPTI's) and its details, apart.
struct DeviceText {
  std::string name;
  std::string details;  // "CC 9.0, 132 SMs, 79.2 GiB, 1980 MHz", what is known of it
};

DeviceText describeDevice(const Trace& trace, uint32_t device) {
  DeviceText text;
  const auto named = trace.deviceNames.find(device);
  const DeviceInfo* info = trace.findDevice(device);
  if (named != trace.deviceNames.end()) {
    text.name = named->second;
  } else if (info != nullptr) {
    text.name = info->name;
  }
  if (info == nullptr) return text;
  // What tells two GPUs apart at a glance: compute capability, SMs, memory, clock.
  auto add = [&](const std::string& part) { text.details += (text.details.empty() ? "" : ", ") + part; };
  if (info->computeMajor != 0)
    add("CC " + std::to_string(info->computeMajor) + "." + std::to_string(info->computeMinor));
  if (info->multiprocessors != 0) add(std::to_string(info->multiprocessors) + " SMs");
  if (info->globalMemoryBytes != 0) {
    // Tenths of a GiB, rounded.
    const uint64_t tenths = (info->globalMemoryBytes * 10 + (uint64_t{1} << 29)) >> 30;
    add(std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " GiB");
  }
  if (info->coreClockKHz != 0) add(std::to_string((info->coreClockKHz + 500) / 1000) + " MHz");
  return text;
}

}  // namespace

std::string gpuDescription(const Trace& trace, uint32_t device) {
  const DeviceText text = describeDevice(trace, device);
  if (text.details.empty()) return text.name;
  return text.name.empty() ? "(" + text.details + ")" : text.name + " (" + text.details + ")";
}

std::string gpuProcessName(const Trace& trace, uint32_t device) {
  const DeviceText text = describeDevice(trace, device);
  std::string name = rankPrefix(trace) + "GPU " + std::to_string(device);
  if (!text.name.empty()) name += ": " + text.name;
  if (!text.details.empty()) name += " (" + text.details + ")";
  return name;
}

std::string hostThreadName(const Trace& trace, uint32_t tid) {
  const auto it = trace.threadNames.find(tid);
  if (it != trace.threadNames.end()) return it->second;
  return tid == trace.meta.pid ? "Main thread" : "Thread " + std::to_string(tid);
}

std::string contextLabel(const Trace& trace, uint32_t context) {
  const auto it = trace.contextNames.find(context);
  return it != trace.contextNames.end() ? it->second : "context " + std::to_string(context);
}

namespace {

bool severalContexts(const Trace& trace) {
  std::set<uint32_t> ids;
  for (const ContextInfo& c : trace.contexts) ids.insert(c.contextId);
  for (const auto& named : trace.contextNames) ids.insert(named.first);
  return ids.size() > 1;
}

}  // namespace

std::string streamTrackName(const Trace& trace, uint32_t stream, uint32_t context) {
  const auto it = trace.streamNames.find(stream);
  std::string name = it != trace.streamNames.end() ? it->second : "Stream " + std::to_string(stream);
  if (context != 0 && severalContexts(trace)) name += " (" + contextLabel(trace, context) + ")";
  return name;
}

std::string syncTrackName(const Trace& trace, uint32_t context) {
  return "Synchronization (" + contextLabel(trace, context) + ")";
}

TimelineBase scanTimeline(const Trace& trace) {
  TimelineBase result;
  uint64_t earliest = UINT64_MAX;
  forEachKind(trace.store, [&](const auto& records) {
    using T = typename std::decay_t<decltype(records)>::value_type;
    if constexpr (kIsTimed<T>) {
      records.scan([&](const T& r) {
        if (!drawable(recordStart(r), recordEnd(r))) {
          ++result.incomplete;
        } else if (recordStart(r) < earliest) {
          earliest = recordStart(r);
        }
      });
    }
  });
  result.base = trace.meta.baseTimestampNs;
  if (earliest != UINT64_MAX && (result.base == 0 || earliest < result.base)) result.base = earliest;
  return result;
}

}  // namespace cuptitrace
