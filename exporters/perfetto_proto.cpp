// Perfetto protobuf (.pftrace): the timeline of the Chrome JSON exporter
// (chrome_json.cpp), with the same tracks, names, arrows and overlap
// handling (track_layout.h), in the format Perfetto itself writes, and as
// small as that format allows: a launch-bound trace (a kernel, the call that
// launched it, the arrow between them) costs about 27 bytes per TrackEvent
// (53 per slice; bench/export_bench).
//
// Sequences. Every track has a packet sequence (trusted_packet_sequence_id)
// of its own, whose TracePacketDefaults name the track (track_event_defaults.
// track_uuid) and the clock, so no event carries either. Each trace also has
// a main sequence, defaulting to its host process track, for the track
// descriptors and the trace's description. The first packet of a sequence
// clears its incremental state (flags 1|2) and holds the ClockSnapshot that
// defines its clock; later packets carry no flags: SEQ_NEEDS_INCREMENTAL_STATE
// only tells a reader to skip the packet when the sequence's state was lost
// (a wrapped ring buffer), which a file written whole never has.
//
// Clock. CUPTI gives CPU and GPU records in one clock, nanoseconds, roughly
// CLOCK_REALTIME on Linux. Timestamps are written in a sequence-scoped clock
// of our own (id 64, one per sequence) that each ClockSnapshot ties to
// REALTIME (and BOOTTIME, see startSequence), also made the trace's clock (primary_trace_clock), by
// the trace's wall-clock offset (TraceMetadata::wallClockOffsetNs). Clock 64 is incremental
// (Clock.is_incremental, as Perfetto's own SDK does): a packet's timestamp is the nanoseconds since
// the previous packet of its sequence, 1-3 bytes where an absolute one takes 9; deltas are
// integers, so every nanosecond is kept. Traces merged into one file each keep their own clock and
// offset, so they line up on wall-clock time with nothing rewritten.
//
// Interning: pftrace_interning.h.
//
// Arguments. A slice carries what a user filters on, minus what its track
// already says: GPU work does not repeat its device, context and stream
// (the GPU process and stream track are theirs), and a synchronization its
// context. Kernels: correlation, grid, block, registers (per thread),
// static_smem, dynamic_smem (shared memory bytes), graph ids, launch_type
// (only when not Regular), device_launched (only when set), and for NCCL's
// kernels nccl_collective, nccl_op, nccl_dtype, nccl_algo, nccl_proto (those
// the name says: core/nccl_kernel.h); the mangled name
// is the CSV's (the slice is named by the demangled one). API calls:
// correlation and return_value (only when not 0: success); the domain is the
// category and the callback id is the call's name. Copies and sets as in
// the JSON, which carries the same arguments. Nested lengths are computed bottom-up: every length
// is minimal.
//
// Arrows: pftrace_flows.h.
//
// Order. Events are written in wall-clock order across all tracks (and all
// traces of a merged file): ends before instants before begins at equal
// times, host tracks before GPU tracks, so a GPU slice's begin comes after
// its call's exactly when the call starts no later than it. Memory counters
// and unified memory (memory_tracks.h) come on a sequence of their own per
// trace, their packets put between the others in that order.
//
// Memory: the slices are laid out one window of start times at a time
// (slice_windows.h), each track's layout carried from one window to the next
// (TrackLayout), and the tracks' events of a window merged in time order; a
// track whose next event lies past its window waits for the next one. So the
// writer holds about a window's slices (24 bytes each), a few bits per
// correlation id (flow_sources.h) and the arrows in flight, however long the
// trace. Records spilled to disk are read whole a few times in planning, and
// once per window that their chunk starts slices in, twice with several
// windows (planning lays every window out once too). NVTX marks and the
// lanes of NVTX start/end ranges are found for the whole trace at once (a
// few bytes per NVTX record: there are few). Traces merged into one file
// share the window size evenly, each with windows of its own on its own
// clock: the end of a trace's window is an entry of the merge, at its
// wall-clock time, that lays out the next one. The file is the same
// whatever the windows.
//
// Lanes. Slices that overlap on one track (a graph's branches on a stream)
// go on lanes (TrackLayout): each lane past the first is a track of its own,
// a child of its track named after it ("Stream 7 ·2"), described with the
// others; its events go on its track's sequence and name the lane's track
// (track_uuid), so a track's begins and ends stay in one time order.
//
// The trace's description comes first (at the clock's reference) but says
// how many slices were clamped, how many lanes were drawn and how many
// arrows were written: planning lays out every window once beforehand to
// count them, and to find the lanes, as writing will.
#include "exporters/perfetto_proto.h"

#include <algorithm>
#include <bitset>
#include <cstring>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/api_set.h"
#include "core/demangle.h"
#include "core/utf8.h"
#include "exporters/external_ids.h"
#include "exporters/openacc_flows.h"
#include "exporters/openacc_nesting.h"
#include "exporters/flow_sources.h"
#include "exporters/memory_tracks.h"
#include "exporters/nccl_names.h"
#include "exporters/record_args.h"
#include "exporters/pftrace_flows.h"
#include "exporters/pftrace_interning.h"
#include "exporters/pftrace_wire.h"
#include "exporters/proto_writer.h"
#include "exporters/slice_windows.h"
#include "exporters/timeline_slices.h"
#include "exporters/track_layout.h"

namespace cuptitrace {
namespace pftrace {

// ---- Text -----------------------------------------------------------------------

// Protobuf strings must be valid UTF-8: validUtf8 (core/utf8.h) replaces
// what is not as the JSON exporter does.


// ---- Tracks ---------------------------------------------------------------------

enum class TrackKind : uint8_t { HostThread, Overhead, NvtxRange, Stream, Sync };

struct Track {
  TrackKind kind;
  uint32_t id;      // tid, stream id, context id; for NvtxRange the range name's StringId
  uint32_t device;  // of a GPU track (Stream, Sync)
  uint32_t lane;    // of an NvtxRange track
  uint32_t context = 0;  // of a Stream track: its name may show it
  uint64_t uuid = 0;
  size_t first = 0;  // the window's slices before layout: slices_[first, first + count)
  size_t count = 0;
  uint32_t lanes = 1;       // lanes of its slices (TrackLayout), itself included
  uint64_t firstLane = 0;   // the uuid of its lane 1; lane k's is firstLane + k - 1
  size_t firstInstant = 0;  // its instants: instants_[firstInstant, firstInstant + instantCount)
  size_t instantCount = 0;
};

// An instant on a track: an NVTX mark, or a start/end range that ended where it began.
struct Instant {
  uint64_t ts;
  uint32_t nvtx;  // index of the NVTX record
};

// Where a track is in writing its events out: its slices of the window
// (laid out), its instants, its open slices.
struct Cursor {
  struct Open {
    uint64_t end;
    uint32_t lane;
  };
  size_t slice = 0, sliceEnd = 0;
  size_t instant = 0, instantEnd = 0;
  // The slices begun and not yet ended, the next to end last: by end
  // descending, and at equal ends the innermost (begun later) last. With one
  // lane they nest, so a new one goes at the back.
  std::vector<Open> open;
  void begin(uint64_t end, uint32_t lane) {
    if (open.empty() || open.back().end >= end) {  // nested in the last: most slices
      Open& o = open.emplace_back();               // in place: see TrackLayout::push
      o.end = end;
      o.lane = lane;
      return;
    }
    size_t at = open.size();
    while (at > 0 && open[at - 1].end < end) --at;
    open.insert(open.begin() + static_cast<std::ptrdiff_t>(at), Open{end, lane});
  }
};

enum Phase : uint8_t {
  kPhaseReload = 0,  // not an event: the end of a trace's window (its "track" is the trace)
  kPhaseEnd,
  kPhaseInstant,
  kPhaseBegin,
  kPhaseNone
};

// The next event of a track, by wall-clock time: at equal times ends come
// first (so a slice ending where the next begins closes before it), then
// instants, then begins; across tracks the lower track index (host tracks
// first, so a launch call begins before the GPU work it launched at the same
// nanosecond). The order is that of one 128-bit key: time, phase, track.
// The end of a trace's window comes before every event at its time.
struct NextEvent {
  unsigned __int128 key;
  uint64_t wall() const { return static_cast<uint64_t>(key >> 64); }
  uint8_t phase() const { return static_cast<uint8_t>(key >> 32); }
  uint32_t track() const { return static_cast<uint32_t>(key); }
  static NextEvent of(uint64_t wall, uint8_t phase, uint32_t track) {
    return {static_cast<unsigned __int128>(wall) << 64 | uint64_t{phase} << 32 | track};
  }
};
struct After {
  bool operator()(const NextEvent& a, const NextEvent& b) const { return a.key > b.key; }
};

// ---- One trace -------------------------------------------------------------------

class SourceWriter {
 public:
  SourceWriter(const TimelineInput& input, Output& out, FlowIds& flowIds, uint64_t firstUuid,
               uint32_t firstSequence, size_t windowSlices)
      : in_(input),
        trace_(*input.trace),
        o_(out),
        b_(out.b),
        flowIds_(flowIds),
        rec_(trace_.store),
        sources_(rec_.api),
        externalIds_(trace_),
        accFlows_(trace_),
        nccl_(trace_),
        hostPid_(input.hostPid()),
        offset_(static_cast<uint64_t>(trace_.meta.wallClockOffsetNs())),
        hostProcessUuid_(firstUuid),
        firstSequence_(firstSequence),
        windowSlices_(windowSlices),
        interner_(trace_.strings),
        timelineSlices_(trace_.store) {
    for (const ContextInfo& c : trace_.contexts) contextDevice_[c.contextId] = c.deviceId;
  }

