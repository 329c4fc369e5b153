// Perfetto protobuf (.pftrace): the timeline of the Chrome JSON exporter
// (chrome_json.cpp), with the same tracks, names, arguments, arrows and
// overlap handling (track_layout.h), in the format Perfetto itself writes.
//
// The file is one packet sequence (trusted_packet_sequence_id 1):
//
// 1. The first packet clears the sequence's incremental state (flags 1|2),
//    interns the event categories the trace uses, sets the sequence's default
//    timestamp clock, and holds the ClockSnapshot that defines that clock.
// 2. A TrackDescriptor per track: the host process (pid, name, command line)
//    with a thread track per CPU thread and the "CUPTI overhead" track; a
//    process per GPU ("GPU 0: <model>", pid gpuProcessId) with a track per
//    CUDA stream and one per context for synchronization; and for NVTX
//    start/end ranges, which need not nest, one track per range name and
//    concurrently open range ("lane"), under the host process.
// 3. One INSTANT on the host process with what describes the trace (tool
//    version, clock, everything lost), then every slice as SLICE_BEGIN and
//    SLICE_END and every NVTX mark as an INSTANT, all in timestamp order.
//
// Clock. CUPTI gives CPU and GPU records in one clock, nanoseconds, roughly
// CLOCK_REALTIME on Linux. Timestamps are written in a sequence-scoped clock
// of our own (id 64) that the ClockSnapshot ties to REALTIME, which it also
// makes the trace's clock (primary_trace_clock): by the offset measured at
// collection start (meta.startRealtimeNs vs startTimestampNs) when the trace
// has one, else as equal. Clock 64 is incremental (ClockSnapshot.Clock
// is_incremental; Perfetto's own SDK does the same): each packet's timestamp
// is the nanoseconds since the previous packet's, which is why everything is
// written in timestamp order; a delta takes 1-3 bytes where an absolute
// CUPTI timestamp takes 9. Deltas are integers, so every nanosecond is kept.
//
// Size. Names, categories, argument names and repeated string arguments
// (mangled names, grid and block, enum names) are interned (InternedData),
// each sent once in the packet that first uses it; nested lengths are
// computed bottom-up, so every length is a minimal varint; track uuids are
// small integers. Flow ids are fixed64 anyway, so they carry the host pid in
// their high half and stay unique if traces of several processes are merged.
//
// Arrows. The launching call (LaunchIndex: the runtime call over the driver
// call it made) carries one flow_ids entry per GPU record it launched and
// each GPU record the matching terminating_flow_ids entry: a graph launch
// gets one arrow per kernel. Only pairs with both ends drawn are written.
#include "exporters/perfetto_proto.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/demangle.h"
#include "exporters/proto_writer.h"
#include "exporters/track_layout.h"

