// The tracks of one trace in the .pftrace writer: which there are (host
// threads, CUPTI overhead, NVTX start/end range lanes, GPU streams and
// synchronizations), their order and their uuids, the lane tracks of the
// slices that overlap on one track, and each track's instants.
//
// Lanes. Slices that overlap on one track (a graph's branches on a stream)
// go on lanes (TrackLayout): each lane past the first is a track of its own,
// a child of its track named after it ("Stream 7 ·2"), described before
// the window that opens it (lanes are found as the windows are laid out, for
// writing), its uuid fixed by its track and its number (kMaxLanes - 1 per
// track, after every track's uuid); its events go on its track's pieces and
// name the lane's track (track_uuid), so a piece's begins and ends stay in
// one time order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/trace.h"
#include "timeline/timeline_slices.h"
#include "timeline/track_layout.h"

namespace cuptitrace::pftrace {

enum class TrackKind : uint8_t { HostThread, Overhead, NvtxRange, Stream, Sync };

struct Track {
  TrackKind kind;
  uint32_t id;           // tid, stream id, context id; for NvtxRange the range name's StringId
  uint32_t device;       // of a GPU track (Stream, Sync)
  uint32_t lane;         // of an NvtxRange track
  uint32_t context = 0;  // of a Stream track: its name may show it
  uint64_t uuid = 0;
  size_t firstInstant = 0;  // its instants: instants()[firstInstant, firstInstant + instantCount)
  size_t instantCount = 0;
};

// An instant on a track: an NVTX mark, or a start/end range that ended where it began.
struct Instant {
  uint64_t ts;
  uint32_t nvtx;  // index of the NVTX record
};

class TrackRegistry {
 public:
  TrackRegistry(const Trace& trace, const ChunkedVector<NvtxRecord>& nvtx,
                uint64_t hostProcessUuid);

  // ---- Planning, in this order --------------------------------------------------
  // The lane tracks of NVTX start/end ranges.
  void assignNvtxLanes();
  // Then every slice's track is named (TrackMap, a first pass over them);
  // then the instants' tracks, the order of the tracks and their uuids.
  void finish();

  // ---- The track of a slice, made on first sight ----------------------------------
  // The key of a track in the index.
  static uint64_t keyOf(TrackKind kind, uint32_t id, uint32_t device, uint32_t lane = 0) {
    // Only NVTX range tracks have lanes, and they are not on a device.
    return uint64_t{static_cast<uint8_t>(kind)} << 56 | uint64_t{(device | lane) & 0xFFFFFFu} << 32 | id;
  }
  uint32_t track(TrackKind kind, uint32_t id, uint32_t device, uint32_t lane = 0) {
    const uint64_t key = keyOf(kind, id, device, lane);
    // Records mostly cycle through a few tracks: a small direct-mapped cache
    // in front of the map saves most lookups.
    CacheEntry& cached = cache_[(key * 0x9E3779B97F4A7C15ull) >> 58];
    if (cached.valid && cached.key == key) return cached.index;
    const auto [it, added] = index_.try_emplace(key, static_cast<uint32_t>(tracks_.size()));
    if (added) tracks_.push_back(Track{kind, id, device, lane});
    cached = {key, it->second, true};
    return it->second;
  }
  // Perfetto reads tid 0 as "the process's main thread"; so does the JSON exporter.
  uint32_t hostThreadTrack(uint32_t tid) { return track(TrackKind::HostThread, hostThreadId(tid), 0); }
  uint32_t hostThreadId(uint32_t tid) const { return tid == 0 ? trace_.meta.pid : tid; }
  uint32_t streamTrack(uint32_t device, uint32_t stream, uint32_t context) {
    const uint32_t t = track(TrackKind::Stream, stream, device);
    if (tracks_[t].context == 0) tracks_[t].context = context;
    return t;
  }
  uint32_t syncTrack(uint32_t context) { return track(TrackKind::Sync, context, contextDevice(context)); }
  uint32_t contextDevice(uint32_t context) const {
    const auto it = contextDevice_.find(context);
    return it == contextDevice_.end() ? 0 : it->second;
  }
  // The track of `key` (keyOf), found in planning; kNoTrack when there is none.
  uint32_t find(uint64_t key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? TimelineSlices::kNoTrack : it->second;
  }
  uint32_t overheadTrack() { return track(TrackKind::Overhead, kOverheadTid, 0); }
  // The lane track of the NVTX start/end range at `index`.
  uint32_t nvtxRangeTrack(size_t index) const { return nvtxTrack_[index]; }