  // Finds the tracks, plans the windows and counts what the description
  // says; then the ids used are known and the first window is laid out.
  void plan() {
    const TimelineBase scan = scanTimeline(trace_);
    base_ = scan.base;
    incomplete_ = scan.incomplete;
    findTracks();
    countGpuSlices();
    countClampedAndFlows();
    addLaneTracks();
    sequences_.resize(1 + tracks_.size());
    for (size_t i = 0; i < sequences_.size(); ++i) {
      sequences_[i].id = firstSequence_ + static_cast<uint32_t>(i);
      sequences_[i].lastTs = base_;
    }
  }
  uint64_t endUuid() const { return nextUuid_; }
  uint32_t endSequence() const { return firstSequence_ + static_cast<uint32_t>(sequences_.size()); }
  uint64_t clamped() const { return clamped_; }
  uint32_t maxLanes() const { return maxLanes_; }
  uint64_t laneTracks() const { return laneTracks_; }
  uint64_t incomplete() const { return incomplete_; }
  uint64_t flowsWritten() const { return flowsWritten_; }
  uint64_t windows() const { return windows_.size() - 1; }
  // What the memory tracks (memory_tracks.h) hang on: the clock's reference and the process tracks.
  PerfettoMemoryOptions memoryOptions(uint32_t sequenceId) const {
    return {sequenceId, base_, hostProcessUuid_, [this](uint32_t device) { return gpuProcessUuid(device); }};
  }

  // Everything before the events: the main sequence with the descriptors,
  // then the start of every track's sequence.
  void writeHeader() {
    interner_.setSequence(&sequences_[0]);
    startSequence(hostProcessUuid_);
    writeTrackDescriptors();
    for (size_t i = 0; i < tracks_.size(); ++i) {
      interner_.setSequence(&sequences_[1 + i]);
      startSequence(tracks_[i].uuid);
    }
  }

  // Event sources of this trace: 0 is the main sequence (the trace's
  // description, one instant at the clock's reference), 1 + t is track t.
  uint32_t sourceCount() const { return 1 + static_cast<uint32_t>(tracks_.size()); }

  // The next event of source `k` in the window laid out, or false when it
  // has none there (none left, or its next one is in a later window).
  bool next(uint32_t k, uint32_t globalTrack, NextEvent* e) const {
    if (k == 0) {
      *e = NextEvent::of(base_ + offset_, kPhaseInstant, globalTrack);
      return !metadataWritten_;
    }
    const Cursor& c = cursors_[k - 1];
    uint64_t ts = UINT64_MAX;
    uint8_t phase = kPhaseNone;
    if (!c.open.empty()) {
      ts = c.open.back().end;
      phase = kPhaseEnd;
    }
    if (c.instant < c.instantEnd) {
      const uint64_t at = instants_[c.instant].ts;
      if (phase == kPhaseNone || at < ts) {
        ts = at;
        phase = kPhaseInstant;
      }
    }
    if (c.slice < c.sliceEnd) {
      const uint64_t at = slices_[c.slice].start;
      if (phase == kPhaseNone || at < ts) {
        ts = at;
        phase = kPhaseBegin;
      }
    }
    if (phase == kPhaseNone || (ts >= windowEnd() && !lastWindow())) return false;
    *e = NextEvent::of(ts + offset_, phase, globalTrack);
    return true;
  }

  void emit(uint32_t k, uint8_t phase) {
    interner_.setSequence(&sequences_[k]);
    if (k == 0) {
      writeMetadataEvent();
      metadataWritten_ = true;
      return;
    }
    Cursor& c = cursors_[k - 1];
    switch (phase) {
      case kPhaseEnd:
        writeEnd(c.open.back().end, laneUuid(k - 1, c.open.back().lane));
        c.open.pop_back();
        break;
      case kPhaseInstant:
        writeInstant(instants_[c.instant++]);
        break;
      case kPhaseBegin: {
        const Slice& s = slices_[c.slice++];
        eventTrackUuid_ = laneUuid(k - 1, s.lane);
        writeBegin(s);
        eventTrackUuid_ = 0;
        c.begin(s.end, s.lane);
        break;
      }
      default:
        break;
    }
  }

  // Windows: the one laid out ends at windowEnd() (its events are those
  // before it, on the trace's clock); the next is laid out once every event
  // before that end, of every trace, has been written: the merge has an
  // entry for it at windowEndWall().
  bool moreWindows() const { return window_ + 2 < windows_.size(); }
  uint64_t windowEndWall() const { return windowEnd() + offset_; }
  void nextWindow() { layOutWindow(++window_); }

 private:
  // ---- Planning ------------------------------------------------------------------

  uint32_t track(TrackKind kind, uint32_t id, uint32_t device, uint32_t lane = 0) {
    // Only NVTX range tracks have lanes, and they are not on a device.
    const uint64_t key = uint64_t{static_cast<uint8_t>(kind)} << 56 |
                         uint64_t{(device | lane) & 0xFFFFFFu} << 32 | id;
    // Records mostly cycle through a few tracks: a small direct-mapped cache
    // in front of the map saves most lookups.
    TrackCacheEntry& cached = trackCache_[(key * 0x9E3779B97F4A7C15ull) >> 58];
    if (cached.valid && cached.key == key) return cached.index;
    const auto [it, added] = trackIndex_.try_emplace(key, static_cast<uint32_t>(tracks_.size()));
    if (added) tracks_.push_back(Track{kind, id, device, lane});
    cached = {key, it->second, true};
    return it->second;
  }
  // Perfetto reads tid 0 as "the process's main thread"; so does the JSON exporter.
  uint32_t hostThreadTrack(uint32_t tid) {
    return track(TrackKind::HostThread, tid == 0 ? trace_.meta.pid : tid, 0);
  }
  uint32_t streamTrack(uint32_t device, uint32_t stream, uint32_t context) {
    const uint32_t t = track(TrackKind::Stream, stream, device);
    if (tracks_[t].context == 0) tracks_[t].context = context;
    return t;
  }
  uint32_t syncTrack(uint32_t context) {
    const auto it = contextDevice_.find(context);
    const uint32_t device = it == contextDevice_.end() ? 0 : it->second;
    return track(TrackKind::Sync, context, device);
  }
  uint32_t gpuPid(uint32_t device) const { return gpuProcessId(in_.gpuKey, device); }