namespace cuptitrace {
namespace {

// ---- Wire constants (PERFETTO.md) ---------------------------------------------

// A one-byte tag: (field << 3) | wire type, for fields below 16.
constexpr uint8_t tag(uint32_t field, WireType type) {
  return static_cast<uint8_t>(field << 3 | static_cast<uint8_t>(type));
}
constexpr uint8_t kTagPacket = tag(1, WireType::LengthDelimited);  // Trace.packet
constexpr uint8_t kTagTimestamp = tag(8, WireType::Varint);        // TracePacket.timestamp
constexpr uint8_t kTagSequenceId = tag(10, WireType::Varint);      // .trusted_packet_sequence_id
constexpr uint8_t kTagTrackEvent = tag(11, WireType::LengthDelimited);    // .track_event
constexpr uint8_t kTagInternedData = tag(12, WireType::LengthDelimited);  // .interned_data
constexpr uint8_t kTagSequenceFlags = tag(13, WireType::Varint);          // .sequence_flags

namespace packet_field {
constexpr uint32_t kClockSnapshot = 6;
constexpr uint32_t kSequenceId = 10;
constexpr uint32_t kSequenceFlags = 13;
constexpr uint32_t kTracePacketDefaults = 59;
constexpr uint32_t kTrackDescriptor = 60;
}  // namespace packet_field
constexpr uint32_t kInternedDataField = 12;
constexpr uint32_t kDefaultsTimestampClockId = 58;  // TracePacketDefaults.timestamp_clock_id

namespace clock_field {
constexpr uint32_t kClocks = 1;             // ClockSnapshot.clocks
constexpr uint32_t kPrimaryTraceClock = 2;  // ClockSnapshot.primary_trace_clock
constexpr uint32_t kClockId = 1;            // Clock.clock_id
constexpr uint32_t kTimestamp = 2;          // Clock.timestamp
constexpr uint32_t kIsIncremental = 3;      // Clock.is_incremental
}  // namespace clock_field

namespace track_field {
constexpr uint32_t kUuid = 1;
constexpr uint32_t kName = 2;
constexpr uint32_t kProcess = 3;
constexpr uint32_t kThread = 4;
constexpr uint32_t kParentUuid = 5;
constexpr uint32_t kChildOrdering = 11;
constexpr uint32_t kSiblingOrderRank = 12;
constexpr uint32_t kSiblingMergeBehavior = 15;
constexpr uint32_t kProcessPid = 1;             // ProcessDescriptor.pid
constexpr uint32_t kProcessCmdline = 2;         // ProcessDescriptor.cmdline
constexpr uint32_t kProcessName = 6;            // ProcessDescriptor.process_name
constexpr uint32_t kThreadPid = 1;              // ThreadDescriptor.pid
constexpr uint32_t kThreadTid = 2;              // ThreadDescriptor.tid
constexpr uint32_t kThreadName = 5;             // ThreadDescriptor.thread_name
constexpr uint64_t kChildOrderingExplicit = 3;  // ChildTracksOrdering.EXPLICIT
constexpr uint64_t kMergeNone = 2;              // SiblingMergeBehavior.NONE
}  // namespace track_field

// TrackEvent tags.
constexpr uint8_t kTagCategoryIid = tag(3, WireType::Varint);               // category_iids
constexpr uint8_t kTagDebugAnnotation = tag(4, WireType::LengthDelimited);  // debug_annotations
constexpr uint8_t kTagType = tag(9, WireType::Varint);                      // type
constexpr uint8_t kTagNameIid = tag(10, WireType::Varint);                  // name_iid
constexpr uint8_t kTagTrackUuid = tag(11, WireType::Varint);                // track_uuid
constexpr uint32_t kFlowIds = 47;             // flow_ids, repeated fixed64
constexpr uint32_t kTerminatingFlowIds = 48;  // terminating_flow_ids, repeated fixed64
constexpr uint64_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3;

// DebugAnnotation tags.
constexpr uint8_t kTagAnnotationNameIid = tag(1, WireType::Varint);     // name_iid
constexpr uint8_t kTagBoolValue = tag(2, WireType::Varint);             // bool_value
constexpr uint8_t kTagUintValue = tag(3, WireType::Varint);             // uint_value
constexpr uint8_t kTagIntValue = tag(4, WireType::Varint);              // int_value
constexpr uint8_t kTagDoubleValue = tag(5, WireType::Fixed64);          // double_value
constexpr uint8_t kTagStringValue = tag(6, WireType::LengthDelimited);  // string_value
// string_value_iid = 17: tag 17 << 3 = 136, a two-byte varint.
constexpr uint8_t kTagStringValueIid[2] = {(17 << 3 & 0x7F) | 0x80, 17 << 3 >> 7};

// InternedData fields; entries are {iid = 1, name = 2} (InternedString: {iid = 1, str = 2}).
constexpr uint32_t kInternedCategories = 1;
constexpr uint32_t kInternedEventNames = 2;
constexpr uint32_t kInternedAnnotationNames = 3;
constexpr uint32_t kInternedAnnotationStrings = 29;

constexpr uint8_t kSequenceId = 1;
constexpr uint8_t kIncrementalStateCleared = 1;
constexpr uint8_t kNeedsIncrementalState = 2;
constexpr uint32_t kClockTrace = 64;    // sequence-scoped, incremental: the CUPTI clock
constexpr uint32_t kClockRealtime = 1;  // BuiltinClock REALTIME

// Bytes gathered before one write to the stream.
constexpr size_t kFlushBytes = size_t{1} << 20;
// Ids CUPTI uses for "not applicable" (sync stream/event, overhead device).
constexpr uint32_t kNotApplicable = 0xffffffffu;
constexpr uint64_t kHostProcessUuid = 1;

// ---- Interned names -------------------------------------------------------------

enum Category : uint8_t {
  kCatNone = 0,
  kCatKernel,
  kCatMemcpy,
  kCatMemset,
  kCatRuntime,
  kCatDriver,
  kCatNvtx,
  kCatSync,
  kCatOverhead,
  kCatMetadata,
  kCategoryCount
};
constexpr const char* kCategoryNames[kCategoryCount] = {
    "",     "kernel", "memcpy",   "memset",  "cuda_runtime", "cuda_driver",
    "nvtx", "sync",   "overhead", "metadata"};

// Argument names, as the JSON exporter writes them; their iids are fixed
// (the enum value), each interned the first time it is used.
// clang-format off
#define PFTRACE_ARGS(X)                            \
  X(MangledName, "mangled_name")                               \
  X(Device, "device")                                          \
  X(Context, "context")                                        \
  X(Stream, "stream")                                          \
  X(Correlation, "correlation")                                \
  X(Grid, "grid")                                              \
  X(Block, "block")                                            \
  X(RegistersPerThread, "registers_per_thread")                \
  X(StaticSharedMemory, "static_shared_memory")                \
  X(DynamicSharedMemory, "dynamic_shared_memory")              \
  X(GraphId, "graph_id")                                       \
  X(GraphNodeId, "graph_node_id")                              \
  X(LaunchType, "launch_type")                                 \
  X(DeviceLaunched, "device_launched")                         \
  X(ClampedNs, "clamped_ns")                                   \
  X(Cbid, "cbid")                                              \
  X(ReturnValue, "return_value")                               \
  X(Domain, "domain")                                          \
  X(Bytes, "bytes")                                            \
  X(CopyKind, "copy_kind")                                     \
  X(SrcKind, "src_kind")                                       \
  X(DstKind, "dst_kind")                                       \
  X(Async, "async")                                            \
  X(BandwidthGBps, "bandwidth_GBps")                           \
  X(SrcDevice, "src_device")                                   \
  X(DstDevice, "dst_device")                                   \
  X(Value, "value")                                            \
  X(MemoryKind, "memory_kind")                                 \
  X(Event, "event")                                            \
  X(Thread, "thread")                                          \
  X(EndThread, "end_thread")                                   \
  X(NvtxCategory, "category")                                  \
  X(Color, "color")                                            \
  X(Payload, "payload")                                        \
  X(Open, "open")                                              \
  X(Depth, "depth")                                            \
  X(RangeId, "range_id")                                       \
  X(ToolVersion, "tool_version")                               \
  X(Clock, "clock")                                            \
  X(DroppedRecords, "dropped_records")                         \
  X(IncompleteRecords, "incomplete_records")                   \
  X(ClampedSlices, "clamped_slices")                           \
  X(Flows, "flows")
// clang-format on

enum class Arg : uint32_t {
  None = 0,
#define PFTRACE_ARG_ENUM(id, name) id,
  PFTRACE_ARGS(PFTRACE_ARG_ENUM)
#undef PFTRACE_ARG_ENUM
      Count
};
constexpr const char* kArgNames[] = {"",
#define PFTRACE_ARG_NAME(id, name) name,
                                     PFTRACE_ARGS(PFTRACE_ARG_NAME)
#undef PFTRACE_ARG_NAME
};
constexpr uint32_t kArgCount = static_cast<uint32_t>(Arg::Count);
static_assert(sizeof(kArgNames) / sizeof(kArgNames[0]) == kArgCount);

// ---- Text -----------------------------------------------------------------------

// The length of the valid UTF-8 sequence at `p`, or 0 with *bad set to the
// length of its longest valid prefix (at least 1): the "maximal subpart"
// that the JSON exporter also replaces with one U+FFFD (Unicode 3.9).
size_t utf8Sequence(const unsigned char* p, const unsigned char* end, size_t* bad) {
  const unsigned char lead = p[0];
  if (lead < 0x80) return 1;
  size_t continuation;
  unsigned char low = 0x80, high = 0xBF;  // bounds of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuation = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    continuation = 2;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    continuation = 3;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
  } else {
    *bad = 1;
    return 0;
  }
  size_t i = 1;
  for (; i <= continuation && p + i < end; ++i) {
    const unsigned char b = p[i];
    if (i == 1 ? (b < low || b > high) : (b < 0x80 || b > 0xBF)) break;
  }
  if (i > continuation) return i;
  *bad = i;
  return 0;
}

// `s` as valid UTF-8 (protobuf strings must be): each invalid sequence
// becomes U+FFFD, exactly as in the JSON exporter's output.
std::string validUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    size_t bad = 0;
    const size_t n = utf8Sequence(p, end, &bad);
    if (n != 0) {
      out.append(reinterpret_cast<const char*>(p), n);
      p += n;
    } else {
      out += "\xEF\xBF\xBD";
      p += bad;
    }
  }
  return out;
}

bool isDriver(const ApiRecord& r) { return r.domain == static_cast<uint8_t>(ApiDomain::Driver); }

// ---- Tracks ---------------------------------------------------------------------

enum class TrackKind : uint8_t { HostThread, Overhead, NvtxRange, Stream, Sync };

struct Track {
  TrackKind kind;
  uint32_t pid;     // host pid, or the GPU's gpuProcessId
  uint32_t id;      // tid, stream id, context id; for NvtxRange the range name's StringId
  uint32_t device;  // of a GPU track (Stream, Sync)
  uint32_t lane;    // of an NvtxRange track
  uint64_t uuid = 0;
  size_t first = 0;  // its slices: slices_[first, first + count)
  size_t count = 0;
  size_t firstInstant = 0;  // its instants: instants_[firstInstant, firstInstant + instantCount)
  size_t instantCount = 0;
};

// An instant on a track: an NVTX mark, or a start/end range that ended where it began.
struct Instant {
  uint64_t ts;
  uint32_t nvtx;  // index of the NVTX record
};

// Where a track is in writing its events out.
struct Cursor {
  size_t slice = 0, sliceEnd = 0;
  size_t instant = 0, instantEnd = 0;
  std::vector<uint64_t> open;  // ends of the slices begun and not yet ended, innermost last
};

enum Phase : uint8_t { kPhaseEnd = 0, kPhaseInstant = 1, kPhaseBegin = 2, kPhaseNone = 3 };

