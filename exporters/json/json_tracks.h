// The tracks of a Chrome JSON timeline: which (pid, tid) each slice goes on,
// found as the slices are read (timeline_slices.h: this is its `Tracks`),
// with the lanes that the window layout (window_layout.h) gave each.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/trace.h"
#include "timeline/timeline_slices.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

enum class JsonTrackKind : uint8_t { HostThread, Overhead, Stream, Sync };

struct JsonTrack {
  JsonTrack(JsonTrackKind k, uint32_t p, uint32_t t, uint32_t d, uint32_t c)
      : kind(k),
        pid(p),
        tid(t),
        device(d),
        context(c),
        prefix(prefixOf(p, t)) {}
  static std::string prefixOf(uint32_t pid, uint32_t tid) {
    return "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  }
  // Makes the "pid":P,"tid":T of lanes up to `lane` (track_layout.h).
  void addLanes(uint8_t lane) {
    while (lanePrefixes.size() < lane) {
      const auto next = static_cast<uint32_t>(lanePrefixes.size() + 1);
      lanePrefixes.push_back(prefixOf(pid, laneTid(tid, next)));
    }
  }
  const std::string& prefixOfLane(uint8_t lane) const {
    return lane == 0 ? prefix : lanePrefixes[lane - 1];
  }
  // How its slices are put on lanes (track_layout.h).
  OverlapPolicy policy() const {
    // Work on a stream never nests: any overlap there is concurrent work.
    return kind == JsonTrackKind::Stream ? OverlapPolicy::OneAtATime : OverlapPolicy::Nest;
  }
  JsonTrackKind kind;
  uint32_t pid;
  uint32_t tid;
  uint32_t device;                        // of a GPU track (Stream, Sync)
  uint32_t context;                       // of a Sync or Stream track
  std::string prefix;                     // "pid":P,"tid":T as written in each of its events
  std::vector<std::string> lanePrefixes;  // the same for its lanes past the first
  uint32_t lanes = 1;                     // of its slices, itself included: known once
                                          // every window is laid out
};

class JsonTracks {
 public:
  explicit JsonTracks(const TimelineInput& in)
      : in_(in), trace_(*in.trace), hostPid_(in.hostPid()) {
    for (const ContextInfo& c : trace_.contexts) contextDevice_[c.contextId] = c.deviceId;
  }

  // The tracks of the slices (timeline_slices.h). NVTX start/end ranges are
  // async events of the process here, not slices.
  uint32_t host(uint32_t tid) { return hostThread(tid); }
  uint32_t stream(uint32_t device, uint32_t stream, uint32_t context) {
    const uint32_t t = track(JsonTrackKind::Stream, gpuPid(device), stream, device, context);
    if (tracks_[t].context == 0) tracks_[t].context = context;  // its name may show it
    return t;
  }
  uint32_t sync(uint32_t context) {
    const uint32_t device = contextDevice(context);
    return track(JsonTrackKind::Sync, gpuPid(device), syncTrackTid(context), device, context);
  }
  uint32_t contextDevice(uint32_t context) const {
    const auto it = contextDevice_.find(context);
    return it == contextDevice_.end() ? 0 : it->second;
  }
  // The track of (pid, tid), found in planning; kNoTrack when there is none.
  uint32_t find(uint32_t pid, uint32_t tid) const {
    const auto it = index_.find(uint64_t{pid} << 32 | tid);
    return it == index_.end() ? TimelineSlices::kNoTrack : it->second;
  }
  uint32_t overhead() { return track(JsonTrackKind::Overhead, hostPid_, kOverheadTid, 0, 0); }
  uint32_t nvtxRange(size_t, const NvtxRecord&) { return TimelineSlices::kNoTrack; }

  // Perfetto reads tid 0 as "the process's main thread"; do the same here,
  // or its slices would be laid out apart from the main thread's.
  uint32_t hostThread(uint32_t tid) {
    return track(JsonTrackKind::HostThread, hostPid_, hostTid(tid), 0, 0);
  }
  // A thread id as written: the main thread's for 0, moved with the pid.
  uint32_t hostTid(uint32_t tid) const { return (tid == 0 ? trace_.meta.pid : tid) + in_.idOffset; }
  uint32_t hostPid() const { return hostPid_; }
  uint32_t gpuPid(uint32_t device) const { return gpuProcessId(in_.gpuKey, device); }

  std::vector<JsonTrack>& all() { return tracks_; }
  const std::vector<JsonTrack>& all() const { return tracks_; }
  JsonTrack& operator[](uint32_t t) { return tracks_[t]; }

 private:
  uint32_t track(JsonTrackKind kind, uint32_t pid, uint32_t tid, uint32_t device,
                 uint32_t context) {
    const uint64_t key = uint64_t{pid} << 32 | tid;
    if (haveLast_ && key == lastKey_) return last_;
    const auto [it, added] = index_.try_emplace(key, static_cast<uint32_t>(tracks_.size()));
    if (added) tracks_.emplace_back(kind, pid, tid, device, context);
    haveLast_ = true;
    lastKey_ = key;
    last_ = it->second;
    return last_;
  }

  const TimelineInput& in_;
  const Trace& trace_;
  const uint32_t hostPid_;
  std::vector<JsonTrack> tracks_;
  std::unordered_map<uint64_t, uint32_t> index_;  // (pid << 32 | tid) -> tracks_ index
  bool haveLast_ = false;                         // consecutive records mostly share a track
  uint64_t lastKey_ = 0;
  uint32_t last_ = 0;
  std::unordered_map<uint32_t, uint32_t> contextDevice_;
};

// The tracks of the slices, once planning found them all, for the thread
// that lays the next window out while one is written
// (WindowLayout::layOutAhead): the index read, nothing changed.
class JsonTrackFinder {
 public:
  explicit JsonTrackFinder(const JsonTracks& t) : t_(t) {}
  uint32_t host(uint32_t tid) { return find(t_.hostPid(), t_.hostTid(tid)); }
  uint32_t stream(uint32_t device, uint32_t stream, uint32_t) { return find(t_.gpuPid(device), stream); }
  uint32_t sync(uint32_t context) { return find(t_.gpuPid(t_.contextDevice(context)), syncTrackTid(context)); }
  uint32_t overhead() { return find(t_.hostPid(), kOverheadTid); }
  uint32_t nvtxRange(size_t, const NvtxRecord&) const { return TimelineSlices::kNoTrack; }

 private:
  // Consecutive records mostly share a track.
  uint32_t find(uint32_t pid, uint32_t tid) {
    const uint64_t key = uint64_t{pid} << 32 | tid;
    if (haveLast_ && key == lastKey_) return last_;
    haveLast_ = true;
    lastKey_ = key;
    last_ = t_.find(pid, tid);
    return last_;
  }
  const JsonTracks& t_;
  bool haveLast_ = false;
  uint64_t lastKey_ = 0;
  uint32_t last_ = 0;
};

}  // namespace cuptitrace