  // NVTX start/end ranges need not nest, so each goes on a track of its own
  // name with no range open over it: ranges of one name are given the
  // fewest such lanes (interval partitioning: the lane that freed up first,
  // if free by the range's start). Lanes of one name are same-named sibling
  // tracks, which Perfetto shows as one track.
  void assignNvtxLanes() {
    nvtxTrack_.assign(rec_.nvtx.size(), 0);
    std::vector<uint32_t> ranges;
    for (size_t i = 0; i < rec_.nvtx.size(); ++i) {
      const NvtxRecord& r = rec_.nvtx[i];
      if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && drawable(r.start, r.end))
        ranges.push_back(static_cast<uint32_t>(i));
    }
    std::sort(ranges.begin(), ranges.end(), [&](uint32_t a, uint32_t b) {
      const NvtxRecord& x = rec_.nvtx[a];
      const NvtxRecord& y = rec_.nvtx[b];
      return std::tie(x.message, x.start, y.end, a) < std::tie(y.message, y.start, x.end, b);
    });
    // (end, lane) of each lane of the current name, the earliest end on top.
    using LaneEnd = std::pair<uint64_t, uint32_t>;
    std::priority_queue<LaneEnd, std::vector<LaneEnd>, std::greater<LaneEnd>> lanes;
    StringId name = kNoString;
    uint32_t laneCount = 0;
    for (size_t k = 0; k < ranges.size(); ++k) {
      const NvtxRecord& r = rec_.nvtx[ranges[k]];
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

  // The tracks of the slices (timeline_slices.h).
  struct TrackMap {
    SourceWriter& w;
    uint32_t host(uint32_t tid) { return w.hostThreadTrack(tid); }
    uint32_t stream(uint32_t device, uint32_t stream, uint32_t context) {
      return w.streamTrack(device, stream, context);
    }
    uint32_t sync(uint32_t context) { return w.syncTrack(context); }
    uint32_t overhead() { return w.track(TrackKind::Overhead, kOverheadTid, 0); }
    uint32_t nvtxRange(size_t index, const NvtxRecord&) { return w.nvtxTrack_[index]; }
  };
  // Calls f(track, slice) for every record drawn as a slice that starts in [from, to).
  template <typename F>
  void forEachSlice(uint64_t from, uint64_t to, F&& f) {
    TrackMap tracks{*this};
    timelineSlices_.forEach(tracks, from, to, f);
  }

  // Calls f(track, instant) for every NVTX mark and empty start/end range.
  template <typename F>
  void forEachInstant(F&& f) {
    for (size_t i = 0; i < rec_.nvtx.size(); ++i) {
      const NvtxRecord& r = rec_.nvtx[i];
      if (!drawable(r.start, r.end)) continue;
      const Instant instant{r.start, static_cast<uint32_t>(i)};
      if (r.type == static_cast<uint8_t>(NvtxType::Mark)) {
        f(hostThreadTrack(r.threadId), instant);
      } else if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && r.end == r.start) {
        f(nvtxTrack_[i], instant);
      }
    }
  }

  static bool isGpu(const Track& t) { return t.kind == TrackKind::Stream || t.kind == TrackKind::Sync; }
  static OverlapPolicy policyOf(const Track& t) {
    // Work on a stream never nests: any overlap there is concurrent work.
    return t.kind == TrackKind::Stream ? OverlapPolicy::OneAtATime : OverlapPolicy::Nest;
  }
  // The uuid an event of lane `lane` of track `t` names, 0 for the track
  // itself (its sequence's default).
  uint64_t laneUuid(size_t t, uint32_t lane) const {
    return lane == 0 ? 0 : tracks_[t].firstLane + lane - 1;
  }

  // Finds every track with a first pass over the slices, which also plans
  // the windows (slice_windows.h); groups the instants by track in two
  // passes (count, then place) and orders the tracks: host process first
  // (threads by tid, then overhead, then NVTX ranges), then each GPU
  // (streams, then syncs). Their uuids follow that order.
  void findTracks() {
    assignNvtxLanes();
    TrackMap tracks{*this};
    windows_ = timelineSlices_.planWindows(tracks, windowSlices_);
    forEachInstant([&](uint32_t t, const Instant&) { ++tracks_[t].instantCount; });
    // Threads that only made marks or start/end ranges still get a named track.
    rec_.nvtx.forEach([&](const NvtxRecord& r) {
      if (r.type == static_cast<uint8_t>(NvtxType::PushPop) || !drawable(r.start, r.end)) return;
      hostThreadTrack(r.threadId);
      if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && r.endThreadId != 0)
        hostThreadTrack(r.endThreadId);
    });

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
    for (auto& [key, index] : trackIndex_) index = newIndex[index];
    for (TrackCacheEntry& e : trackCache_)
      if (e.valid) e.index = newIndex[e.index];

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

    cursors_.resize(tracks_.size());
    for (size_t i = 0; i < tracks_.size(); ++i) {
      layouts_.emplace_back(policyOf(tracks_[i]));
      cursors_[i].instant = tracks_[i].firstInstant;
      cursors_[i].instantEnd = tracks_[i].firstInstant + tracks_[i].instantCount;
    }
  }

  // Lays out window `w`: the slices starting in it, grouped by track in two
  // passes (count, then place), each track's run of its layout (TrackLayout)
  // written over them in place; each track's cursor on the result.
  void layOutWindow(size_t w) {
    window_ = w;
    const uint64_t from = windows_[w];
    const uint64_t to = windows_[w + 1];
    for (Track& t : tracks_) t.count = 0;
    forEachSlice(from, to, [&](uint32_t t, const Slice&) { ++tracks_[t].count; });
    size_t total = 0;
    for (Track& t : tracks_) {
      t.first = total;
      total += t.count;
      t.count = 0;
    }
    resizeWindow(slices_, total);
    forEachSlice(from, to, [&](uint32_t t, const Slice& s) {
      Track& track = tracks_[t];
      slices_[track.first + track.count++] = s;
    });
    for (size_t i = 0; i < tracks_.size(); ++i) {
      Track& t = tracks_[i];
      Cursor& c = cursors_[i];
      c.slice = c.sliceEnd = t.first;
      if (t.count == 0) continue;
      Slice* first = slices_.data() + t.first;
      size_t emitted = 0;
      layouts_[i].run(first, first + t.count, [&](const Slice& s) { first[emitted++] = s; });
      c.sliceEnd = c.slice + emitted;
    }
  }
  uint64_t windowEnd() const { return windows_[window_ + 1]; }
  bool lastWindow() const { return window_ + 2 == windows_.size(); }

  // The correlation id of a slice that may end an arrow (GPU work on a stream), else 0.
  uint32_t arrowCorrelation(const Slice& s) const {
    switch (s.source) {
      case SliceSource::Kernel:
        return rec_.kernels[s.index].correlationId;
      case SliceSource::Memcpy:
        return rec_.memcpys[s.index].correlationId;
      case SliceSource::Memset:
        return rec_.memsets[s.index].correlationId;
      case SliceSource::Graph:
        return rec_.graphs[s.index].correlationId;
      default:
        return 0;
    }
  }

  // How many GPU slices each correlation id with a launch call has: a bit
  // for one (IdSet), a count of the others for more (graph launches).
  void countGpuSlices() {
    gpuDrawn_ = IdSet(sources_.lo(), sources_.hi(), sources_.calls());
    auto count = [&](const auto& r) {
      if (!drawable(r.start, r.end) || !sources_.hasSource(r.correlationId)) return;
      if (!gpuDrawn_.insert(r.correlationId)) ++moreGpu_[r.correlationId];
    };
    rec_.forEachGpuWork(count);
  }

