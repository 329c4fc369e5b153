// Chrome Trace Event JSON, laid out as DESIGN.md "What a user sees in
// Perfetto" describes:
//
// - The host process (pid = the traced pid): one track per OS thread, with
//   CUDA runtime and driver calls (X, cat "cuda_runtime"/"cuda_driver") and
//   NVTX push/pop ranges (X, cat "nvtx") nested on it, NVTX marks as thread
//   instants, NVTX start/end ranges as async b/e pairs (they need not nest),
//   and a "CUPTI overhead" track.
// - One process per GPU used (pid = gpuProcessId): a track per CUDA stream
//   (tid = stream id) with kernels, copies and sets, and a track per context
//   with synchronization.
// - An arrow from each launching call to the GPU work it launched, in the
//   "v2" encoding: "bind_id" with "flow_out" on the call's X event and
//   "flow_in" on the GPU slice's. Perfetto's JSON parser
//   (src/trace_processor/importers/json/json_trace_parser*.cc) binds a v2
//   flow to the very slice it has just opened for that event, while a v1
//   "s"/"f" event binds to whatever slice is innermost open on its track when
//   it is processed: at equal timestamps that can be a driver call nested in
//   the runtime call, an NVTX range, or the previous kernel on the stream.
//   bind_id is the correlation id: one source per id, unique in the file, and
//   since a flow_in does not close the flow, every kernel of a graph launch
//   gets its arrow from the one cudaGraphLaunch.
//
// Times are microseconds relative to the base timestamp, with three decimals
// so that every nanosecond survives Perfetto's reading (which rounds to ns).
// A record without a start, or whose end is missing (0) or before its start,
// is not drawn and is counted in metadata "incomplete_records". The events
// are formatted into one buffer and handed to the stream in large blocks.
#include "exporters/chrome_json.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/demangle.h"
#include "exporters/json_text.h"
#include "exporters/track_layout.h"

namespace cuptitrace {
namespace {

// Bytes gathered before one write to the stream.
constexpr size_t kFlushBytes = size_t{1} << 20;
// Ids CUPTI uses for "not applicable" (sync stream/event, overhead device).
constexpr uint32_t kNotApplicable = 0xffffffffu;

bool isDriver(const ApiRecord& r) { return r.domain == static_cast<uint8_t>(ApiDomain::Driver); }

// The members of one JSON object, with the commas between them. Keys are
// the string literals of this file (nothing to escape, length known at
// compile time); escapedKey() takes any other.
class JsonObject {
 public:
  explicit JsonObject(JsonText& b) : b_(b) { b_.put('{'); }
  template <size_t N>
  void key(const char (&name)[N]) {
    if (first_) {
      first_ = false;
      b_.put('"');
    } else {
      b_.lit(",\"");
    }
    b_.lit(name);
    b_.lit("\":");
  }
  void escapedKey(std::string_view name) {
    if (!first_) b_.put(',');
    first_ = false;
    b_.quoted(name);
    b_.put(':');
  }
  template <size_t N>
  void u(const char (&name)[N], uint64_t v) {
    key(name);
    b_.uint(v);
  }
  template <size_t N>
  void i(const char (&name)[N], int64_t v) {
    key(name);
    b_.sint(v);
  }
  template <size_t N>
  void s(const char (&name)[N], std::string_view v) {
    key(name);
    b_.quoted(v);
  }
  // Text of our own (enum names): nothing to escape.
  template <size_t N>
  void plain(const char (&name)[N], std::string_view v) {
    key(name);
    b_.put('"');
    b_.put(v);
    b_.put('"');
  }
  template <size_t N>
  void b(const char (&name)[N], bool v) {
    key(name);
    v ? b_.lit("true") : b_.lit("false");
  }
  // `json` is already JSON text (a quoted, escaped string from a cache).
  template <size_t N>
  void raw(const char (&name)[N], std::string_view json) {
    key(name);
    b_.put(json);
  }
  void close() { b_.put('}'); }

