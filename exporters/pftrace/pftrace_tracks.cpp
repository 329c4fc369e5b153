#include "exporters/pftrace/pftrace_tracks.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <tuple>

namespace cuptitrace::pftrace {

TrackRegistry::TrackRegistry(const Trace& trace, const ChunkedVector<NvtxRecord>& nvtx,
                             uint64_t hostProcessUuid)
    : trace_(trace), nvtx_(nvtx), hostProcessUuid_(hostProcessUuid) {
  for (const ContextInfo& c : trace.contexts) contextDevice_[c.contextId] = c.deviceId;
}

// NVTX start/end ranges need not nest, so each goes on a track of its own
// name with no range open over it: ranges of one name are given the
// fewest such lanes (interval partitioning: the lane that freed up first,
// if free by the range's start). Lanes of one name are same-named sibling
// tracks, which Perfetto shows as one track.
void TrackRegistry::assignNvtxLanes() {
  nvtxTrack_.assign(nvtx_.size(), 0);
  std::vector<uint32_t> ranges;
  for (size_t i = 0; i < nvtx_.size(); ++i) {
    const NvtxRecord& r = nvtx_[i];
    if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && drawable(r.start, r.end))
      ranges.push_back(static_cast<uint32_t>(i));
  }
  std::sort(ranges.begin(), ranges.end(), [&](uint32_t a, uint32_t b) {
    const NvtxRecord& x = nvtx_[a];
    const NvtxRecord& y = nvtx_[b];
    return std::tie(x.message, x.start, y.end, a) < std::tie(y.message, y.start, x.end, b);
  });
  // (end, lane) of each lane of the current name, the earliest end on top.
  using LaneEnd = std::pair<uint64_t, uint32_t>;
  std::priority_queue<LaneEnd, std::vector<LaneEnd>, std::greater<LaneEnd>> lanes;
  StringId name = kNoString;
  uint32_t laneCount = 0;
  for (size_t k = 0; k < ranges.size(); ++k) {
    const NvtxRecord& r = nvtx_[ranges[k]];
    if (k == 0 || r.message != name) {
      name = r.message;
      lanes = decltype(lanes)();
      laneCount = 0;
    }
    uint32_t lane;
    if (!lanes.empty() && lanes.top().first <= r.start) {
      lane = lanes.top().second;
      lanes.pop();
    } else {
      lane = laneCount++;
    }
    lanes.push({r.end, lane});
    nvtxTrack_[ranges[k]] = track(TrackKind::NvtxRange, r.message, 0, lane);
  }
}

template <typename F>
void TrackRegistry::forEachInstant(F&& f) {
  for (size_t i = 0; i < nvtx_.size(); ++i) {
    const NvtxRecord& r = nvtx_[i];
    if (!drawable(r.start, r.end)) continue;
    const Instant instant{r.start, static_cast<uint32_t>(i)};
    if (r.type == static_cast<uint8_t>(NvtxType::Mark)) {
      f(hostThreadTrack(r.threadId), instant);
    } else if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && r.end == r.start) {
      f(nvtxTrack_[i], instant);
    }
  }
}

// Groups the instants by track in two passes (count, then place) and orders
// the tracks: host process first (threads by tid, then overhead, then NVTX
// ranges), then each GPU (streams, then syncs). Their uuids follow that order.
void TrackRegistry::finish() {
  forEachInstant([&](uint32_t t, const Instant&) { ++tracks_[t].instantCount; });
  // Threads that only made marks or start/end ranges still get a named track.
  nvtx_.forEach([&](const NvtxRecord& r) {
    if (r.type == static_cast<uint8_t>(NvtxType::PushPop) || !drawable(r.start, r.end)) return;
    hostThreadTrack(r.threadId);
    if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && r.endThreadId != 0)
      hostThreadTrack(r.endThreadId);
  });
  sortTracks();

  size_t instants = 0;
  for (Track& t : tracks_) {
    t.firstInstant = instants;
    instants += t.instantCount;
    t.instantCount = 0;
  }
  instants_.resize(instants);
  forEachInstant([&](uint32_t t, const Instant& i) {
    Track& track = tracks_[t];
    instants_[track.firstInstant + track.instantCount++] = i;
  });
  for (const Track& t : tracks_)
    std::stable_sort(
        instants_.begin() + static_cast<std::ptrdiff_t>(t.firstInstant),
        instants_.begin() + static_cast<std::ptrdiff_t>(t.firstInstant + t.instantCount),
        [](const Instant& a, const Instant& b) { return a.ts < b.ts; });

  // Uuids: the host process, its tracks, then each GPU process and its tracks.
  uint64_t uuid = hostProcessUuid_;
  uint32_t gpu = UINT32_MAX;
  for (Track& t : tracks_) {
    if (isGpu(t) && t.device != gpu) {
      gpu = t.device;
      gpuProcesses_.push_back({gpu, ++uuid});
    }
    t.uuid = ++uuid;
  }
  nextUuid_ = uuid + 1;
}

void TrackRegistry::sortTracks() {
  std::vector<uint32_t> order(tracks_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Track& x = tracks_[a];
    const Track& y = tracks_[b];
    return std::make_tuple(isGpu(x), x.device, x.kind, x.id, x.lane) <
           std::make_tuple(isGpu(y), y.device, y.kind, y.id, y.lane);
  });
  std::vector<Track> sorted;
  sorted.reserve(tracks_.size());
  std::vector<uint32_t> newIndex(tracks_.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    newIndex[order[i]] = i;
    sorted.push_back(tracks_[order[i]]);
  }
  tracks_ = std::move(sorted);
  // Only the records of drawn start/end ranges have a track (the rest stay 0,
  // which is not one when nothing is drawn).
  for (uint32_t& t : nvtxTrack_)
    if (t < newIndex.size()) t = newIndex[t];
  for (auto& [key, index] : index_) index = newIndex[index];
  for (CacheEntry& e : cache_)
    if (e.valid) e.index = newIndex[e.index];
}

}  // namespace cuptitrace::pftrace