  // Lays out every window once, as writing will, for what the trace's
  // description says before anything else is written: the slices clamped
  // and the arrows. A GPU slice gets its arrow when its call begins no
  // later than it does (see "Order" at the top of the file): when the call
  // is in an earlier window, or in the same window and starts no later.
  // With several windows the layouts start over for writing; one window
  // laid out stays.
  void countClampedAndFlows() {
    IdSet callsBefore(sources_.lo(), sources_.hi(), sources_.calls());
    // The window's calls with arrows: (correlation id, where in slices_), and
    // where each is by id: a table over the window's ids when they are about
    // as many as their range (CUPTI hands them out in sequence), else the
    // pairs sorted. A window holds far fewer than 2^32 slices (24 bytes each).
    std::vector<std::pair<uint32_t, uint32_t>> calls;
    std::vector<uint32_t> callAt;  // by id minus the window's lowest
    constexpr uint32_t kNoCall = UINT32_MAX;
    for (size_t w = 0; w + 1 < windows_.size(); ++w) {
      layOutWindow(w);
      calls.clear();
      for (size_t i = 0; i < tracks_.size() && !isGpu(tracks_[i]); ++i) {
        for (size_t at = cursors_[i].slice; at < cursors_[i].sliceEnd; ++at) {
          const Slice& s = slices_[at];
          if (s.source != SliceSource::ApiRuntime && s.source != SliceSource::ApiDriver) continue;
          const ApiRecord& r = rec_.api[s.index];
          if (sources_.isSource(s.index, r) && gpuDrawn_.contains(r.correlationId))
            calls.emplace_back(r.correlationId, static_cast<uint32_t>(at));
        }
      }
      uint32_t lo = UINT32_MAX, hi = 0;
      for (const auto& call : calls) {
        lo = std::min(lo, call.first);
        hi = std::max(hi, call.first);
      }
      const bool dense = !calls.empty() && hi - lo <= 4 * uint64_t{calls.size()} + 4096;
      if (dense) {
        callAt.assign(size_t{hi - lo} + 1, kNoCall);
        for (const auto& call : calls) callAt[call.first - lo] = call.second;
      } else if (!std::is_sorted(calls.begin(), calls.end())) {
        std::sort(calls.begin(), calls.end());
      }
      auto callOf = [&](uint32_t correlation) {
        if (dense)
          return correlation >= lo && correlation <= hi ? callAt[correlation - lo] : kNoCall;
        const auto it =
            std::lower_bound(calls.begin(), calls.end(), std::make_pair(correlation, 0u));
        return it != calls.end() && it->first == correlation ? it->second : kNoCall;
      };
      for (size_t i = 0; i < tracks_.size(); ++i) {
        if (tracks_[i].kind != TrackKind::Stream) continue;
        for (size_t at = cursors_[i].slice; at < cursors_[i].sliceEnd; ++at) {
          const uint32_t correlation = arrowCorrelation(slices_[at]);
          if (!sources_.hasSource(correlation)) continue;
          if (callsBefore.contains(correlation)) {
            ++flows_;
            continue;
          }
          const uint32_t call = callOf(correlation);
          if (call != kNoCall && slices_[call].start <= slices_[at].start) ++flows_;
        }
      }
      for (const auto& call : calls) callsBefore.insert(call.first);
    }
    for (size_t i = 0; i < tracks_.size(); ++i) {
      clamped_ += layouts_[i].changed();
      tracks_[i].lanes = layouts_[i].lanes();
      maxLanes_ = std::max(maxLanes_, tracks_[i].lanes);
    }
    if (windows_.size() > 2) {
      for (size_t i = 0; i < tracks_.size(); ++i) layouts_[i] = TrackLayout(policyOf(tracks_[i]));
      layOutWindow(0);
    }
  }

  // Lanes past the first are tracks of their own, children of their track,
  // with uuids after every other track's.
  void addLaneTracks() {
    for (Track& t : tracks_) {
      if (t.lanes < 2) continue;
      t.firstLane = nextUuid_;
      nextUuid_ += t.lanes - 1;
      laneTracks_ += t.lanes - 1;
    }
  }

  // ---- Packets -------------------------------------------------------------------

  // The first packet of the current sequence: it clears the sequence's state and
  // holds the ClockSnapshot defining its clock (see the top of the file),
  // and the defaults: that clock and `trackUuid`.
  void startSequence(uint64_t trackUuid) {
    ProtoWriter& p = scratch_;
    p.clear();
    auto snapshot = p.beginNested(packet_field::kClockSnapshot);
    auto clock = p.beginNested(clock_field::kClocks);
    p.varintField(clock_field::kClockId, kClockTrace);
    p.varintField(clock_field::kTimestamp, base_);
    p.boolField(clock_field::kIsIncremental, true);
    p.endNestedCompact(clock);
    clock = p.beginNested(clock_field::kClocks);
    p.varintField(clock_field::kClockId, kClockRealtime);
    p.varintField(clock_field::kTimestamp, base_ + offset_);  // modulo 2^64: either sign
    p.endNestedCompact(clock);
    // BOOTTIME, Perfetto's default trace clock: without it in the snapshot
    // the importer counts clock_sync_unrelatable_clock_domains on every file
    // (PERFETTO.md). It is given REALTIME's value: the trace's times are
    // REALTIME (primary_trace_clock), so it moves no event.
    clock = p.beginNested(clock_field::kClocks);
    p.varintField(clock_field::kClockId, kClockBoottime);
    p.varintField(clock_field::kTimestamp, base_ + offset_);
    p.endNestedCompact(clock);
    p.varintField(clock_field::kPrimaryTraceClock, kClockRealtime);
    p.endNestedCompact(snapshot);
    p.varintField(packet_field::kSequenceId, interner_.sequence().id);
    p.varintField(packet_field::kSequenceFlags, kIncrementalStateCleared | kNeedsIncrementalState);
    auto defaults = p.beginNested(packet_field::kTracePacketDefaults);
    p.varintField(defaults_field::kTimestampClockId, kClockTrace);
    auto trackDefaults = p.beginNested(defaults_field::kTrackEventDefaults);
    p.varintField(defaults_field::kTrackUuid, trackUuid);
    p.endNestedCompact(trackDefaults);
    p.endNestedCompact(defaults);
    o_.packet(p);
  }

  // A TrackDescriptor packet on the main sequence. Its timestamp (delta 0:
  // the clock's reference) sorts it before every event, as Perfetto
  // recommends for process and thread descriptors.
  template <typename F>
  void descriptorPacket(F&& fill) {
    ProtoWriter& p = scratch_;
    p.clear();
    p.byte(kTagTimestamp);
    p.byte(0);
    p.varintField(packet_field::kSequenceId, interner_.sequence().id);
    auto d = p.beginNested(packet_field::kTrackDescriptor);
    fill(p);
    p.endNestedCompact(d);
    o_.packet(p);
  }

  void writeTrackDescriptors() {
    const TraceMetadata& m = trace_.meta;
    descriptorPacket([&](ProtoWriter& p) {
      p.varintField(track_field::kUuid, hostProcessUuid_);
      auto process = p.beginNested(track_field::kProcess);
      p.varintField(track_field::kProcessPid, hostPid_);
      if (!m.commandLine.empty())
        p.bytesField(track_field::kProcessCmdline, validUtf8(m.commandLine));
      p.bytesField(track_field::kProcessName, validUtf8(hostProcessName(trace_) + in_.nameSuffix));
      p.endNestedCompact(process);
    });
    size_t gpu = 0;
    for (const Track& t : tracks_) {
      if (gpu < gpuProcesses_.size() && gpuProcesses_[gpu].second < t.uuid) {
        // Plain variables: lambdas may not capture structured bindings before C++20.
        const auto device = gpuProcesses_[gpu].first;
        const auto uuid = gpuProcesses_[gpu].second;
        ++gpu;
        descriptorPacket([&](ProtoWriter& p) {
          p.varintField(track_field::kUuid, uuid);
          auto process = p.beginNested(track_field::kProcess);
          p.varintField(track_field::kProcessPid, gpuPid(device));
          p.bytesField(track_field::kProcessName,
                       validUtf8(gpuProcessName(trace_, device) + in_.nameSuffix));
          p.endNestedCompact(process);
          // Streams in the order of their ids, not of their names ("Stream 13" < "Stream 7").
          p.varintField(track_field::kChildOrdering, track_field::kChildOrderingExplicit);
        });
      }
      descriptorPacket([&](ProtoWriter& p) { describe(p, t); });
      describeLanes(t);
    }
  }