  // ---- The tracks found -------------------------------------------------------------
  size_t size() const { return tracks_.size(); }
  const Track& operator[](size_t t) const { return tracks_[t]; }
  const std::vector<Track>& tracks() const { return tracks_; }
  const std::vector<Instant>& instants() const { return instants_; }
  static bool isGpu(const Track& t) {
    return t.kind == TrackKind::Stream || t.kind == TrackKind::Sync;
  }
  static OverlapPolicy policyOf(const Track& t) {
    // Work on a stream never nests: any overlap there is concurrent work.
    return t.kind == TrackKind::Stream ? OverlapPolicy::OneAtATime : OverlapPolicy::Nest;
  }
  // The uuid of lane `lane` (> 0) of track `t`, 0 while it has none
  // (setLaneUuid). Lanes are opened in order: lane k after lanes 1 to k - 1.
  uint64_t laneUuid(size_t t, uint32_t lane) const {
    if (lane == 0 || t >= laneUuids_.size() || lane > laneUuids_[t].size()) return 0;
    return laneUuids_[t][lane - 1];
  }
  void setLaneUuid(size_t t, uint32_t lane, uint64_t uuid) {
    if (t >= laneUuids_.size()) laneUuids_.resize(t + 1);
    if (lane > laneUuids_[t].size()) laneUuids_[t].resize(lane, 0);
    laneUuids_[t][lane - 1] = uuid;
    ++laneTracks_;
  }
  uint64_t hostProcessUuid() const { return hostProcessUuid_; }
  uint64_t gpuProcessUuid(uint32_t device) const {
    for (const auto& [d, uuid] : gpuProcesses_)
      if (d == device) return uuid;
    return 0;
  }
  // (device, uuid) of each GPU's process, in uuid order.
  const std::vector<std::pair<uint32_t, uint64_t>>& gpuProcesses() const { return gpuProcesses_; }
  uint64_t endUuid() const { return nextUuid_; }       // past every track's uuid
  uint64_t laneTracks() const { return laneTracks_; }  // lanes past each track's first

 private:
  struct CacheEntry {
    uint64_t key;
    uint32_t index;
    bool valid;
  };

  // Calls f(track, instant) for every NVTX mark and empty start/end range.
  template <typename F>
  void forEachInstant(F&& f);
  void sortTracks();

  const Trace& trace_;
  const ChunkedVector<NvtxRecord>& nvtx_;
  const uint64_t hostProcessUuid_;
  std::vector<Track> tracks_;
  std::unordered_map<uint64_t, uint32_t> index_;  // (kind, id, device|lane) -> tracks_ index
  CacheEntry cache_[64] = {};
  std::vector<std::pair<uint32_t, uint64_t>> gpuProcesses_;  // (device, uuid), in uuid order
  std::unordered_map<uint32_t, uint32_t> contextDevice_;
  std::vector<uint32_t> nvtxTrack_;  // by NVTX record: the lane track of a start/end range
  std::vector<Instant> instants_;    // of the whole trace, by track
  std::vector<std::vector<uint64_t>> laneUuids_;  // by track: its lanes' uuids, from lane 1
  uint64_t nextUuid_ = 0;
  uint64_t laneTracks_ = 0;
};

// The tracks of the slices, once planning found them all, for the thread
// that lays the next window out while the events of one are written
// (WindowLayout::layOutAhead): the registry's index read, nothing changed,
// with a cache of its own.
class TrackFinder {
 public:
  explicit TrackFinder(const TrackRegistry& r) : r_(r) {}
  uint32_t host(uint32_t tid) { return find(TrackKind::HostThread, r_.hostThreadId(tid), 0); }
  uint32_t stream(uint32_t device, uint32_t stream, uint32_t) { return find(TrackKind::Stream, stream, device); }
  uint32_t sync(uint32_t context) { return find(TrackKind::Sync, context, r_.contextDevice(context)); }
  uint32_t overhead() { return find(TrackKind::Overhead, kOverheadTid, 0); }
  uint32_t nvtxRange(size_t index, const NvtxRecord&) const { return r_.nvtxRangeTrack(index); }

 private:
  struct Entry {
    uint64_t key;
    uint32_t index;
    bool valid;
  };
  uint32_t find(TrackKind kind, uint32_t id, uint32_t device) {
    const uint64_t key = TrackRegistry::keyOf(kind, id, device);
    Entry& cached = cache_[(key * 0x9E3779B97F4A7C15ull) >> 58];
    if (cached.valid && cached.key == key) return cached.index;
    cached = {key, r_.find(key), true};
    return cached.index;
  }
  const TrackRegistry& r_;
  Entry cache_[64] = {};
};

// The tracks of the slices (timeline_slices.h), named by the registry.
struct TrackMap {
  TrackRegistry& r;
  uint32_t host(uint32_t tid) { return r.hostThreadTrack(tid); }
  uint32_t stream(uint32_t device, uint32_t stream, uint32_t context) {
    return r.streamTrack(device, stream, context);
  }
  uint32_t sync(uint32_t context) { return r.syncTrack(context); }
  uint32_t overhead() { return r.overheadTrack(); }
  uint32_t nvtxRange(size_t index, const NvtxRecord&) { return r.nvtxRangeTrack(index); }
};

}  // namespace cuptitrace::pftrace