// The next event of a track: at equal timestamps ends come first (so a slice
// ending where the next begins closes before it), then instants, then begins;
// across tracks the lower track index (host tracks first, so a launch call
// begins before the GPU work it launched at the same nanosecond). The order
// is that of one 128-bit key: timestamp, phase, track.
struct NextEvent {
  unsigned __int128 key;
  uint64_t ts() const { return static_cast<uint64_t>(key >> 64); }
  uint8_t phase() const { return static_cast<uint8_t>(key >> 32); }
  uint32_t track() const { return static_cast<uint32_t>(key); }
  static NextEvent of(uint64_t ts, uint8_t phase, uint32_t track) {
    return {static_cast<unsigned __int128>(ts) << 64 | uint64_t{phase} << 32 | track};
  }
};
struct After {
  bool operator()(const NextEvent& a, const NextEvent& b) const { return a.key > b.key; }
};

struct Dim3Key {
  int64_t x, y, z;
  bool operator==(const Dim3Key& o) const { return x == o.x && y == o.y && z == o.z; }
};
struct Dim3Hash {
  size_t operator()(const Dim3Key& k) const {
    uint64_t h = static_cast<uint64_t>(k.x) * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<uint64_t>(k.y) + 0x7F4A7C15ull + (h << 6) + (h >> 2);
    h ^= static_cast<uint64_t>(k.z) + 0x9E3779B9ull + (h << 6) + (h >> 2);
    return static_cast<size_t>(h);
  }
};

class PerfettoWriter {
 public:
  PerfettoWriter(const Trace& trace, std::ostream& out)
      : trace_(trace),
        out_(out),
        api_(trace.store.records<ApiRecord>()),
        nvtx_(trace.store.records<NvtxRecord>()),
        kernels_(trace.store.records<KernelRecord>()),
        memcpys_(trace.store.records<MemcpyRecord>()),
        memsets_(trace.store.records<MemsetRecord>()),
        syncs_(trace.store.records<SyncRecord>()),
        overheads_(trace.store.records<OverheadRecord>()),
        launches_(api_),
        hostPid_(trace.meta.pid) {
    b_.reserve(kFlushBytes + (64 << 10));
    for (const ContextInfo& c : trace.contexts) contextDevice_[c.contextId] = c.deviceId;
    const size_t strings = trace.strings.size();
    rawNameIid_.assign(strings, 0);
    kernelNameIid_.assign(strings, 0);
    stringValueIid_.assign(strings, 0);
  }

  PerfettoExportStats write() {
    scanRecords();
    layOutTracks();
    planFlows();
    writeFirstPacket();
    writeTrackDescriptors();
    writeMetadataEvent();
    writeEvents();
    flush();
    stats_.clamped = clamped_;
    stats_.incomplete = incomplete_;
    return stats_;
  }

 private:
  // ---- Planning ------------------------------------------------------------------

  // Counts the records that cannot be drawn, and picks the clock's
  // reference (track_layout.h), so that every delta is positive.
  void scanRecords() {
    const TimelineBase scan = scanTimeline(trace_);
    base_ = scan.base;
    incomplete_ = scan.incomplete;
    lastTs_ = base_;
  }

  uint32_t track(TrackKind kind, uint32_t pid, uint32_t id, uint32_t device, uint32_t lane = 0) {
    // The key needs no pid: it follows from the kind and the device. Only
    // NVTX range tracks have lanes, and they are not on a device.
    const uint64_t key = uint64_t{static_cast<uint8_t>(kind)} << 56 |
                         uint64_t{(device | lane) & 0xFFFFFFu} << 32 | id;
    // Records mostly cycle through a few tracks: a small direct-mapped cache
    // in front of the map saves most lookups.
    TrackCacheEntry& cached = trackCache_[(key * 0x9E3779B97F4A7C15ull) >> 58];
    if (cached.valid && cached.key == key) return cached.index;
    const auto [it, added] = trackIndex_.try_emplace(key, static_cast<uint32_t>(tracks_.size()));
    if (added) tracks_.push_back(Track{kind, pid, id, device, lane});
    cached = {key, it->second, true};
    return it->second;
  }
  // Perfetto reads tid 0 as "the process's main thread"; so does the JSON exporter.
  uint32_t hostThreadTrack(uint32_t tid) {
    return track(TrackKind::HostThread, hostPid_, tid == 0 ? hostPid_ : tid, 0);
  }
  uint32_t streamTrack(uint32_t device, uint32_t stream) {
    return track(TrackKind::Stream, gpuProcessId(hostPid_, device), stream, device);
  }
  uint32_t syncTrack(uint32_t context) {
    const auto it = contextDevice_.find(context);
    const uint32_t device = it == contextDevice_.end() ? 0 : it->second;
    return track(TrackKind::Sync, gpuProcessId(hostPid_, device), context, device);
  }