  // The track's name as a user sees it.
  std::string trackName(const Track& t) const {
    switch (t.kind) {
      case TrackKind::HostThread:
        return hostThreadName(trace_, t.id);
      case TrackKind::Overhead:
        return kOverheadTrackName;
      case TrackKind::NvtxRange:
        return std::string(trace_.strings.get(t.id));
      case TrackKind::Stream:
        return streamTrackName(trace_, t.id, t.context);
      case TrackKind::Sync:
        return syncTrackName(trace_, t.id);
    }
    return {};
  }

  // Lanes past the first: children of the track, right under it in lane
  // order, named after it ("Stream 7 ·2"), never merged with each other.
  void describeLanes(const Track& t) {
    if (t.lanes < 2) return;
    const std::string name = trackName(t);
    for (uint32_t lane = 1; lane < t.lanes; ++lane) {
      descriptorPacket([&](ProtoWriter& p) {
        p.varintField(track_field::kUuid, t.firstLane + lane - 1);
        p.bytesField(track_field::kName, validUtf8(laneName(name, lane)));
        p.varintField(track_field::kParentUuid, t.uuid);
        p.varintField(track_field::kSiblingOrderRank, lane);
        p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
      });
    }
  }

  uint64_t gpuProcessUuid(uint32_t device) const {
    for (const auto& [d, uuid] : gpuProcesses_)
      if (d == device) return uuid;
    return 0;
  }

  void describe(ProtoWriter& p, const Track& t) {
    p.varintField(track_field::kUuid, t.uuid);
    if (t.lanes > 1)
      p.varintField(track_field::kChildOrdering, track_field::kChildOrderingExplicit);
    switch (t.kind) {
      case TrackKind::HostThread: {
        auto thread = p.beginNested(track_field::kThread);
        p.varintField(track_field::kThreadPid, hostPid_);
        p.varintField(track_field::kThreadTid, t.id + in_.idOffset);
        p.bytesField(track_field::kThreadName, validUtf8(hostThreadName(trace_, t.id)));
        p.endNestedCompact(thread);
        p.varintField(track_field::kParentUuid, hostProcessUuid_);
        return;
      }
      case TrackKind::Overhead:
        p.bytesField(track_field::kName, kOverheadTrackName);
        p.varintField(track_field::kParentUuid, hostProcessUuid_);
        p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
        return;
      case TrackKind::NvtxRange:
        // Lanes of one name keep the default merge (by name): one track in the UI.
        p.bytesField(track_field::kName, validUtf8(trace_.strings.get(t.id)));
        p.varintField(track_field::kParentUuid, hostProcessUuid_);
        return;
      case TrackKind::Stream:
        // NVTX may give two streams one name: they must still not merge.
        p.bytesField(track_field::kName, validUtf8(streamTrackName(trace_, t.id, t.context)));
        p.varintField(track_field::kParentUuid, gpuProcessUuid(t.device));
        p.varintField(track_field::kSiblingOrderRank, t.id & 0x7FFFFFFFu);
        p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
        return;
      case TrackKind::Sync:
        p.bytesField(track_field::kName, validUtf8(syncTrackName(trace_, t.id)));
        p.varintField(track_field::kParentUuid, gpuProcessUuid(t.device));
        p.varintField(track_field::kSiblingOrderRank, syncTrackTid(t.id) & 0x7FFFFFFFu);
        p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
        return;
    }
  }

  // ---- Track events ----------------------------------------------------------------