 private:
  JsonText& b_;
  bool first_ = true;
};

enum class TrackKind : uint8_t { HostThread, Overhead, Stream, Sync };

struct Track {
  TrackKind kind;
  uint32_t pid;
  uint32_t tid;
  uint32_t device;     // of a GPU track (Stream, Sync)
  uint32_t context;    // of a Sync track
  std::string prefix;  // "pid":P,"tid":T as written in each of its events
  size_t first = 0;    // its slices: slices_[first, first + count)
  size_t count = 0;
};

class ChromeJsonWriter {
 public:
  ChromeJsonWriter(const Trace& trace, std::ostream& out)
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
  }

  JsonExportStats write() {
    scanRecords();
    planFlows();
    layOutSlices();

    b_.lit("{\"traceEvents\":[\n");
    writeNameEvents();
    for (const Track& t : tracks_) {
      for (size_t i = t.first; i < t.first + t.count; ++i) writeSlice(slices_[i], t);
    }
    writeNvtxInstantsAndAsync();
    b_.lit("\n],\n\"metadata\":");
    writeMetadata();
    b_.lit("}\n");
    flush();
    stats_.clamped = clamped_;
    return stats_;
  }

 private:
  // ---- Planning -------------------------------------------------------------

  // Counts the records that cannot be drawn, and picks the base timestamp
  // (track_layout.h); metadata says which base was used.
  void scanRecords() {
    const TimelineBase scan = scanTimeline(trace_);
    base_ = scan.base;
    incomplete_ = scan.incomplete;
  }

  // Marks each call that launched drawn GPU work: only those get a flow_out,
  // so every arrow written has both ends.
  void planFlows() {
    hasFlow_.assign(api_.size(), 0);
    auto mark = [&](const auto& r) {
      if (!drawable(r.start, r.end)) return;
      const uint32_t source = launches_.find(r.correlationId);
      if (source != LaunchIndex::kNone) hasFlow_[source] = 1;
    };
    kernels_.forEach(mark);
    memcpys_.forEach(mark);
    memsets_.forEach(mark);
  }

  uint32_t track(TrackKind kind, uint32_t pid, uint32_t tid, uint32_t device, uint32_t context) {
    const uint64_t key = uint64_t{pid} << 32 | tid;
    if (haveLastTrack_ && key == lastTrackKey_) return lastTrack_;
    const auto [it, added] = trackIndex_.try_emplace(key, static_cast<uint32_t>(tracks_.size()));
    if (added) {
      Track t{kind, pid, tid, device, context, {}, 0, 0};
      t.prefix = "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
      tracks_.push_back(std::move(t));
    }
    haveLastTrack_ = true;
    lastTrackKey_ = key;
    lastTrack_ = it->second;
    return lastTrack_;
  }
  // Perfetto reads tid 0 as "the process's main thread"; do the same here,
  // or its slices would be laid out apart from the main thread's.
  uint32_t hostThreadTrack(uint32_t tid) {
    return track(TrackKind::HostThread, hostPid_, tid == 0 ? hostPid_ : tid, 0, 0);
  }
  uint32_t streamTrack(uint32_t device, uint32_t stream) {
    return track(TrackKind::Stream, gpuProcessId(hostPid_, device), stream, device, 0);
  }
  uint32_t syncTrack(uint32_t context) {
    const auto it = contextDevice_.find(context);
    const uint32_t device = it == contextDevice_.end() ? 0 : it->second;
    return track(TrackKind::Sync, gpuProcessId(hostPid_, device), syncTrackTid(context), device,
                 context);
  }