  // NVTX start/end ranges need not nest, so each goes on a track of its own
  // name with no range open over it: ranges of one name are given the
  // fewest such lanes (interval partitioning: the lane that freed up first,
  // if free by the range's start). Lanes of one name are same-named sibling
  // tracks, which Perfetto shows as one track.
  void assignNvtxLanes() {
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
      nvtxTrack_[ranges[k]] = track(TrackKind::NvtxRange, hostPid_, r.message, 0, lane);
    }
  }

  // Calls f(track, slice) for every record drawn as a slice.
  template <typename F>
  void forEachSlice(F&& f) {
    auto slice = [](const auto& r, size_t i, SliceSource source, uint16_t tie = 0) {
      return Slice{r.start, r.end, static_cast<uint32_t>(i), tie, source, 0};
    };
    for (size_t i = 0; i < api_.size(); ++i) {
      const ApiRecord& r = api_[i];
      if (!drawable(r.start, r.end)) continue;
      const auto source = isDriver(r) ? SliceSource::ApiDriver : SliceSource::ApiRuntime;
      f(hostThreadTrack(r.threadId), slice(r, i, source));
    }
    for (size_t i = 0; i < nvtx_.size(); ++i) {
      const NvtxRecord& r = nvtx_[i];
      if (!drawable(r.start, r.end)) continue;
      if (r.type == static_cast<uint8_t>(NvtxType::PushPop)) {
        f(hostThreadTrack(r.threadId), slice(r, i, SliceSource::Nvtx, r.depth));
      } else if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && r.end != r.start) {
        f(nvtxTrack_[i], slice(r, i, SliceSource::Nvtx));
      }
    }
    for (size_t i = 0; i < kernels_.size(); ++i) {
      const KernelRecord& r = kernels_[i];
      if (drawable(r.start, r.end))
        f(streamTrack(r.deviceId, r.streamId), slice(r, i, SliceSource::Kernel));
    }
    for (size_t i = 0; i < memcpys_.size(); ++i) {
      const MemcpyRecord& r = memcpys_[i];
      if (drawable(r.start, r.end))
        f(streamTrack(r.deviceId, r.streamId), slice(r, i, SliceSource::Memcpy));
    }
    for (size_t i = 0; i < memsets_.size(); ++i) {
      const MemsetRecord& r = memsets_[i];
      if (drawable(r.start, r.end))
        f(streamTrack(r.deviceId, r.streamId), slice(r, i, SliceSource::Memset));
    }
    for (size_t i = 0; i < syncs_.size(); ++i) {
      const SyncRecord& r = syncs_[i];
      if (drawable(r.start, r.end)) f(syncTrack(r.contextId), slice(r, i, SliceSource::Sync));
    }
    for (size_t i = 0; i < overheads_.size(); ++i) {
      const OverheadRecord& r = overheads_[i];
      if (drawable(r.start, r.end))
        f(track(TrackKind::Overhead, hostPid_, kOverheadTid, 0),
          slice(r, i, SliceSource::Overhead));
    }
  }

  // Calls f(track, instant) for every NVTX mark and empty start/end range.
  template <typename F>
  void forEachInstant(F&& f) {
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

  // Groups slices and instants by track in two passes (count, then place),
  // lays out each track as the JSON exporter does, and orders the tracks:
  // host process first (threads by tid, then overhead, then NVTX ranges),
  // then each GPU (streams, then syncs). Their uuids follow that order.
  void layOutTracks() {
    assignNvtxLanes();
    forEachSlice([&](uint32_t t, const Slice&) { ++tracks_[t].count; });
    forEachInstant([&](uint32_t t, const Instant&) { ++tracks_[t].instantCount; });
    // Threads that only made marks or start/end ranges still get a named track.
    nvtx_.forEach([&](const NvtxRecord& r) {
      if (r.type == static_cast<uint8_t>(NvtxType::PushPop) || !drawable(r.start, r.end)) return;
      hostThreadTrack(r.threadId);
      if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && r.endThreadId != 0)
        hostThreadTrack(r.endThreadId);
    });

    // Final order first, so that slices are placed once.
    std::vector<uint32_t> order(tracks_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    auto isGpu = [](const Track& t) {
      return t.kind == TrackKind::Stream || t.kind == TrackKind::Sync;
    };
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
    for (uint32_t& t : nvtxTrack_) t = newIndex[t];
    for (auto& [key, index] : trackIndex_) index = newIndex[index];
    for (TrackCacheEntry& e : trackCache_)
      if (e.valid) e.index = newIndex[e.index];

    size_t slices = 0, instants = 0;
    for (Track& t : tracks_) {
      t.first = slices;
      slices += t.count;
      t.count = 0;
      t.firstInstant = instants;
      instants += t.instantCount;
      t.instantCount = 0;
    }
    slices_.resize(slices);
    instants_.resize(instants);
    forEachSlice([&](uint32_t t, const Slice& s) {
      Track& track = tracks_[t];
      slices_[track.first + track.count++] = s;
    });
    forEachInstant([&](uint32_t t, const Instant& i) {
      Track& track = tracks_[t];
      instants_[track.firstInstant + track.instantCount++] = i;
    });
    for (Track& t : tracks_) {
      const auto policy =
          t.kind == TrackKind::Stream ? OverlapPolicy::MoveStart : OverlapPolicy::ClampEnd;
      clamped_ += layoutTrack(slices_.data() + t.first, slices_.data() + t.first + t.count, policy);
      std::stable_sort(
          instants_.begin() + static_cast<std::ptrdiff_t>(t.firstInstant),
          instants_.begin() + static_cast<std::ptrdiff_t>(t.firstInstant + t.instantCount),
          [](const Instant& a, const Instant& b) { return a.ts < b.ts; });
    }

    // Uuids: the host process, its tracks, then each GPU process and its tracks.
    uint64_t uuid = kHostProcessUuid;
    uint32_t gpu = UINT32_MAX;
    for (Track& t : tracks_) {
      if (isGpu(t) && t.device != gpu) {
        gpu = t.device;
        gpuProcesses_.push_back({gpu, ++uuid});
      }
      t.uuid = ++uuid;
    }
  }

  // Gives each (launch call, GPU record) pair with both ends drawn a flow
  // id, and the call the list of ids of all it launched.
  void planFlows() {
    std::vector<uint32_t> count(api_.size() + 1, 0);
    auto source = [&](const auto& r) {
      return drawable(r.start, r.end) ? launches_.find(r.correlationId) : LaunchIndex::kNone;
    };
    auto countOne = [&](const auto& r) {
      const uint32_t s = source(r);
      if (s != LaunchIndex::kNone) ++count[s];
    };
    kernels_.forEach(countOne);
    memcpys_.forEach(countOne);
    memsets_.forEach(countOne);
    apiFlowFirst_.assign(api_.size() + 1, 0);
    for (size_t i = 0; i < api_.size(); ++i) apiFlowFirst_[i + 1] = apiFlowFirst_[i] + count[i];
    apiFlowIds_.resize(apiFlowFirst_[api_.size()]);
    std::fill(count.begin(), count.end(), 0);
    uint64_t next = uint64_t{hostPid_} << 32;
    auto assign = [&](const auto& records, std::vector<uint64_t>& ids) {
      ids.assign(records.size(), 0);
      for (size_t i = 0; i < records.size(); ++i) {
        const uint32_t s = source(records[i]);
        if (s == LaunchIndex::kNone) continue;
        ids[i] = ++next;
        apiFlowIds_[apiFlowFirst_[s] + count[s]++] = ids[i];
      }
    };
    assign(kernels_, kernelFlow_);
    assign(memcpys_, memcpyFlow_);
    assign(memsets_, memsetFlow_);
    stats_.flows = apiFlowIds_.size();
  }

  // ---- Packets -------------------------------------------------------------------

  // Sequence flags 1|2 with the categories the trace uses; the sequence's
  // default clock; the ClockSnapshot that defines it (see the top of the file).
  void writeFirstPacket() {
    internCategory(kCatMetadata);
    auto uses = [&](Category c, bool used) {
      if (used) internCategory(c);
    };
    bool runtime = false, driver = false;
    api_.forEach([&](const ApiRecord& r) { (isDriver(r) ? driver : runtime) = true; });
    uses(kCatRuntime, runtime);
    uses(kCatDriver, driver);
    uses(kCatKernel, !kernels_.empty());
    uses(kCatMemcpy, !memcpys_.empty());
    uses(kCatMemset, !memsets_.empty());
    uses(kCatNvtx, !nvtx_.empty());
    uses(kCatSync, !syncs_.empty());
    uses(kCatOverhead, !overheads_.empty());

    const TraceMetadata& m = trace_.meta;
    uint64_t realtime = base_;
    if (m.startRealtimeNs != 0 && m.startTimestampNs != 0)
      realtime = base_ + (m.startRealtimeNs - m.startTimestampNs);  // modulo 2^64: either sign

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
    p.varintField(clock_field::kTimestamp, realtime);
    p.endNestedCompact(clock);
    p.varintField(clock_field::kPrimaryTraceClock, kClockRealtime);
    p.endNestedCompact(snapshot);
    p.varintField(packet_field::kSequenceId, kSequenceId);
    if (!interned_.empty()) {
      p.bytesField(kInternedDataField, interned_.view());
      interned_.clear();
    }
    p.varintField(packet_field::kSequenceFlags, kIncrementalStateCleared | kNeedsIncrementalState);
    auto defaults = p.beginNested(packet_field::kTracePacketDefaults);
    p.varintField(kDefaultsTimestampClockId, kClockTrace);
    p.endNestedCompact(defaults);
    writePacket(p);
  }

  // A packet of `p`'s fields.
  void writePacket(const ProtoWriter& p) {
    b_.byte(kTagPacket);
    b_.varint(p.size());
    b_.bytes(p.view());
    ++stats_.packets;
    if (b_.size() >= kFlushBytes) flush();
  }

  // A TrackDescriptor packet. Its timestamp (delta 0: the clock's reference)
  // sorts it before every event, as Perfetto recommends for process and
  // thread descriptors.
  template <typename F>
  void descriptorPacket(F&& fill) {
    ProtoWriter& p = scratch_;
    p.clear();
    p.byte(kTagTimestamp);
    p.byte(0);
    p.varintField(packet_field::kSequenceId, kSequenceId);
    p.varintField(packet_field::kSequenceFlags, kNeedsIncrementalState);
    auto d = p.beginNested(packet_field::kTrackDescriptor);
    fill(p);
    p.endNestedCompact(d);
    writePacket(p);
  }

  void writeTrackDescriptors() {
    const TraceMetadata& m = trace_.meta;
    descriptorPacket([&](ProtoWriter& p) {
      p.varintField(track_field::kUuid, kHostProcessUuid);
      auto process = p.beginNested(track_field::kProcess);
      p.varintField(track_field::kProcessPid, hostPid_);
      if (!m.commandLine.empty())
        p.bytesField(track_field::kProcessCmdline, validUtf8(m.commandLine));
      p.bytesField(track_field::kProcessName, validUtf8(hostProcessName(trace_)));
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
          p.varintField(track_field::kProcessPid, gpuProcessId(hostPid_, device));
          p.bytesField(track_field::kProcessName, validUtf8(gpuProcessName(trace_, device)));
          p.endNestedCompact(process);
          // Streams in the order of their ids, not of their names ("Stream 13" < "Stream 7").
          p.varintField(track_field::kChildOrdering, track_field::kChildOrderingExplicit);
        });
      }
      descriptorPacket([&](ProtoWriter& p) { describe(p, t); });
    }
  }

  uint64_t gpuProcessUuid(uint32_t device) const {
    for (const auto& [d, uuid] : gpuProcesses_)
      if (d == device) return uuid;
    return 0;
  }

  void describe(ProtoWriter& p, const Track& t) {
    p.varintField(track_field::kUuid, t.uuid);
    switch (t.kind) {
      case TrackKind::HostThread: {
        auto thread = p.beginNested(track_field::kThread);
        p.varintField(track_field::kThreadPid, t.pid);
        p.varintField(track_field::kThreadTid, t.id);
        p.bytesField(track_field::kThreadName, validUtf8(hostThreadName(trace_, t.id)));
        p.endNestedCompact(thread);
        p.varintField(track_field::kParentUuid, kHostProcessUuid);
        return;
      }
      case TrackKind::Overhead:
        p.bytesField(track_field::kName, kOverheadTrackName);
        p.varintField(track_field::kParentUuid, kHostProcessUuid);
        p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
        return;
      case TrackKind::NvtxRange:
        // Lanes of one name keep the default merge (by name): one track in the UI.
        p.bytesField(track_field::kName, validUtf8(trace_.strings.get(t.id)));
        p.varintField(track_field::kParentUuid, kHostProcessUuid);
        return;
      case TrackKind::Stream:
        // NVTX may give two streams one name: they must still not merge.
        p.bytesField(track_field::kName, validUtf8(streamTrackName(trace_, t.id)));
        p.varintField(track_field::kParentUuid, gpuProcessUuid(t.device));
        p.varintField(track_field::kSiblingOrderRank, t.id & 0x7FFFFFFFu);
        p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
        return;
      case TrackKind::Sync:
        p.bytesField(track_field::kName, syncTrackName(t.id));
        p.varintField(track_field::kParentUuid, gpuProcessUuid(t.device));
        p.varintField(track_field::kSiblingOrderRank, syncTrackTid(t.id) & 0x7FFFFFFFu);
        p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
        return;
    }
  }

  // ---- Interning -----------------------------------------------------------------

  // An interned entry {iid, name} of InternedData field `field`, for the next packet.
  void intern(uint32_t field, uint64_t iid, std::string_view name) {
    const size_t len = 1 + varintSize(iid) + bytesFieldSize(2, name.size());
    interned_.tag(field, WireType::LengthDelimited);
    interned_.varint(len);
    interned_.byte(0x08);
    interned_.varint(iid);
    interned_.bytesField(2, name);
  }
  void internCategory(Category c) {
    if (categoryInterned_[c]) return;
    categoryInterned_[c] = true;
    intern(kInternedCategories, c, kCategoryNames[c]);
  }
  uint32_t argIid(Arg a) {
    const auto iid = static_cast<uint32_t>(a);
    if (!argInterned_[iid]) {
      argInterned_[iid] = true;
      intern(kInternedAnnotationNames, iid, kArgNames[iid]);
    }
    return iid;
  }
  uint32_t dynamicArgIid(const std::string& name) {
    const auto [it, added] = dynamicArgIid_.try_emplace(name, 0);
    if (added) {
      it->second = nextDynamicArgIid_++;
      intern(kInternedAnnotationNames, it->second, validUtf8(name));
    }
    return it->second;
  }

  static uint32_t& slot(std::vector<uint32_t>& table, StringId id) {
    if (id >= table.size()) table.resize(size_t{id} + 1, 0);
    return table[id];
  }
  uint32_t newName(std::string_view name) {
    const uint32_t iid = nextNameIid_++;
    intern(kInternedEventNames, iid, name);
    return iid;
  }
  uint32_t newStringValue(std::string_view value) {
    const uint32_t iid = nextValueIid_++;
    intern(kInternedAnnotationStrings, iid, value);
    return iid;
  }
  // Event names.
  uint32_t rawNameIid(StringId id) {
    uint32_t& iid = slot(rawNameIid_, id);
    if (iid == 0) iid = newName(validUtf8(trace_.strings.get(id)));
    return iid;
  }
  uint32_t kernelNameIid(StringId id) {
    uint32_t& iid = slot(kernelNameIid_, id);
    if (iid == 0) iid = newName(validUtf8(demangle(trace_.strings.get(id))));
    return iid;
  }
  // A name made of our own words, made only the first time its key is seen.
  template <typename F>
  uint32_t composedNameIid(uint32_t key, F&& makeName) {
    const auto [it, added] = composedNameIid_.try_emplace(key, 0);
    if (added) it->second = newName(makeName());
    return it->second;
  }
  // String argument values.
  uint32_t stringValueIid(StringId id) {
    uint32_t& iid = slot(stringValueIid_, id);
    if (iid == 0) iid = newStringValue(validUtf8(trace_.strings.get(id)));
    return iid;
  }
  uint32_t enumValueIid(uint32_t& iid, const char* text) {
    if (iid == 0) iid = newStringValue(text);
    return iid;
  }
  uint32_t textValueIid(const std::string& text) {
    const auto [it, added] = textValueIid_.try_emplace(text, 0);
    if (added) it->second = newStringValue(text);
    return it->second;
  }
  // "[x,y,z]", as the JSON exporter writes grid and block. Launches repeat a
  // few shapes: a small direct-mapped cache saves most map lookups.
  struct Dim3Cache {
    std::unordered_map<Dim3Key, uint32_t, Dim3Hash> iids;
    struct Entry {
      Dim3Key key;
      uint32_t iid;
    } recent[16] = {};
  };
  uint32_t dim3Iid(Dim3Cache& cache, int64_t x, int64_t y, int64_t z) {
    const Dim3Key key{x, y, z};
    auto& recent = cache.recent[Dim3Hash()(key) >> 4 & 15];
    if (recent.iid != 0 && recent.key == key) return recent.iid;
    const auto [it, added] = cache.iids.try_emplace(key, 0);
    if (added) {
      it->second = newStringValue("[" + std::to_string(x) + "," + std::to_string(y) + "," +
                                  std::to_string(z) + "]");
    }
    recent = {key, it->second};
    return it->second;
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
  void argUint(Arg a, uint64_t v) { argUint(argIid(a), v); }
  void argInt(Arg a, int64_t v) {
    const auto bits = static_cast<uint64_t>(v);
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), argIid(a), 1 + varintSize(bits));
    *p++ = kTagIntValue;
    te_.setTail(putVarint(p, bits));
  }
  void argBool(Arg a, bool v) {
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), argIid(a), 2);
    *p++ = kTagBoolValue;
    *p++ = v ? 1 : 0;
    te_.setTail(p);
  }
  void argDouble(Arg a, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), argIid(a), 9);
    *p++ = kTagDoubleValue;
    te_.setTail(putFixed64(p, bits));
  }
  void argStringIid(Arg a, uint32_t valueIid) {
    uint8_t* p = annotationHead(te_.tail(kMaxScalarArg), argIid(a), 2 + varintSize(valueIid));
    *p++ = kTagStringValueIid[0];
    *p++ = kTagStringValueIid[1];
    te_.setTail(putVarint(p, valueIid));
  }
  // A string written in place (the trace's description only: nothing repeats there).
  void argString(Arg a, std::string_view v) {
    const uint32_t name = argIid(a);
    const size_t len = 1 + varintSize(name) + 1 + varintSize(v.size()) + v.size();
    te_.byte(kTagDebugAnnotation);
    te_.varint(len);
    te_.byte(kTagAnnotationNameIid);
    te_.varint(name);
    te_.byte(kTagStringValue);
    te_.varint(v.size());
    te_.bytes(v);
  }
  // How much layoutTrack cut off the slice to fit it on its track.
  void clampArg(const Slice& s, uint64_t start, uint64_t end) {
    if (s.adjusted) argUint(Arg::ClampedNs, (end - start) - (s.end - s.start));
  }
  void graphArgs(uint32_t graphId, uint64_t graphNodeId) {
    if (graphId != 0) argUint(Arg::GraphId, graphId);
    if (graphNodeId != 0) argUint(Arg::GraphNodeId, graphNodeId);
  }

  // Starts the TrackEvent of the next packet with its category.
  void beginEvent(Category c) {
    te_.clear();
    uint8_t* p = te_.tail(2);
    p[0] = kTagCategoryIid;
    p[1] = c;  // < 128
    te_.setTail(p + 2);
  }
  // Type, name and track: fields 9, 10 and 11, after the annotations (4).
  void eventHead(uint64_t type, uint32_t nameIid, uint64_t trackUuid) {
    uint8_t* p = te_.tail(2 + 1 + 5 + 1 + 10);
    *p++ = kTagType;
    *p++ = static_cast<uint8_t>(type);
    *p++ = kTagNameIid;
    p = putVarint(p, nameIid);
    *p++ = kTagTrackUuid;
    te_.setTail(putVarint(p, trackUuid));
  }
  void terminatingFlow(uint64_t flowId) {
    if (flowId != 0) te_.fixed64Field(kTerminatingFlowIds, flowId);
  }

  // The packet of the event in te_ at `ts`, with the interned data it needs:
  // fields 8, 10, 11, 12 and 13 in order, lengths computed first.
  void finishEvent(uint64_t ts) {
    const uint64_t delta = ts - lastTs_;
    lastTs_ = ts;
    const size_t teLen = te_.size();
    const size_t internedLen = interned_.size();
    const size_t body = 1 + varintSize(delta) + 2 + 1 + varintSize(teLen) + teLen +
                        (internedLen != 0 ? 1 + varintSize(internedLen) + internedLen : 0) + 2;
    uint8_t* p = b_.tail(1 + 10 + body);
    *p++ = kTagPacket;
    p = putVarint(p, body);
    *p++ = kTagTimestamp;
    p = putVarint(p, delta);
    *p++ = kTagSequenceId;
    *p++ = kSequenceId;
    *p++ = kTagTrackEvent;
    p = putVarint(p, teLen);
    std::memcpy(p, te_.data(), teLen);
    p += teLen;
    if (internedLen != 0) {
      *p++ = kTagInternedData;
      p = putVarint(p, internedLen);
      std::memcpy(p, interned_.data(), internedLen);
      p += internedLen;
      interned_.clear();
    }
    *p++ = kTagSequenceFlags;
    *p++ = kNeedsIncrementalState;
    b_.setTail(p);
    ++stats_.events;
    ++stats_.packets;
    if (b_.size() >= kFlushBytes) flush();
  }

  // SLICE_END: timestamp, sequence, {type, track}, flags.
  void writeEnd(uint64_t ts, uint64_t trackUuid) {
    const uint64_t delta = ts - lastTs_;
    lastTs_ = ts;
    const size_t teLen = 3 + varintSize(trackUuid);
    const size_t body = 1 + varintSize(delta) + 2 + 2 + teLen + 2;  // < 128: one length byte
    uint8_t* p = b_.tail(2 + body);
    *p++ = kTagPacket;
    *p++ = static_cast<uint8_t>(body);
    *p++ = kTagTimestamp;
    p = putVarint(p, delta);
    *p++ = kTagSequenceId;
    *p++ = kSequenceId;
    *p++ = kTagTrackEvent;
    *p++ = static_cast<uint8_t>(teLen);
    *p++ = kTagType;
    *p++ = kSliceEnd;
    *p++ = kTagTrackUuid;
    p = putVarint(p, trackUuid);
    *p++ = kTagSequenceFlags;
    *p++ = kNeedsIncrementalState;
    b_.setTail(p);
    ++stats_.events;
    ++stats_.packets;
    if (b_.size() >= kFlushBytes) flush();
  }

  void writeBegin(const Slice& s, const Track& t) {
    switch (s.source) {
      case SliceSource::ApiRuntime:
      case SliceSource::ApiDriver:
        return writeApi(s, t);
      case SliceSource::Nvtx:
        return writeNvtxRange(s, t);
      case SliceSource::Kernel:
        return writeKernel(s, t);
      case SliceSource::Memcpy:
        return writeMemcpy(s, t);
      case SliceSource::Memset:
        return writeMemset(s, t);
      case SliceSource::Sync:
        return writeSync(s, t);
      case SliceSource::Overhead:
        return writeOverhead(s, t);
    }
  }

  void writeApi(const Slice& s, const Track& t) {
    const ApiRecord& r = api_[s.index];
    const bool driver = isDriver(r);
    const uint32_t name = rawNameIid(r.name);
    beginEvent(driver ? kCatDriver : kCatRuntime);
    argUint(Arg::Correlation, r.correlationId);
    argUint(Arg::Cbid, r.cbid);
    argUint(Arg::ReturnValue, r.returnValue);
    argStringIid(Arg::Domain, driver ? enumValueIid(driverIid_, "driver")
                                     : enumValueIid(runtimeIid_, "runtime"));
    clampArg(s, r.start, r.end);
    eventHead(kSliceBegin, name, t.uuid);
    for (uint32_t i = apiFlowFirst_[s.index]; i < apiFlowFirst_[s.index + 1]; ++i)
      te_.fixed64Field(kFlowIds, apiFlowIds_[i]);
    finishEvent(s.start);
  }

  void writeKernel(const Slice& s, const Track& t) {
    const KernelRecord& k = kernels_[s.index];
    const uint32_t name = kernelNameIid(k.name);
    beginEvent(kCatKernel);
    argStringIid(Arg::MangledName, stringValueIid(k.name));
    argUint(Arg::Device, k.deviceId);
    argUint(Arg::Context, k.contextId);
    argUint(Arg::Stream, k.streamId);
    argUint(Arg::Correlation, k.correlationId);
    argStringIid(Arg::Grid, dim3Iid(grids_, k.gridX, k.gridY, k.gridZ));
    argStringIid(Arg::Block, dim3Iid(blocks_, k.blockX, k.blockY, k.blockZ));
    argUint(Arg::RegistersPerThread, k.registersPerThread);
    argInt(Arg::StaticSharedMemory, k.staticSharedMemory);
    argInt(Arg::DynamicSharedMemory, k.dynamicSharedMemory);
    graphArgs(k.graphId, k.graphNodeId);
    argStringIid(Arg::LaunchType,
                 enumValueIid(launchTypeIid_[k.launchType], launchTypeName(k.launchType)));
    if (k.isDeviceLaunched) argBool(Arg::DeviceLaunched, true);
    clampArg(s, k.start, k.end);
    eventHead(kSliceBegin, name, t.uuid);
    terminatingFlow(kernelFlow_[s.index]);
    finishEvent(s.start);
  }

  void writeMemcpy(const Slice& s, const Track& t) {
    const MemcpyRecord& m = memcpys_[s.index];
    const auto copyKind = static_cast<CopyKind>(m.copyKind);
    const char* kind = copyKindName(copyKind);
    const char* src = memoryKindName(static_cast<MemoryKind>(m.srcKind));
    const char* dst = memoryKindName(static_cast<MemoryKind>(m.dstKind));
    const uint32_t key = uint32_t{m.copyKind} << 16 | uint32_t{m.srcKind} << 8 | m.dstKind;
    const uint32_t name = composedNameIid(
        key, [&] { return std::string("Memcpy ") + kind + " (" + src + " -> " + dst + ")"; });
    beginEvent(kCatMemcpy);
    argUint(Arg::Bytes, m.bytes);
    argStringIid(Arg::CopyKind, enumValueIid(copyKindIid_[m.copyKind], kind));
    argStringIid(Arg::SrcKind, enumValueIid(memoryKindIid_[m.srcKind], src));
    argStringIid(Arg::DstKind, enumValueIid(memoryKindIid_[m.dstKind], dst));
    argBool(Arg::Async, (m.flags & kCopyFlagAsync) != 0);
    if (m.end > m.start)  // bytes per ns is GB/s
      argDouble(Arg::BandwidthGBps,
                static_cast<double>(m.bytes) / static_cast<double>(m.end - m.start));
    argUint(Arg::Stream, m.streamId);
    argUint(Arg::Device, m.deviceId);
    argUint(Arg::Context, m.contextId);
    argUint(Arg::Correlation, m.correlationId);
    if (copyKind == CopyKind::PtoP) {
      argUint(Arg::SrcDevice, m.srcDeviceId);
      argUint(Arg::DstDevice, m.dstDeviceId);
    }
    graphArgs(m.graphId, m.graphNodeId);
    clampArg(s, m.start, m.end);
    eventHead(kSliceBegin, name, t.uuid);
    terminatingFlow(memcpyFlow_[s.index]);
    finishEvent(s.start);
  }

  void writeMemset(const Slice& s, const Track& t) {
    const MemsetRecord& m = memsets_[s.index];
    const char* kind = memoryKindName(static_cast<MemoryKind>(m.memoryKind));
    const uint32_t name = composedNameIid(1u << 24 | m.memoryKind,
                                          [&] { return std::string("Memset (") + kind + ")"; });
    beginEvent(kCatMemset);
    argUint(Arg::Bytes, m.bytes);
    argUint(Arg::Value, m.value);
    argStringIid(Arg::MemoryKind, enumValueIid(memoryKindIid_[m.memoryKind], kind));
    argBool(Arg::Async, (m.flags & kCopyFlagAsync) != 0);
    argUint(Arg::Stream, m.streamId);
    argUint(Arg::Device, m.deviceId);
    argUint(Arg::Context, m.contextId);
    argUint(Arg::Correlation, m.correlationId);
    graphArgs(m.graphId, m.graphNodeId);
    clampArg(s, m.start, m.end);
    eventHead(kSliceBegin, name, t.uuid);
    terminatingFlow(memsetFlow_[s.index]);
    finishEvent(s.start);
  }

  void writeSync(const Slice& s, const Track& t) {
    const SyncRecord& r = syncs_[s.index];
    const uint32_t name = composedNameIid(2u << 24 | r.type, [&] {
      return std::string(syncTypeName(static_cast<SyncType>(r.type)));
    });
    beginEvent(kCatSync);
    argUint(Arg::Correlation, r.correlationId);
    argUint(Arg::Context, r.contextId);
    argUint(Arg::Device, t.device);
    if (r.streamId != kNotApplicable) argUint(Arg::Stream, r.streamId);
    if (r.eventId != kNotApplicable) argUint(Arg::Event, r.eventId);
    clampArg(s, r.start, r.end);
    eventHead(kSliceBegin, name, t.uuid);
    finishEvent(s.start);
  }

  void writeOverhead(const Slice& s, const Track& t) {
    const OverheadRecord& r = overheads_[s.index];
    const uint32_t name = rawNameIid(r.name);
    beginEvent(kCatOverhead);
    if (r.threadId != 0) argUint(Arg::Thread, r.threadId);
    if (r.deviceId != kNotApplicable) argUint(Arg::Device, r.deviceId);
    clampArg(s, r.start, r.end);
    eventHead(kSliceBegin, name, t.uuid);
    finishEvent(s.start);
  }

  void nvtxArgs(const NvtxRecord& r) {
    if (r.domain != kNoString) argStringIid(Arg::Domain, stringValueIid(r.domain));
    argUint(Arg::NvtxCategory, r.category);
    if (r.flags & kNvtxHasColor) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      std::string color = "#";
      for (int i = 0; i < 8; ++i) color += kHex[(r.color >> (28 - 4 * i)) & 0xf];
      argStringIid(Arg::Color, textValueIid(color));
    }
    // The payload's raw bits as the type NVTX was given; 32-bit payloads sit
    // in the low half, where NVTX's payload union puts them (little-endian).
    const auto low = static_cast<uint32_t>(r.payload);
    switch (static_cast<NvtxPayload>(r.payloadType)) {
      case NvtxPayload::U64:
        argUint(Arg::Payload, r.payload);
        break;
      case NvtxPayload::I64:
        argInt(Arg::Payload, static_cast<int64_t>(r.payload));
        break;
      case NvtxPayload::U32:
        argUint(Arg::Payload, low);
        break;
      case NvtxPayload::I32:
        argInt(Arg::Payload, static_cast<int32_t>(low));
        break;
      case NvtxPayload::Double: {
        double d;
        std::memcpy(&d, &r.payload, sizeof d);
        argDouble(Arg::Payload, d);
        break;
      }
      case NvtxPayload::Float: {
        float f;
        std::memcpy(&f, &low, sizeof f);
        argDouble(Arg::Payload, f);
        break;
      }
      case NvtxPayload::None:
        break;
    }
    if (r.flags & kNvtxOpen) argBool(Arg::Open, true);
  }

  // Push/pop ranges on their thread; start/end ranges on their lane.
  void writeNvtxRange(const Slice& s, const Track& t) {
    const NvtxRecord& r = nvtx_[s.index];
    const uint32_t name = rawNameIid(r.message);
    beginEvent(kCatNvtx);
    nvtxArgs(r);
    if (r.type == static_cast<uint8_t>(NvtxType::StartEnd)) {
      startEndArgs(r);
    } else {
      argUint(Arg::Depth, r.depth);
    }
    clampArg(s, r.start, r.end);
    eventHead(kSliceBegin, name, t.uuid);
    finishEvent(s.start);
  }
  void startEndArgs(const NvtxRecord& r) {
    argUint(Arg::RangeId, r.id);
    argUint(Arg::Thread, r.threadId);
    if (r.endThreadId != 0 && r.endThreadId != r.threadId) argUint(Arg::EndThread, r.endThreadId);
  }

  // Marks on their thread; empty start/end ranges on their lane.
  void writeInstant(const Instant& i, const Track& t) {
    const NvtxRecord& r = nvtx_[i.nvtx];
    const uint32_t name = rawNameIid(r.message);
    beginEvent(kCatNvtx);
    nvtxArgs(r);
    if (r.type == static_cast<uint8_t>(NvtxType::StartEnd)) startEndArgs(r);
    eventHead(kInstant, name, t.uuid);
    finishEvent(i.ts);
  }

  // What describes the trace, as the JSON exporter's metadata does: an
  // instant on the host process at the clock's reference.
  void writeMetadataEvent() {
    const TraceMetadata& m = trace_.meta;
    const uint32_t name = composedNameIid(3u << 24, [] { return std::string("cuptitrace"); });
    beginEvent(kCatMetadata);
    argString(Arg::ToolVersion, validUtf8(m.toolVersion));
    argString(Arg::Clock, validUtf8(m.clock));
    argUint(Arg::DroppedRecords, trace_.totalDropped());
    argUint(Arg::IncompleteRecords, incomplete_);
    argUint(Arg::ClampedSlices, clamped_);
    argUint(Arg::Flows, stats_.flows);
    for (const auto& [counter, value] : trace_.counters)
      argUint(dynamicArgIid("counters." + counter), value);
    eventHead(kInstant, name, kHostProcessUuid);
    finishEvent(base_);
  }

  // ---- The events in timestamp order ---------------------------------------------

  // The next event of track `t`, or false when it has none left.
  bool next(uint32_t t, NextEvent* e) const {
    const Cursor& c = cursors_[t];
    uint64_t ts = UINT64_MAX;
    uint8_t phase = kPhaseNone;
    if (!c.open.empty()) {
      ts = c.open.back();
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
    *e = NextEvent::of(ts, phase, t);
    return phase != kPhaseNone;
  }

  void emit(const NextEvent& e) {
    const uint32_t track = e.track();
    Cursor& c = cursors_[track];
    const Track& t = tracks_[track];
    switch (e.phase()) {
      case kPhaseEnd:
        c.open.pop_back();
        writeEnd(e.ts(), t.uuid);
        break;
      case kPhaseInstant:
        writeInstant(instants_[c.instant++], t);
        break;
      case kPhaseBegin: {
        const Slice& s = slices_[c.slice++];
        writeBegin(s, t);
        c.open.push_back(s.end);
        break;
      }
      default:
        break;
    }
  }

  // Merges the tracks' events (each track's already in order) by timestamp.
  // The track just written goes on while its next event comes before every
  // other track's, which saves the heap most of its work on busy tracks.
  void writeEvents() {
    cursors_.resize(tracks_.size());
    std::priority_queue<NextEvent, std::vector<NextEvent>, After> heap;
    for (uint32_t i = 0; i < tracks_.size(); ++i) {
      const Track& t = tracks_[i];
      Cursor& c = cursors_[i];
      c.slice = t.first;
      c.sliceEnd = t.first + t.count;
      c.instant = t.firstInstant;
      c.instantEnd = t.firstInstant + t.instantCount;
      NextEvent e;
      if (next(i, &e)) heap.push(e);
    }
    while (!heap.empty()) {
      NextEvent e = heap.top();
      heap.pop();
      for (;;) {
        emit(e);
        if (!next(e.track(), &e)) break;
        if (!heap.empty() && heap.top().key < e.key) {
          heap.push(e);
          break;
        }
      }
    }
  }

  void flush() {
    out_.write(reinterpret_cast<const char*>(b_.data()), static_cast<std::streamsize>(b_.size()));
    stats_.bytes += b_.size();
    b_.clear();
  }

  const Trace& trace_;
  std::ostream& out_;
  const ChunkedVector<ApiRecord>& api_;
  const ChunkedVector<NvtxRecord>& nvtx_;
  const ChunkedVector<KernelRecord>& kernels_;
  const ChunkedVector<MemcpyRecord>& memcpys_;
  const ChunkedVector<MemsetRecord>& memsets_;
  const ChunkedVector<SyncRecord>& syncs_;
  const ChunkedVector<OverheadRecord>& overheads_;
  const LaunchIndex launches_;
  const uint32_t hostPid_;

  uint64_t base_ = 0;    // the clock's reference: the first packet's timestamp
  uint64_t lastTs_ = 0;  // timestamp of the last packet written (deltas are from it)
  uint64_t incomplete_ = 0;
  uint64_t clamped_ = 0;

  std::vector<Track> tracks_;
  std::unordered_map<uint64_t, uint32_t> trackIndex_;  // (kind, pid, id, lane) -> tracks_ index
  struct TrackCacheEntry {
    uint64_t key;
    uint32_t index;
    bool valid;
  };
  TrackCacheEntry trackCache_[64] = {};
  std::vector<std::pair<uint32_t, uint64_t>> gpuProcesses_;  // (device, uuid), in uuid order
  std::unordered_map<uint32_t, uint32_t> contextDevice_;
  std::vector<uint32_t> nvtxTrack_;  // by NVTX record: the lane track of a start/end range
  std::vector<Slice> slices_;
  std::vector<Instant> instants_;
  std::vector<Cursor> cursors_;

  // Flows: ids of the GPU records each API record launched, and each GPU record's id (0: none).
  std::vector<uint32_t> apiFlowFirst_;  // apiFlowIds_[apiFlowFirst_[i], apiFlowFirst_[i + 1])
  std::vector<uint64_t> apiFlowIds_;
  std::vector<uint64_t> kernelFlow_, memcpyFlow_, memsetFlow_;

  // Interning state; iid 0 means "not yet".
  bool categoryInterned_[kCategoryCount] = {};
  bool argInterned_[kArgCount] = {};
  std::unordered_map<std::string, uint32_t> dynamicArgIid_;
  uint32_t nextDynamicArgIid_ = kArgCount;
  uint32_t nextNameIid_ = 1;
  uint32_t nextValueIid_ = 1;
  std::vector<uint32_t> rawNameIid_, kernelNameIid_, stringValueIid_;  // by StringId
  std::unordered_map<uint32_t, uint32_t> composedNameIid_;             // memcpy, memset, sync names
  std::unordered_map<std::string, uint32_t> textValueIid_;             // colors
  uint32_t launchTypeIid_[256] = {}, copyKindIid_[256] = {}, memoryKindIid_[256] = {};
  uint32_t runtimeIid_ = 0, driverIid_ = 0;
  Dim3Cache grids_, blocks_;

  ProtoWriter b_;         // the output not yet handed to the stream
  ProtoWriter te_;        // the TrackEvent of the packet being written
  ProtoWriter interned_;  // InternedData entries for the packet being written
  ProtoWriter scratch_;   // fields of a packet written whole (first packet, descriptors)
  PerfettoExportStats stats_;
};

}  // namespace

PerfettoExportStats writePerfettoProto(const Trace& trace, std::ostream& out) {
  return PerfettoWriter(trace, out).write();
}

}  // namespace cuptitrace