  // Debug annotations {name_iid, value}, sized bottom-up. A scalar one is
  // at most 2 + 17 bytes, so its length is one byte.
  static constexpr size_t kMaxScalarArg = 24;
  static uint8_t* annotationHead(uint8_t* p, uint32_t nameIid, size_t valueBytes) {
    *p++ = kTagDebugAnnotation;
    *p++ = static_cast<uint8_t>(1 + varintSize(nameIid) + valueBytes);
    *p++ = kTagAnnotationNameIid;
    return putVarint(p, nameIid);
  }
  void argUint(uint32_t nameIid, uint64_t v) {
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), nameIid, 1 + varintSize(v));
    *p++ = kTagUintValue;
    te_.setTail(putVarint(p, v));
  }
  void argUint(Arg a, uint64_t v) { argUint(interner_.argIid(a), v); }
  void argInt(Arg a, int64_t v) {
    const auto bits = static_cast<uint64_t>(v);
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), interner_.argIid(a), 1 + varintSize(bits));
    *p++ = kTagIntValue;
    te_.setTail(putVarint(p, bits));
  }
  void argBool(Arg a, bool v) {
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), interner_.argIid(a), 2);
    *p++ = kTagBoolValue;
    *p++ = v ? 1 : 0;
    te_.setTail(p);
  }
  void argDouble(Arg a, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), interner_.argIid(a), 9);
    *p++ = kTagDoubleValue;
    te_.setTail(putFixed64(p, bits));
  }
  void argStringIid(Arg a, uint32_t valueIid) {
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), interner_.argIid(a), 2 + varintSize(valueIid));
    *p++ = kTagStringValueIid[0];
    *p++ = kTagStringValueIid[1];
    te_.setTail(putVarint(p, valueIid));
  }
  // A string written in place (the trace's description only: nothing repeats there).
  void argString(uint32_t name, std::string_view v) {
    const size_t len = 1 + varintSize(name) + 1 + varintSize(v.size()) + v.size();
    te_.byte(kTagDebugAnnotation);
    te_.varint(len);
    te_.byte(kTagAnnotationNameIid);
    te_.varint(name);
    te_.byte(kTagStringValue);
    te_.varint(v.size());
    te_.bytes(v);
  }
  void argString(Arg a, std::string_view v) { argString(interner_.argIid(a), v); }
  // How much the layout cut off the slice: only past kMaxLanes lanes (track_layout.h).
  void clampArg(const Slice& s, uint64_t start, uint64_t end) {
    if (s.end - s.start != end - start) argUint(Arg::ClampedNs, (end - start) - (s.end - s.start));
  }
  // An NCCL kernel's collective, as its name says (core/nccl_kernel.h): parts it leaves out are left out.
  void ncclArgs(const NcclKernelInfo& c) {
    auto part = [&](Arg a, const std::string& text) {
      if (text.empty()) return;
      argStringIid(a, interner_.ncclValueIid(text));
    };
    part(Arg::NcclCollective, c.collective);
    part(Arg::NcclOp, c.op);
    part(Arg::NcclDtype, c.dtype);
    part(Arg::NcclAlgo, c.algo);
    part(Arg::NcclProto, c.proto);
  }
  // What the program had pushed (cuptitrace.h) when the call was made.
  void externalIdArgs(uint32_t correlationId) {
    const ExternalIdEntry* e = externalIds_.find(correlationId);
    if (e == nullptr) return;
    if (e->hasId) argUint(Arg::ExternalId, e->id);
    if (e->hasScope) {
      argStringIid(Arg::Scope, interner_.stringValueIid(e->scopeName));
      argUint(Arg::ScopeId, e->scopeId);
    }
  }

  // A record's arguments (record_args.h) as debug annotations.
  struct ArgSink {
    SourceWriter& w;
    void u(Arg a, uint64_t v) { w.argUint(a, v); }
    void i(Arg a, int64_t v) { w.argInt(a, v); }
    void b(Arg a, bool v) { w.argBool(a, v); }
    void real(Arg a, double v, int) { w.argDouble(a, v); }
    void single(Arg a, float v) { w.argDouble(a, v); }
    void string(Arg a, StringId id) { w.argStringIid(a, w.interner_.stringValueIid(id)); }
    void text(Arg a, std::string_view v) { w.argStringIid(a, w.interner_.textValueIid(std::string(v))); }
    void label(Arg a, Label l, uint8_t code, const char* name) {
      w.argStringIid(a, w.interner_.labelIid(l, code, name));
    }
    void dim3(Arg a, int64_t x, int64_t y, int64_t z) {
      w.argStringIid(a, w.interner_.dim3Iid(a, x, y, z));
    }
    void nccl(StringId kernelName) {
      if (const NcclKernelInfo* c = w.nccl_.find(kernelName)) w.ncclArgs(*c);
    }
    void externalIds(uint32_t correlationId) { w.externalIdArgs(correlationId); }
  };
  template <typename Describe>
  void args(Describe&& describe) {
    ArgSink sink{*this};
    describe(sink);
  }

  // Starts the TrackEvent of the next packet with its category.
  void beginEvent(Category c) {
    interner_.useCategory(c);
    te_.clear();
    uint8_t* p = te_.tail(2);
    p[0] = kTagCategoryIid;
    p[1] = c;  // < 128
    te_.setTail(p + 2);
  }
  // Type and name: fields 9 and 10, after the annotations (4).
  void eventHead(uint8_t type, uint32_t nameIid) {
    uint8_t* p = te_.tail(2 + 1 + 5);
    *p++ = kTagType;
    *p++ = type;
    *p++ = kTagNameIid;
    te_.setTail(putVarint(p, nameIid));
  }
  void flowIds(const uint8_t (&tag)[2], uint32_t id) {
    uint8_t* p = te_.tail(2 + 5);
    *p++ = tag[0];
    *p++ = tag[1];
    te_.setTail(putVarint(p, id));
  }
  // The flows a launch call starts: one per GPU slice it launched that is
  // not written yet (those written before it have no arrow).
  void startFlows(size_t index, const ApiRecord& r, uint64_t ts) {
    const uint32_t correlation = r.correlationId;
    if (!sources_.isSource(index, r) || !gpuDrawn_.contains(correlation)) return;
    uint32_t n = 1;
    if (!moreGpu_.empty()) {
      const auto it = moreGpu_.find(correlation);
      if (it != moreGpu_.end()) n += it->second;
    }
    if (!early_.empty()) {
      const auto it = early_.find(correlation);
      if (it != early_.end()) {
        n -= it->second;
        early_.erase(it);
      }
    }
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t id = flowIds_.start(ts + offset_);
      flowIds(kTagFlowId, id);
      pending_.add(correlation, id);
    }
  }
  // The flow a GPU slice ends: one its call started, if the call was written before it.
  void endFlow(uint32_t correlation, uint64_t ts) {
    // The arrow from the OpenACC event that made the call, if it was written before.
    if (!accFlows_.empty()) {
      if (const uint32_t id = accPending_.take(correlation)) {
        flowIds(kTagTerminatingFlowId, id);
        flowIds_.end(id, ts + offset_);
        ++accFlowsWritten_;
      }
    }
    if (!sources_.hasSource(correlation)) return;
    const uint32_t id = pending_.take(correlation);
    if (id == 0) {
      ++early_[correlation];
      return;
    }
    flowIds(kTagTerminatingFlowId, id);
    flowIds_.end(id, ts + offset_);
    ++flowsWritten_;
  }

  // The packet of the event in te_ at `ts`, with the interned data it needs:
  // fields 8, 10, 11 and 12 in order, lengths computed first.
  void finishEvent(uint64_t ts) {
    if (eventTrackUuid_ != 0) {  // a lane's: TrackEvent.track_uuid
      uint8_t* p = te_.tail(1 + 10);
      *p++ = kTagTrackUuid;
      te_.setTail(putVarint(p, eventTrackUuid_));
    }
    const uint64_t delta = ts - interner_.sequence().lastTs;
    interner_.sequence().lastTs = ts;
    const size_t teLen = te_.size();
    const size_t internedLen = interner_.entries().size();
    const size_t body = 1 + varintSize(delta) + 1 + varintSize(interner_.sequence().id) + 1 + varintSize(teLen) +
                        teLen + (internedLen != 0 ? 1 + varintSize(internedLen) + internedLen : 0);
    uint8_t* p = b_.tail(1 + 10 + body);
    *p++ = kTagPacket;
    p = putVarint(p, body);
    *p++ = kTagTimestamp;
    p = putVarint(p, delta);
    *p++ = kTagSequenceId;
    p = putVarint(p, interner_.sequence().id);
    *p++ = kTagTrackEvent;
    p = putVarint(p, teLen);
    std::memcpy(p, te_.data(), teLen);
    p += teLen;
    if (internedLen != 0) {
      *p++ = kTagInternedData;
      p = putVarint(p, internedLen);
      std::memcpy(p, interner_.entries().data(), internedLen);
      p += internedLen;
      interner_.entries().clear();
    }
    b_.setTail(p);
    ++o_.stats.events;
    ++o_.stats.packets;
    o_.maybeFlush();
  }

  // SLICE_END: timestamp, sequence, {type, and the lane's track_uuid when not 0}.
  void writeEnd(uint64_t ts, uint64_t trackUuid) {
    const uint64_t delta = ts - interner_.sequence().lastTs;
    interner_.sequence().lastTs = ts;
    const size_t te = 2 + (trackUuid != 0 ? 1 + varintSize(trackUuid) : 0);         // < 128
    const size_t body = 1 + varintSize(delta) + 1 + varintSize(interner_.sequence().id) + 2 + te;  // < 128
    uint8_t* p = b_.tail(2 + body);
    *p++ = kTagPacket;
    *p++ = static_cast<uint8_t>(body);
    *p++ = kTagTimestamp;
    p = putVarint(p, delta);
    *p++ = kTagSequenceId;
    p = putVarint(p, interner_.sequence().id);
    *p++ = kTagTrackEvent;
    *p++ = static_cast<uint8_t>(te);
    *p++ = kTagType;
    *p++ = kSliceEnd;
    if (trackUuid != 0) {
      *p++ = kTagTrackUuid;
      p = putVarint(p, trackUuid);
    }
    b_.setTail(p);
    ++o_.stats.events;
    ++o_.stats.packets;
    o_.maybeFlush();
  }

  void writeBegin(const Slice& s) {
    switch (s.source) {
      case SliceSource::ApiRuntime:
      case SliceSource::ApiDriver:
        return writeApi(s);
      case SliceSource::Nvtx:
        return writeNvtxRange(s);
      case SliceSource::Kernel:
        return writeKernel(s);
      case SliceSource::Memcpy:
        return writeMemcpy(s);
      case SliceSource::Memset:
        return writeMemset(s);
      case SliceSource::Graph:
        return writeGraph(s);
      case SliceSource::Sync:
        return writeSync(s);
      case SliceSource::Overhead:
        return writeOverhead(s);
      case SliceSource::OpenAcc:
        return writeOpenAcc(s);
    }
  }

  // An OpenACC event on the thread that made it; it starts a flow to each GPU
  // slice its CUDA calls launched (openacc_flows.h), which those end.
  void writeOpenAcc(const Slice& s) {
    const OpenAccRecord& r = rec_.openacc[s.index];
    beginEvent(kCatOpenAcc);
    const std::string label = openAccEventLabel(r, trace_.strings);
    const uint32_t name = interner_.labelNameIid(label);
    args([&](ArgSink& a) { openAccArgs(r, a); });
    clampArg(s, r.start, r.end);
    eventHead(kSliceBegin, name);
    if (const std::vector<uint32_t>* calls = accFlows_.callsOf(r.externalId)) {
      for (const uint32_t correlation : *calls) {
        if (!gpuDrawn_.contains(correlation)) continue;
        const uint32_t id = flowIds_.start(s.start + offset_);
        flowIds(kTagFlowId, id);
        accPending_.add(correlation, id);
      }
    }
    finishEvent(s.start);
  }

  void writeApi(const Slice& s) {
    const ApiRecord& r = rec_.api[s.index];
    // A C library call that blocked the thread: the osrt activity.
    beginEvent(isOsrtCall(r) ? kCatOsrt : isDriverCall(r) ? kCatDriver : kCatRuntime);
    const uint32_t name = interner_.rawNameIid(r.name);
    args([&](ArgSink& a) { apiArgs(r, a); });
    clampArg(s, r.start, r.end);
    eventHead(kSliceBegin, name);
    startFlows(s.index, r, s.start);  // none from C library calls: they have no id
    finishEvent(s.start);
  }


  void writeKernel(const Slice& s) {
    const KernelRecord& k = rec_.kernels[s.index];
    beginEvent(kCatKernel);
    const uint32_t name = interner_.kernelNameIid(k.name);
    args([&](ArgSink& a) { kernelArgs(k, a); });
    clampArg(s, k.start, k.end);
    eventHead(kSliceBegin, name);
    endFlow(k.correlationId, s.start);
    finishEvent(s.start);
  }

  // A whole graph launch (CUPTITRACE_GRAPHS=graph), the arrow from its cudaGraphLaunch.
  void writeGraph(const Slice& s) {
    const GraphRecord& g = rec_.graphs[s.index];
    beginEvent(kCatGraph);
    // Names of their own above the composed ones' keys (all below 2^26).
    const uint32_t name = interner_.composedNameIid((4u << 24) + g.graphId,
                                          [&] { return "Graph " + std::to_string(g.graphId); });
    args([&](ArgSink& a) { graphLaunchArgs(g, a); });
    clampArg(s, g.start, g.end);
    eventHead(kSliceBegin, name);
    endFlow(g.correlationId, s.start);
    finishEvent(s.start);
  }

  void writeMemcpy(const Slice& s) {
    const MemcpyRecord& m = rec_.memcpys[s.index];
    const uint32_t key = uint32_t{m.copyKind} << 16 | uint32_t{m.srcKind} << 8 | m.dstKind;
    beginEvent(kCatMemcpy);
    const uint32_t name = interner_.composedNameIid(key, [&] {
      return std::string("Memcpy ") + copyKindName(static_cast<CopyKind>(m.copyKind)) + " (" +
             memoryKindName(static_cast<MemoryKind>(m.srcKind)) + " -> " +
             memoryKindName(static_cast<MemoryKind>(m.dstKind)) + ")";
    });
    args([&](ArgSink& a) { memcpyArgs(m, a); });
    clampArg(s, m.start, m.end);
    eventHead(kSliceBegin, name);
    endFlow(m.correlationId, s.start);
    finishEvent(s.start);
  }

  void writeMemset(const Slice& s) {
    const MemsetRecord& m = rec_.memsets[s.index];
    beginEvent(kCatMemset);
    const uint32_t name = interner_.composedNameIid(1u << 24 | m.memoryKind, [&] {
      return std::string("Memset (") + memoryKindName(static_cast<MemoryKind>(m.memoryKind)) + ")";
    });
    args([&](ArgSink& a) { memsetArgs(m, a); });
    clampArg(s, m.start, m.end);
    eventHead(kSliceBegin, name);
    endFlow(m.correlationId, s.start);
    finishEvent(s.start);
  }

  void writeSync(const Slice& s) {
    const SyncRecord& r = rec_.syncs[s.index];
    beginEvent(kCatSync);
    const uint32_t name = interner_.composedNameIid(2u << 24 | r.type, [&] {
      return std::string(syncTypeName(static_cast<SyncType>(r.type)));
    });
    args([&](ArgSink& a) { syncArgs(r, a); });
    clampArg(s, r.start, r.end);
    eventHead(kSliceBegin, name);
    finishEvent(s.start);
  }

  void writeOverhead(const Slice& s) {
    const OverheadRecord& r = rec_.overheads[s.index];
    beginEvent(kCatOverhead);
    const uint32_t name = interner_.rawNameIid(r.name);
    args([&](ArgSink& a) { overheadArgs(r, a); });
    clampArg(s, r.start, r.end);
    eventHead(kSliceBegin, name);
    finishEvent(s.start);
  }

  // Push/pop ranges on their thread; start/end ranges on their lane.
  void writeNvtxRange(const Slice& s) {
    const NvtxRecord& r = rec_.nvtx[s.index];
    beginEvent(kCatNvtx);
    const uint32_t name = interner_.rawNameIid(r.message);
    args([&](ArgSink& a) { nvtxArgs(r, true, a); });
    clampArg(s, r.start, r.end);
    eventHead(kSliceBegin, name);
    finishEvent(s.start);
  }
  // Marks on their thread; empty start/end ranges on their lane.
  void writeInstant(const Instant& i) {
    const NvtxRecord& r = rec_.nvtx[i.nvtx];
    beginEvent(kCatNvtx);
    const uint32_t name = interner_.rawNameIid(r.message);
    args([&](ArgSink& a) { nvtxArgs(r, false, a); });
    eventHead(kInstant, name);
    finishEvent(i.ts);
  }

  // What describes the trace, as the JSON exporter's metadata does: an
  // instant on the host process (the main sequence's track) at the clock's reference.
  void writeMetadataEvent() {
    const TraceMetadata& m = trace_.meta;
    beginEvent(kCatMetadata);
    const uint32_t name = interner_.composedNameIid(3u << 24, [] { return std::string("cuptitrace"); });
    argString(Arg::ToolVersion, validUtf8(m.toolVersion));
    argString(Arg::Clock, validUtf8(m.clock));
    argInt(Arg::RealtimeOffsetNs, static_cast<int64_t>(offset_));
    if (!in_.labels.empty()) {  // in a merged file: which trace this is
      argString(Arg::Host, validUtf8(m.hostName));
      argUint(Arg::Pid, m.pid);
      for (const auto& [key, value] : in_.labels) argString(interner_.dynamicArgIid(key), validUtf8(value));
    }
    if (m.rank >= 0) {  // set by the launcher (core/rank_info.h)
      argUint(Arg::Rank, static_cast<uint64_t>(m.rank));
      if (m.localRank >= 0) argUint(Arg::LocalRank, static_cast<uint64_t>(m.localRank));
      if (m.worldSize != 0) argUint(Arg::WorldSize, m.worldSize);
    }
    argUint(Arg::DroppedRecords, trace_.totalDropped());
    argUint(Arg::IncompleteRecords, incomplete_);
    argUint(Arg::ClampedSlices, clamped_);
    argUint(Arg::MaxLanes, maxLanes_);
    argUint(Arg::LaneTracks, laneTracks_);
    argUint(Arg::Flows, flows_);
    const std::string apiCalls = describeApiSets(recordedApiSets(trace_));
    if (!apiCalls.empty()) argString(interner_.dynamicArgIid("api_calls"), apiCalls);
    for (const auto& [counter, value] : trace_.counters)
      argUint(interner_.dynamicArgIid("counters." + counter), value);
    eventHead(kInstant, name);
    finishEvent(base_);
  }

  const TimelineInput& in_;
  const Trace& trace_;
  Output& o_;
  ProtoWriter& b_;
  FlowIds& flowIds_;
  const TimelineRecords rec_;
  const FlowSources sources_;
  const ExternalIdIndex externalIds_;
  const OpenAccFlows accFlows_;  // OpenACC event -> the GPU work its CUDA calls launched
  PendingFlows accPending_;      // their flows started and not yet ended
  uint64_t accFlowsWritten_ = 0;
  NcclNames nccl_;  // which kernels are NCCL's collectives
  const uint32_t hostPid_;  // as shown
  const uint64_t offset_;   // wall clock minus trace clock, modulo 2^64
  const uint64_t hostProcessUuid_;
  const uint32_t firstSequence_;
  const size_t windowSlices_;

  uint64_t base_ = 0;  // the clock's reference: every sequence's clock starts there
  uint64_t incomplete_ = 0;
  uint64_t clamped_ = 0;       // planned (countClampedAndFlows), for the description
  uint32_t maxLanes_ = 1;      // likewise: the most lanes of one track
  uint64_t laneTracks_ = 0;    // lanes past each track's first (addLaneTracks)
  uint64_t eventTrackUuid_ = 0;  // of the event being written when not its sequence's track
  uint64_t flows_ = 0;         // planned likewise
  uint64_t flowsWritten_ = 0;  // arrows written, both ends
  uint64_t nextUuid_ = 0;
  bool metadataWritten_ = false;

  std::vector<Track> tracks_;
  std::unordered_map<uint64_t, uint32_t> trackIndex_;  // (kind, id, device|lane) -> tracks_ index
  struct TrackCacheEntry {
    uint64_t key;
    uint32_t index;
    bool valid;
  };
  TrackCacheEntry trackCache_[64] = {};
  std::vector<std::pair<uint32_t, uint64_t>> gpuProcesses_;  // (device, uuid), in uuid order
  std::unordered_map<uint32_t, uint32_t> contextDevice_;
  std::vector<uint32_t> nvtxTrack_;  // by NVTX record: the lane track of a start/end range
  std::vector<Instant> instants_;    // of the whole trace, by track
  std::vector<Cursor> cursors_;
  std::vector<Sequence> sequences_;  // the main sequence, then one per track
  Interner interner_;

  // Windows (slice_windows.h): their bounds, the one laid out, its slices
  // (each track's at its cursor), the tracks' layouts carried between them.
  std::vector<uint64_t> windows_;
  size_t window_ = 0;
  std::vector<Slice> slices_;
  std::vector<TrackLayout> layouts_;  // by track
  TimelineSlices timelineSlices_;

  // Arrows: which ids have GPU slices (gpuDrawn_, and how many more than one
  // in moreGpu_), the GPU slices written before their call (by id), the
  // flows started and not terminated.
  IdSet gpuDrawn_;
  std::unordered_map<uint32_t, uint32_t> moreGpu_;
  std::unordered_map<uint32_t, uint32_t> early_;
  PendingFlows pending_;

  ProtoWriter te_;        // the TrackEvent of the packet being written
  ProtoWriter scratch_;   // fields of a packet written whole (first packets, descriptors)
};