  // Calls f(track, slice) for every record drawn as an X slice.
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
      if (r.type != static_cast<uint8_t>(NvtxType::PushPop) || !drawable(r.start, r.end)) continue;
      f(hostThreadTrack(r.threadId), slice(r, i, SliceSource::Nvtx, r.depth));
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
        f(track(TrackKind::Overhead, hostPid_, kOverheadTid, 0, 0),
          slice(r, i, SliceSource::Overhead));
    }
  }

  // Groups the slices by track in two passes (count, then place: no second
  // copy of them), then lays out each track.
  void layOutSlices() {
    forEachSlice([&](uint32_t t, const Slice&) { ++tracks_[t].count; });
    size_t total = 0;
    for (Track& t : tracks_) {
      t.first = total;
      total += t.count;
      t.count = 0;
    }
    slices_.resize(total);
    forEachSlice([&](uint32_t t, const Slice& s) {
      Track& track = tracks_[t];
      slices_[track.first + track.count++] = s;
    });
    for (Track& t : tracks_) {
      const auto policy =
          t.kind == TrackKind::Stream ? OverlapPolicy::MoveStart : OverlapPolicy::ClampEnd;
      clamped_ += layoutTrack(slices_.data() + t.first, slices_.data() + t.first + t.count, policy);
    }
    // Threads that only made marks or start/end ranges still get a named track.
    nvtx_.forEach([&](const NvtxRecord& r) {
      if (r.type == static_cast<uint8_t>(NvtxType::PushPop) || !drawable(r.start, r.end)) return;
      hostThreadTrack(r.threadId);
      if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && r.endThreadId != 0)
        hostThreadTrack(r.endThreadId);
    });
  }

  // ---- Event text -------------------------------------------------------------

  void beginEvent() {
    if (stats_.events != 0) b_.lit(",\n");
    b_.put('{');
  }
  void endEvent() {
    b_.put('}');
    ++stats_.events;
    if (b_.size() >= kFlushBytes) flush();
  }
  void flush() {
    out_.write(b_.view().data(), static_cast<std::streamsize>(b_.size()));
    b_.clear();
  }
  void time(std::string_view key, uint64_t ns) {
    b_.put(key);
    b_.micros(static_cast<int64_t>(ns - base_));
  }

  // The quoted, escaped text of interned string `id`, demangled for kernel
  // names; names repeat millions of times. Never empty once made (quotes).
  const std::string& quoted(StringId id) { return cached(quoted_, id, false); }
  const std::string& quotedKernelName(StringId id) { return cached(kernelNames_, id, true); }
  const std::string& cached(std::vector<std::string>& cache, StringId id, bool demangled) {
    if (id >= cache.size()) cache.resize(std::max<size_t>(id + 1, trace_.strings.size()));
    std::string& s = cache[id];
    if (s.empty()) {
      const std::string_view raw = trace_.strings.get(id);
      JsonText text;
      if (demangled) {
        text.quoted(demangle(raw));
      } else {
        text.quoted(raw);
      }
      s = text.view();
    }
    return s;
  }

  // {"ph":"X","cat":..,"name":..,"pid":..,"tid":..,"ts":..,"dur":.. (no
  // closing brace), in two parts for names composed in place.
  void beginSlice(std::string_view category, std::string_view quotedName, const Track& t,
                  const Slice& s) {
    beginSlice(category);
    b_.put(quotedName);
    sliceTimes(t, s);
  }
  void beginSlice(std::string_view category) {
    beginEvent();
    b_.lit("\"ph\":\"X\",\"cat\":\"");
    b_.put(category);
    b_.lit("\",\"name\":");
  }
  void sliceTimes(const Track& t, const Slice& s) {
    b_.put(',');
    b_.put(t.prefix);
    time(",\"ts\":", s.start);
    b_.lit(",\"dur\":");
    b_.micros(static_cast<int64_t>(s.end - s.start));
  }
  // The flow end on GPU work launched by a call that is drawn.
  void flowIn(uint32_t correlationId) {
    if (launches_.find(correlationId) == LaunchIndex::kNone) return;
    b_.lit(",\"bind_id\":");
    b_.uint(correlationId);
    b_.lit(",\"flow_in\":true");
    ++stats_.flows;
  }
  // How much layoutTrack cut off the slice to fit it on its track.
  static void adjustment(JsonObject& args, const Slice& s, uint64_t start, uint64_t end) {
    if (s.adjusted) args.u("clamped_ns", (end - start) - (s.end - s.start));
  }
  static void graphIds(JsonObject& args, uint32_t graphId, uint64_t graphNodeId) {
    if (graphId != 0) args.u("graph_id", graphId);
    if (graphNodeId != 0) args.u("graph_node_id", graphNodeId);
  }
  template <size_t N>
  void dim3(JsonObject& args, const char (&name)[N], int64_t x, int64_t y, int64_t z) {
    args.key(name);
    b_.lit("\"[");
    b_.sint(x);
    b_.put(',');
    b_.sint(y);
    b_.put(',');
    b_.sint(z);
    b_.lit("]\"");
  }

  void writeSlice(const Slice& s, const Track& t) {
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
    beginSlice(isDriver(r) ? "cuda_driver" : "cuda_runtime", quoted(r.name), t, s);
    if (hasFlow_[s.index]) {
      b_.lit(",\"bind_id\":");
      b_.uint(r.correlationId);
      b_.lit(",\"flow_out\":true");
    }
    b_.lit(",\"args\":");
    JsonObject args(b_);
    args.u("correlation", r.correlationId);
    args.u("cbid", r.cbid);
    args.u("return_value", r.returnValue);
    args.plain("domain", isDriver(r) ? "driver" : "runtime");
    adjustment(args, s, r.start, r.end);
    args.close();
    endEvent();
  }

  void writeKernel(const Slice& s, const Track& t) {
    const KernelRecord& k = kernels_[s.index];
    beginSlice("kernel", quotedKernelName(k.name), t, s);
    flowIn(k.correlationId);
    b_.lit(",\"args\":");
    JsonObject args(b_);
    args.raw("mangled_name", quoted(k.name));
    args.u("device", k.deviceId);
    args.u("context", k.contextId);
    args.u("stream", k.streamId);
    args.u("correlation", k.correlationId);
    dim3(args, "grid", k.gridX, k.gridY, k.gridZ);
    dim3(args, "block", k.blockX, k.blockY, k.blockZ);
    args.u("registers_per_thread", k.registersPerThread);
    args.i("static_shared_memory", k.staticSharedMemory);
    args.i("dynamic_shared_memory", k.dynamicSharedMemory);
    graphIds(args, k.graphId, k.graphNodeId);
    args.plain("launch_type", launchTypeName(k.launchType));
    if (k.isDeviceLaunched) args.b("device_launched", true);
    adjustment(args, s, k.start, k.end);
    args.close();
    endEvent();
  }

  void writeMemcpy(const Slice& s, const Track& t) {
    const MemcpyRecord& m = memcpys_[s.index];
    const auto copyKind = static_cast<CopyKind>(m.copyKind);
    const char* kind = copyKindName(copyKind);
    const char* src = memoryKindName(static_cast<MemoryKind>(m.srcKind));
    const char* dst = memoryKindName(static_cast<MemoryKind>(m.dstKind));
    // "Memcpy HtoD (Pinned -> Device)": names of our own, nothing to escape.
    beginSlice("memcpy");
    b_.lit("\"Memcpy ");
    b_.put(kind);
    b_.lit(" (");
    b_.put(src);
    b_.lit(" -> ");
    b_.put(dst);
    b_.lit(")\"");
    sliceTimes(t, s);
    flowIn(m.correlationId);
    b_.lit(",\"args\":");
    JsonObject args(b_);
    args.u("bytes", m.bytes);
    args.plain("copy_kind", kind);
    args.plain("src_kind", src);
    args.plain("dst_kind", dst);
    args.b("async", (m.flags & kCopyFlagAsync) != 0);
    if (m.end > m.start) {  // bytes per ns is GB/s
      args.key("bandwidth_GBps");
      b_.dblDigits(static_cast<double>(m.bytes) / static_cast<double>(m.end - m.start), 6);
    }
    args.u("stream", m.streamId);
    args.u("device", m.deviceId);
    args.u("context", m.contextId);
    args.u("correlation", m.correlationId);
    if (copyKind == CopyKind::PtoP) {
      args.u("src_device", m.srcDeviceId);
      args.u("dst_device", m.dstDeviceId);
    }
    graphIds(args, m.graphId, m.graphNodeId);
    adjustment(args, s, m.start, m.end);
    args.close();
    endEvent();
  }

  void writeMemset(const Slice& s, const Track& t) {
    const MemsetRecord& m = memsets_[s.index];
    const char* kind = memoryKindName(static_cast<MemoryKind>(m.memoryKind));
    beginSlice("memset");
    b_.lit("\"Memset (");
    b_.put(kind);
    b_.lit(")\"");
    sliceTimes(t, s);
    flowIn(m.correlationId);
    b_.lit(",\"args\":");
    JsonObject args(b_);
    args.u("bytes", m.bytes);
    args.u("value", m.value);
    args.plain("memory_kind", kind);
    args.b("async", (m.flags & kCopyFlagAsync) != 0);
    args.u("stream", m.streamId);
    args.u("device", m.deviceId);
    args.u("context", m.contextId);
    args.u("correlation", m.correlationId);
    graphIds(args, m.graphId, m.graphNodeId);
    adjustment(args, s, m.start, m.end);
    args.close();
    endEvent();
  }

  void writeSync(const Slice& s, const Track& t) {
    const SyncRecord& r = syncs_[s.index];
    beginSlice("sync");
    b_.put('"');
    b_.put(syncTypeName(static_cast<SyncType>(r.type)));
    b_.put('"');
    sliceTimes(t, s);
    b_.lit(",\"args\":");
    JsonObject args(b_);
    args.u("correlation", r.correlationId);
    args.u("context", r.contextId);
    args.u("device", t.device);
    if (r.streamId != kNotApplicable) args.u("stream", r.streamId);
    if (r.eventId != kNotApplicable) args.u("event", r.eventId);
    adjustment(args, s, r.start, r.end);
    args.close();
    endEvent();
  }

  void writeOverhead(const Slice& s, const Track& t) {
    const OverheadRecord& r = overheads_[s.index];
    beginSlice("overhead", quoted(r.name), t, s);
    b_.lit(",\"args\":");
    JsonObject args(b_);
    if (r.threadId != 0) args.u("thread", r.threadId);
    if (r.deviceId != kNotApplicable) args.u("device", r.deviceId);
    adjustment(args, s, r.start, r.end);
    args.close();
    endEvent();
  }

  void nvtxArgs(JsonObject& args, const NvtxRecord& r) {
    if (r.domain != kNoString) args.raw("domain", quoted(r.domain));
    args.u("category", r.category);
    if (r.flags & kNvtxHasColor) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      char color[11] = {'"', '#'};
      for (int i = 0; i < 8; ++i) color[2 + i] = kHex[(r.color >> (28 - 4 * i)) & 0xf];
      color[10] = '"';
      args.raw("color", std::string_view(color, sizeof color));
    }
    // The payload's raw bits as the type NVTX was given; 32-bit payloads sit
    // in the low half, where NVTX's payload union puts them (little-endian).
    const auto low = static_cast<uint32_t>(r.payload);
    switch (static_cast<NvtxPayload>(r.payloadType)) {
      case NvtxPayload::U64:
        args.u("payload", r.payload);
        break;
      case NvtxPayload::I64:
        args.i("payload", static_cast<int64_t>(r.payload));
        break;
      case NvtxPayload::U32:
        args.u("payload", low);
        break;
      case NvtxPayload::I32:
        args.i("payload", static_cast<int32_t>(low));
        break;
      case NvtxPayload::Double: {
        double d;
        std::memcpy(&d, &r.payload, sizeof d);
        args.key("payload");
        b_.dbl(d);
        break;
      }
      case NvtxPayload::Float: {
        float f;
        std::memcpy(&f, &low, sizeof f);
        args.key("payload");
        b_.flt(f);
        break;
      }
      case NvtxPayload::None:
        break;
    }
    if (r.flags & kNvtxOpen) args.b("open", true);
  }

  void writeNvtxRange(const Slice& s, const Track& t) {
    const NvtxRecord& r = nvtx_[s.index];
    beginSlice("nvtx", quoted(r.message), t, s);
    b_.lit(",\"args\":");
    JsonObject args(b_);
    nvtxArgs(args, r);
    args.u("depth", r.depth);
    adjustment(args, s, r.start, r.end);
    args.close();
    endEvent();
  }

  // Marks as thread instants; start/end ranges as async slices of the host
  // process, which may overlap anything and may end on another thread.
  void writeNvtxInstantsAndAsync() {
    uint64_t asyncId = 0;
    auto head = [&](const char* phase, const NvtxRecord& r, uint32_t tid, uint64_t ns) {
      beginEvent();
      b_.put(phase);
      b_.lit(",\"cat\":\"nvtx\",\"name\":");
      b_.put(quoted(r.message));
      b_.lit(",\"pid\":");
      b_.uint(hostPid_);
      b_.lit(",\"tid\":");
      b_.uint(tid == 0 ? hostPid_ : tid);
      time(",\"ts\":", ns);
    };
    nvtx_.forEach([&](const NvtxRecord& r) {
      if (!drawable(r.start, r.end)) return;
      const auto type = static_cast<NvtxType>(r.type);
      if (type == NvtxType::Mark) {
        head("\"ph\":\"i\",\"s\":\"t\"", r, r.threadId, r.start);
        b_.lit(",\"args\":");
        JsonObject args(b_);
        nvtxArgs(args, r);
        args.close();
        endEvent();
      } else if (type == NvtxType::StartEnd) {
        // Async ids need only be unique among nvtx events; a counter is,
        // whatever ids the program's ranges had (kept in "range_id").
        ++asyncId;
        // An empty range as one async instant: at equal timestamps newer
        // Perfetto versions order ends before begins.
        head(r.end == r.start ? "\"ph\":\"n\"" : "\"ph\":\"b\"", r, r.threadId, r.start);
        b_.lit(",\"id\":");
        b_.uint(asyncId);
        b_.lit(",\"args\":");
        JsonObject args(b_);
        nvtxArgs(args, r);
        args.u("range_id", r.id);
        args.close();
        endEvent();
        if (r.end == r.start) return;
        head("\"ph\":\"e\"", r, r.endThreadId != 0 ? r.endThreadId : r.threadId, r.end);
        b_.lit(",\"id\":");
        b_.uint(asyncId);
        endEvent();
      }
    });
  }

  // ---- Names ------------------------------------------------------------------

  void nameEvent(const char* what, uint32_t pid, uint32_t tid, std::string_view name) {
    beginEvent();
    b_.lit("\"ph\":\"M\",\"name\":\"");
    b_.put(what);
    b_.lit("\",\"pid\":");
    b_.uint(pid);
    b_.lit(",\"tid\":");
    b_.uint(tid);
    b_.lit(",\"ts\":0,\"args\":{\"name\":");
    b_.quoted(name);
    b_.put('}');
    endEvent();
  }
  void sortIndexEvent(uint32_t pid, uint64_t index) {
    beginEvent();
    b_.lit("\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":");
    b_.uint(pid);
    b_.lit(",\"tid\":");
    b_.uint(pid);
    b_.lit(",\"ts\":0,\"args\":{\"sort_index\":");
    b_.uint(index);
    b_.put('}');
    endEvent();
  }

  std::string trackName(const Track& t) const {
    switch (t.kind) {
      case TrackKind::HostThread:
        return hostThreadName(trace_, t.tid);
      case TrackKind::Overhead:
        return kOverheadTrackName;
      case TrackKind::Stream:
        return streamTrackName(trace_, t.tid);
      case TrackKind::Sync:
        return syncTrackName(t.context);
    }
    return {};
  }

  // process_name, process_sort_index and thread_name events, host first,
  // then each GPU in device order (Perfetto sorts processes by sort index).
  void writeNameEvents() {
    std::vector<const Track*> order;
    order.reserve(tracks_.size());
    for (const Track& t : tracks_) order.push_back(&t);
    std::sort(order.begin(), order.end(), [](const Track* a, const Track* b) {
      return std::tie(a->pid, a->kind, a->tid) < std::tie(b->pid, b->kind, b->tid);
    });
    nameEvent("process_name", hostPid_, hostPid_, hostProcessName(trace_));
    sortIndexEvent(hostPid_, 0);
    uint32_t namedPid = hostPid_;
    for (const Track* t : order) {
      if (t->pid != namedPid) {
        namedPid = t->pid;
        nameEvent("process_name", t->pid, t->pid, gpuProcessName(trace_, t->device));
        sortIndexEvent(t->pid, uint64_t{1} + t->device);
      }
      nameEvent("thread_name", t->pid, t->tid, trackName(*t));
    }
  }

  // ---- Metadata ---------------------------------------------------------------

  void writeMetadata() {
    const TraceMetadata& m = trace_.meta;
    JsonObject meta(b_);
    meta.s("tool", "cuptitrace");
    meta.s("tool_version", m.toolVersion);
    meta.s("host", m.hostName);
    meta.u("pid", m.pid);
    meta.s("process_name", m.processName);
    meta.s("command_line", m.commandLine);
    meta.s("clock", m.clock);
    meta.u("base_timestamp_ns", base_);
    meta.u("start_timestamp_ns", m.startTimestampNs);
    meta.u("end_timestamp_ns", m.endTimestampNs);
    meta.u("start_realtime_ns", m.startRealtimeNs);
    meta.u("cupti_version", m.cuptiVersion);
    meta.i("driver_version", m.driverVersion);

    meta.key("config");
    JsonObject config(b_);
    for (const auto& [name, value] : m.config) {
      config.escapedKey(name);
      b_.quoted(value);
    }
    config.close();

    meta.key("devices");
    b_.put('[');
    for (size_t i = 0; i < trace_.devices.size(); ++i) {
      const DeviceInfo& d = trace_.devices[i];
      if (i != 0) b_.put(',');
      JsonObject device(b_);
      device.u("id", d.id);
      device.s("name", d.name);
      const auto named = trace_.deviceNames.find(d.id);
      if (named != trace_.deviceNames.end()) device.s("nvtx_name", named->second);
      device.s("compute_capability",
               std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor));
      device.u("multiprocessors", d.multiprocessors);
      device.u("global_memory_bytes", d.globalMemoryBytes);
      device.u("core_clock_khz", d.coreClockKHz);
      device.s("uuid", d.uuid);
      device.close();
    }
    b_.put(']');

    meta.key("records");
    JsonObject records(b_);
    for (int k = 0; k < kRecordKindCount; ++k) {
      const auto kind = static_cast<RecordKind>(k);
      records.escapedKey(recordKindName(kind));
      b_.uint(trace_.store.count(kind));
    }
    records.close();
    meta.u("dropped_records", trace_.totalDropped());
    meta.key("dropped");
    JsonObject dropped(b_);
    for (int k = 0; k < kRecordKindCount; ++k) {
      const auto kind = static_cast<RecordKind>(k);
      dropped.escapedKey(recordKindName(kind));
      b_.uint(trace_.store.dropped(kind));
    }
    dropped.close();
    meta.key("counters");
    JsonObject counters(b_);
    for (const auto& [name, value] : trace_.counters) {
      counters.escapedKey(name);
      b_.uint(value);
    }
    counters.close();

    meta.u("incomplete_records", incomplete_);
    meta.u("clamped_slices", clamped_);
    meta.u("flows", stats_.flows);
    meta.close();
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

  uint64_t base_ = 0;
  uint64_t incomplete_ = 0;
  uint64_t clamped_ = 0;
  std::vector<uint8_t> hasFlow_;  // by API record index: it launched drawn GPU work

  std::vector<Track> tracks_;
  std::unordered_map<uint64_t, uint32_t> trackIndex_;  // (pid << 32 | tid) -> tracks_ index
  bool haveLastTrack_ = false;                         // consecutive records mostly share a track
  uint64_t lastTrackKey_ = 0;
  uint32_t lastTrack_ = 0;
  std::unordered_map<uint32_t, uint32_t> contextDevice_;
  std::vector<Slice> slices_;

  JsonText b_;  // the output not yet handed to the stream
  std::vector<std::string> quoted_;
  std::vector<std::string> kernelNames_;
  JsonExportStats stats_;
};

}  // namespace

JsonExportStats writeChromeJson(const Trace& trace, std::ostream& out) {
  return ChromeJsonWriter(trace, out).write();
}

}  // namespace cuptitrace