// Writes every trace's header, then all their events in wall-clock order.
PerfettoExportStats writeTimeline(const std::vector<TimelineInput>& inputs, std::ostream& out,
                                  size_t windowSlices) {
  Output o(out);
  FlowIds flowIds;
  std::vector<std::unique_ptr<SourceWriter>> sources;
  uint64_t uuid = 1;
  uint32_t sequence = 1;
  std::vector<uint32_t> firstTrack;  // by source: its first global track index
  std::vector<uint32_t> sourceOf;    // by global track index
  // The traces are written side by side: together they hold about windowSlices.
  const size_t perTrace = std::max<size_t>(1, windowSlices / std::max<size_t>(1, inputs.size()));
  for (const TimelineInput& in : inputs) {
    sources.push_back(std::make_unique<SourceWriter>(in, o, flowIds, uuid, sequence, perTrace));
    SourceWriter& s = *sources.back();
    s.plan();
    uuid = s.endUuid();
    sequence = s.endSequence();
    firstTrack.push_back(static_cast<uint32_t>(sourceOf.size()));
    sourceOf.insert(sourceOf.end(), s.sourceCount(), static_cast<uint32_t>(sources.size() - 1));
  }
  for (auto& s : sources) s->writeHeader();
  // Memory counters and unified memory, a sequence per trace that has them,
  // their packets put between the others in time order.
  std::vector<std::unique_ptr<PerfettoMemorySequence>> memory;
  for (size_t i = 0; i < sources.size(); ++i) {
    auto m = std::make_unique<PerfettoMemorySequence>(inputs[i], sources[i]->memoryOptions(sequence));
    if (m->empty()) continue;
    ++sequence;
    o.b.bytes(m->header());
    o.stats.packets += m->packets();
    o.stats.events += m->events();
    memory.push_back(std::move(m));
  }

  // Merges the tracks' events (each track's already in order) by time, the
  // traces' descriptions among them. The track just written goes on while
  // its next event comes before every other track's, which saves the heap
  // most of its work on busy tracks. A track is in the heap (queued) while
  // it has an event in its trace's window; the end of each trace's window is
  // in the heap too: there the trace's next window is laid out, and its
  // tracks that waited for it are queued again.
  std::priority_queue<NextEvent, std::vector<NextEvent>, After> heap;
  std::vector<uint8_t> queued(sourceOf.size(), 0);
  // By source: how many of its tracks are queued or being written; whether
  // its window ended while some were.
  std::vector<uint32_t> live(sources.size(), 0);
  std::vector<uint8_t> waiting(sources.size(), 0);
  auto queueTracks = [&](uint32_t src) {
    SourceWriter& s = *sources[src];
    for (uint32_t k = 0; k < s.sourceCount(); ++k) {
      const uint32_t g = firstTrack[src] + k;
      NextEvent e;
      if (queued[g] || !s.next(k, g, &e)) continue;
      heap.push(e);
      queued[g] = 1;
      ++live[src];
    }
    if (s.moreWindows()) heap.push(NextEvent::of(s.windowEndWall(), kPhaseReload, src));
  };
  // The next window of trace `src`, once none of its tracks has an event left
  // in this one. That is always so at the window's end, unless the trace's
  // wall-clock times wrap around 2^64 (an offset larger than its timestamps).
  auto loadNextWindow = [&](uint32_t src) {
    if (live[src] != 0) {
      waiting[src] = 1;
      return;
    }
    waiting[src] = 0;
    sources[src]->nextWindow();
    queueTracks(src);
  };
  for (uint32_t src = 0; src < sources.size(); ++src) queueTracks(src);
  while (!heap.empty()) {
    NextEvent e = heap.top();
    heap.pop();
    if (e.phase() == kPhaseReload) {
      loadNextWindow(e.track());
      continue;
    }
    const uint32_t g = e.track();
    const uint32_t src = sourceOf[g];
    SourceWriter& s = *sources[src];
    const uint32_t local = g - firstTrack[src];
    for (;;) {
      for (auto& m : memory) o.b.bytes(m->takeUntil(e.wall()));
      s.emit(local, e.phase());
      if (!s.next(local, g, &e)) {
        queued[g] = 0;
        --live[src];
        if (waiting[src]) loadNextWindow(src);
        break;
      }
      if (!heap.empty() && heap.top().key < e.key) {
        heap.push(e);
        break;
      }
    }
  }
  for (auto& m : memory) o.b.bytes(m->rest());
  o.flush();
  PerfettoExportStats stats = o.stats;
  for (const auto& s : sources) {
    stats.clamped += s->clamped();
    stats.maxLanes = std::max(stats.maxLanes, s->maxLanes());
    stats.laneTracks += s->laneTracks();
    stats.incomplete += s->incomplete();
    stats.flows += s->flowsWritten();
    stats.windows += s->windows();
  }
  return stats;
}

}  // namespace pftrace

using pftrace::writeTimeline;

PerfettoExportStats writePerfettoProto(const Trace& trace, std::ostream& out,
                                       size_t windowSlices) {
  return writeTimeline({timelineInput(trace)}, out, windowSlices);
}

PerfettoExportStats writePerfettoProto(const std::vector<TimelineInput>& inputs,
                                       std::ostream& out, size_t windowSlices) {
  return writeTimeline(inputs, out, windowSlices);
}

}  // namespace cuptitrace
