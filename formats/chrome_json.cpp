// Chrome Trace Event JSON, laid out as DESIGN.md "What a user sees in
// Perfetto" describes:
//
// - The host process (pid = the traced pid): one track per OS thread, with
//   CUDA runtime and driver calls (X, cat "cuda_runtime"/"cuda_driver"),
//   C library calls that blocked (X, cat "osrt") and NVTX push/pop ranges
//   (X, cat "nvtx") nested on it, NVTX marks as thread instants, NVTX
//   start/end ranges as async b/e pairs (they need not nest), and a "CUPTI
//   overhead" track. Calls and GPU work made while the program had an
//   external id or scope pushed carry "external_id", "scope" and "scope_id".
// - One process per GPU used (pid = gpuProcessId): a track per CUDA stream
//   (tid = stream id) with kernels, copies, sets and whole graph launches
//   (graph-level tracing), and a track per context with synchronization;
//   work that overlaps on a track goes on its lanes (track_layout.h: tid
//   laneTid, named "Stream 7 ·2", sorted right under it by thread_sort_index);
//   memory counters and unified memory tracks (memory_tracks.h) after the rest.
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
// - Arguments are those of the Perfetto protobuf (pftrace_slices.h), the
//   same keys: what a slice's track already says (the device, context and
//   stream of GPU work) and the usual values (return_value 0, launch_type
//   Regular) are left out, so that a kernel event stays small. Mangled names
//   and callback ids are in the CSV.
//
// Times are microseconds relative to the base timestamp, with three decimals
// so that every nanosecond survives Perfetto's reading (which rounds to ns).
//
// Several traces in one file (cuptitrace merge): each trace's events are
// written as alone, placed as its TimelineInput says (pids, thread ids, GPU
// pids, process names), with its times shifted onto wall-clock time (its
// base is the file's wall-clock base minus its own clock offset), its flow
// and async ids after those of the traces before it; "metadata" then holds
// the file's base and, under "inputs", each trace's own metadata.
// Memory: the slices are laid out and written one window of start times at
// a time (slice_windows.h), each track's layout carried from one window to
// the next (TrackLayout), so the writer holds at most about a window's
// slices (24 bytes each) and a few bits per correlation id (flow_sources.h)
// however long the trace; records spilled to disk are read once per window
// that their chunk starts slices in. Events come track by track within each
// window, which Perfetto sorts on reading.
//
// A record without a start, or whose end is missing (0) or before its start,
// is not drawn and is counted in metadata "incomplete_records". The events
// are formatted into one buffer and handed to the stream in large blocks.
#include "formats/chrome_json.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/api_set.h"
#include "core/demangle.h"
#include "timeline/external_ids.h"
#include "timeline/openacc_flows.h"
#include "timeline/openacc_nesting.h"
#include "timeline/flow_sources.h"
#include "formats/json_text.h"
#include "formats/memory_tracks.h"
#include "timeline/nccl_names.h"
#include "timeline/record_args.h"
#include "timeline/timeline_slices.h"
#include "timeline/track_layout.h"

namespace cuptitrace {
namespace {

// Bytes gathered before one write to the stream.
constexpr size_t kFlushBytes = size_t{1} << 20;


// The members of one JSON object, with the commas between them. Keys are
// the string literals of this file (nothing to escape, length known at
// compile time); escapedKey() takes any other. Inlined whatever the size of
// the writer using them: each is a few stores once the key's length is known.
#define JSON_MEMBER_FN template <size_t N> inline __attribute__((always_inline)) void
class JsonObject {
 public:
  explicit JsonObject(JsonText& b) : b_(b) { b_.put('{'); }
  JSON_MEMBER_FN key(const char (&name)[N]) {
    if (first_) {
      first_ = false;
      b_.put('"');
    } else {
      b_.lit(",\"");
    }
    b_.lit(name);
    b_.lit("\":");
  }
  // A record argument's key (record_args.h).
  inline __attribute__((always_inline)) void key(Arg a) {
    if (first_) {
      first_ = false;
    } else {
      b_.put(',');
    }
    // A switch, not a table lookup: with `a` known where it is inlined, the
    // key's bytes are too.
    switch (a) {
#define JSON_ARG_CASE(id, name) \
  case Arg::id:                 \
    b_.lit("\"" name "\":");     \
    return;
      CUPTITRACE_TIMELINE_ARGS(JSON_ARG_CASE)
#undef JSON_ARG_CASE
      case Arg::None:
      case Arg::Count:
        break;
    }
  }
  void escapedKey(std::string_view name) {
    if (!first_) b_.put(',');
    first_ = false;
    b_.quoted(name);
    b_.put(':');
  }
  JSON_MEMBER_FN u(const char (&name)[N], uint64_t v) {
    key(name);
    b_.uint(v);
  }
  JSON_MEMBER_FN i(const char (&name)[N], int64_t v) {
    key(name);
    b_.sint(v);
  }
  JSON_MEMBER_FN s(const char (&name)[N], std::string_view v) {
    key(name);
    b_.quoted(v);
  }
  // Text of our own (enum names): nothing to escape.
  JSON_MEMBER_FN plain(const char (&name)[N], std::string_view v) {
    key(name);
    b_.put('"');
    b_.put(v);
    b_.put('"');
  }
  JSON_MEMBER_FN b(const char (&name)[N], bool v) {
    key(name);
    v ? b_.lit("true") : b_.lit("false");
  }
  // `json` is already JSON text (a quoted, escaped string from a cache).
  JSON_MEMBER_FN raw(const char (&name)[N], std::string_view json) {
    key(name);
    b_.put(json);
  }
  void close() { b_.put('}'); }
  // Where the members go: values are written here after their key.
  JsonText& out() { return b_; }

 private:
  JsonText& b_;
  bool first_ = true;
};
#undef JSON_MEMBER_FN

enum class TrackKind : uint8_t { HostThread, Overhead, Stream, Sync };

// The file being written: the text not yet handed to the stream, and what
// has been written.
struct JsonSink {
  explicit JsonSink(std::ostream& o) : out(o) { b.reserve(kFlushBytes + (64 << 10)); }
  void flush() {
    out.write(b.view().data(), static_cast<std::streamsize>(b.size()));
    b.clear();
  }
  std::ostream& out;
  JsonText b;
  JsonExportStats stats;
};

// Where one trace's events go in a file that holds several: its base on its
// own clock, and the ids before its own.
struct JsonPlacement {
  bool merged = false;
  uint64_t base = 0;       // on the trace's clock: times are written relative to it
  uint64_t flowBase = 0;   // added to every bind_id (its correlation ids)
  uint64_t asyncBase = 0;  // added to every NVTX async id
  uint64_t sortBase = 0;   // added to every process_sort_index
};

struct Track {
  Track(TrackKind k, uint32_t p, uint32_t t, uint32_t d, uint32_t c)
      : kind(k),
        pid(p),
        tid(t),
        device(d),
        context(c),
        prefix(prefixOf(p, t)),
        // Work on a stream never nests: any overlap there is concurrent work.
        layout(k == TrackKind::Stream ? OverlapPolicy::OneAtATime : OverlapPolicy::Nest) {}
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
  TrackKind kind;
  uint32_t pid;
  uint32_t tid;
  uint32_t device;     // of a GPU track (Stream, Sync)
  uint32_t context;    // of a Sync or Stream track
  std::string prefix;  // "pid":P,"tid":T as written in each of its events
  std::vector<std::string> lanePrefixes;  // the same for its lanes past the first
  TrackLayout layout;  // carried from one window to the next
  size_t first = 0;    // the window's slices: window_[first, first + count)
  size_t count = 0;
};

class ChromeJsonWriter {
 public:
  ChromeJsonWriter(const TimelineInput& in, JsonSink& sink, size_t windowSlices)
      : in_(in),
        trace_(*in.trace),
        sink_(sink),
        b_(sink.b),
        rec_(trace_.store),
        sources_(rec_.api),
        externalIds_(trace_),
        accFlows_(trace_),
        nccl_(trace_),
        hostPid_(in.hostPid()),
        windowSlices_(windowSlices),
        slices_(trace_.store) {
    for (const ContextInfo& c : trace_.contexts) contextDevice_[c.contextId] = c.deviceId;
  }

  // Plans the layout; then the trace's own base and ids are known.
  void plan() {
    scanRecords();
    planFlows();
    planWindows();
  }
  uint64_t ownBase() const { return base_; }
  // The largest bind_id and the number of async ids it writes, before its placement's bases.
  uint64_t maxFlowId() const { return maxCorrelation_; }
  uint64_t asyncIds() const { return asyncCount_; }

  // Its events, with the commas before them, into the traceEvents array.
  void writeEvents(const JsonPlacement& placement) {
    place_ = placement;
    if (place_.merged) base_ = place_.base;
    writeNameEvents();
    for (size_t w = 0; w + 1 < windows_.size(); ++w) writeWindow(windows_[w], windows_[w + 1]);
    window_ = std::vector<Slice>();
    for (const Track& t : tracks_) {
      clamped_ += t.layout.changed();
      maxLanes_ = std::max(maxLanes_, t.layout.lanes());
      laneTracks_ += t.layout.lanes() - 1;
    }
    writeLaneNames();
    writeNvtxInstantsAndAsync();
    sink_.stats.events += writeJsonMemoryEvents(in_, base_, place_.sortBase, b_, sink_.stats.events == 0, [&] {
      if (b_.size() >= kFlushBytes) sink_.flush();
    });
    sink_.stats.clamped += clamped_;
    sink_.stats.maxLanes = std::max(sink_.stats.maxLanes, maxLanes_);
    sink_.stats.laneTracks += laneTracks_;
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

  // Notes the ids of drawn GPU work: only calls that launched some get a
  // flow_out, so every arrow written has both ends.
  void planFlows() {
    gpuDrawn_ = IdSet(sources_.lo(), sources_.hi(), sources_.calls());
    auto mark = [&](const auto& r) {
      if (drawable(r.start, r.end)) gpuDrawn_.insert(r.correlationId);
    };
    rec_.forEachGpuWork(mark);
    rec_.api.forEach([&](const ApiRecord& r) {
      maxCorrelation_ = std::max<uint64_t>(maxCorrelation_, r.correlationId);
    });
    rec_.nvtx.forEach([&](const NvtxRecord& r) {
      if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && drawable(r.start, r.end))
        ++asyncCount_;
    });
  }

  uint32_t track(TrackKind kind, uint32_t pid, uint32_t tid, uint32_t device, uint32_t context) {
    const uint64_t key = uint64_t{pid} << 32 | tid;
    if (haveLastTrack_ && key == lastTrackKey_) return lastTrack_;
    const auto [it, added] = trackIndex_.try_emplace(key, static_cast<uint32_t>(tracks_.size()));
    if (added) tracks_.emplace_back(kind, pid, tid, device, context);
    haveLastTrack_ = true;
    lastTrackKey_ = key;
    lastTrack_ = it->second;
    return lastTrack_;
  }
  // Perfetto reads tid 0 as "the process's main thread"; do the same here,
  // or its slices would be laid out apart from the main thread's.
  uint32_t hostThreadTrack(uint32_t tid) {
    return track(TrackKind::HostThread, hostPid_, hostTid(tid), 0, 0);
  }
  // A thread id as written: the main thread's for 0, moved with the pid.
  uint32_t hostTid(uint32_t tid) const {
    return (tid == 0 ? trace_.meta.pid : tid) + in_.idOffset;
  }
  uint32_t gpuPid(uint32_t device) const { return gpuProcessId(in_.gpuKey, device); }
  uint32_t streamTrack(uint32_t device, uint32_t stream, uint32_t context) {
    const uint32_t t = track(TrackKind::Stream, gpuPid(device), stream, device, context);
    if (tracks_[t].context == 0) tracks_[t].context = context;  // its name may show it
    return t;
  }
  uint32_t syncTrack(uint32_t context) {
    const auto it = contextDevice_.find(context);
    const uint32_t device = it == contextDevice_.end() ? 0 : it->second;
    return track(TrackKind::Sync, gpuPid(device), syncTrackTid(context), device, context);
  }

  // The tracks of the slices (timeline_slices.h). NVTX start/end ranges are
  // async events of the process here, not slices.
  struct TrackMap {
    ChromeJsonWriter& w;
    uint32_t host(uint32_t tid) { return w.hostThreadTrack(tid); }
    uint32_t stream(uint32_t device, uint32_t stream, uint32_t context) {
      return w.streamTrack(device, stream, context);
    }
    uint32_t sync(uint32_t context) { return w.syncTrack(context); }
    uint32_t overhead() { return w.track(TrackKind::Overhead, w.hostPid_, kOverheadTid, 0, 0); }
    uint32_t nvtxRange(size_t, const NvtxRecord&) { return TimelineSlices::kNoTrack; }
  };
  // Calls f(track, slice) for every record drawn as an X slice that starts in [from, to).
  template <typename F>
  void forEachSlice(uint64_t from, uint64_t to, F&& f) {
    TrackMap tracks{*this};
    slices_.forEach(tracks, from, to, f);
  }

  // Finds every track and cuts the timeline into windows of start time
  // holding at most windowSlices_ slices each (slice_windows.h).
  void planWindows() {
    TrackMap tracks{*this};
    windows_ = slices_.planWindows(tracks, windowSlices_);
    // Threads that only made marks or start/end ranges still get a named track.
    rec_.nvtx.forEach([&](const NvtxRecord& r) {
      if (r.type == static_cast<uint8_t>(NvtxType::PushPop) || !drawable(r.start, r.end)) return;
      hostThreadTrack(r.threadId);
      if (r.type == static_cast<uint8_t>(NvtxType::StartEnd) && r.endThreadId != 0)
        hostThreadTrack(r.endThreadId);
    });
  }

  // The slices starting in [from, to): grouped by track in two passes
  // (count, then place: no second copy of them), laid out and written.
  void writeWindow(uint64_t from, uint64_t to) {
    for (Track& t : tracks_) t.count = 0;
    forEachSlice(from, to, [&](uint32_t t, const Slice&) { ++tracks_[t].count; });
    size_t total = 0;
    for (Track& t : tracks_) {
      t.first = total;
      total += t.count;
      t.count = 0;
    }
    resizeWindow(window_, total);
    forEachSlice(from, to, [&](uint32_t t, const Slice& s) {
      Track& track = tracks_[t];
      window_[track.first + track.count++] = s;
    });
    for (Track& t : tracks_) {
      if (t.count == 0) continue;
      Slice* first = window_.data() + t.first;
      t.layout.run(first, first + t.count, [&](const Slice& s) {
        if (s.lane > t.lanePrefixes.size()) t.addLanes(s.lane);
        writeSlice(s, t);
      });
    }
  }

  // ---- Event text -------------------------------------------------------------

  void beginEvent() {
    if (sink_.stats.events != 0) b_.lit(",\n");
    b_.put('{');
  }
  void endEvent() {
    b_.put('}');
    ++sink_.stats.events;
    if (b_.size() >= kFlushBytes) sink_.flush();
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
    b_.put(t.prefixOfLane(s.lane));
    time(",\"ts\":", s.start);
    b_.lit(",\"dur\":");
    b_.micros(static_cast<int64_t>(s.end - s.start));
  }
  // The flow end on GPU work launched by a call that is drawn.
  void flowIn(uint32_t correlationId) {
    if (!sources_.hasSource(correlationId)) return;
    b_.lit(",\"bind_id\":");
    b_.uint(place_.flowBase + correlationId);
    b_.lit(",\"flow_in\":true");
    ++flows_;
    ++sink_.stats.flows;
  }
  // How much the layout cut off the slice: only past kMaxLanes lanes (track_layout.h).
  static void adjustment(JsonObject& args, const Slice& s, uint64_t start, uint64_t end) {
    if (s.end - s.start != end - start) args.u("clamped_ns", (end - start) - (s.end - s.start));
  }
  // What the program had pushed (cuptitrace.h) when the call was made.
  void externalIdArgs(JsonObject& args, uint32_t correlationId) {
    const ExternalIdEntry* e = externalIds_.find(correlationId);
    if (e == nullptr) return;
    if (e->hasId) args.u("external_id", e->id);
    if (e->hasScope) {
      args.raw("scope", quoted(e->scopeName));
      args.u("scope_id", e->scopeId);
    }
  }
  // An NCCL kernel's collective, as its name says (core/nccl_kernel.h): parts it leaves out are left out.
  static void ncclArgs(JsonObject& args, const NcclKernelInfo& c) {
    args.plain("nccl_collective", c.collective);
    if (!c.op.empty()) args.plain("nccl_op", c.op);
    if (!c.dtype.empty()) args.plain("nccl_dtype", c.dtype);
    if (!c.algo.empty()) args.plain("nccl_algo", c.algo);
    if (!c.proto.empty()) args.plain("nccl_proto", c.proto);
  }

  // A record's arguments (record_args.h) as members of "args".
#define JSON_SINK_FN inline __attribute__((always_inline)) void
  struct ArgSink {
    ChromeJsonWriter& w;
    JsonObject& o;
    JSON_SINK_FN u(Arg a, uint64_t v) {
      o.key(a);
      o.out().uint(v);
    }
    JSON_SINK_FN i(Arg a, int64_t v) {
      o.key(a);
      o.out().sint(v);
    }
    JSON_SINK_FN b(Arg a, bool v) {
      o.key(a);
      v ? o.out().lit("true") : o.out().lit("false");
    }
    JSON_SINK_FN real(Arg a, double v, int digits) {
      o.key(a);
      digits == 0 ? o.out().dbl(v) : o.out().dblDigits(v, digits);
    }
    JSON_SINK_FN single(Arg a, float v) {
      o.key(a);
      o.out().flt(v);
    }
    JSON_SINK_FN string(Arg a, StringId id) {
      o.key(a);
      o.out().put(w.quoted(id));
    }
    JSON_SINK_FN text(Arg a, std::string_view v) {  // ours: nothing to escape
      o.key(a);
      o.out().put('"');
      o.out().put(v);
      o.out().put('"');
    }
    JSON_SINK_FN label(Arg a, Label, uint8_t, const char* name) { text(a, name); }
    JSON_SINK_FN dim3(Arg a, int64_t x, int64_t y, int64_t z) {
      o.key(a);
      o.out().lit("\"[");
      o.out().sint(x);
      o.out().put(',');
      o.out().sint(y);
      o.out().put(',');
      o.out().sint(z);
      o.out().lit("]\"");
    }
    JSON_SINK_FN nccl(StringId kernelName) {
      if (const NcclKernelInfo* c = w.nccl_.find(kernelName)) ncclArgs(o, *c);
    }
    JSON_SINK_FN externalIds(uint32_t correlationId) { w.externalIdArgs(o, correlationId); }
  };
#undef JSON_SINK_FN
  // ,"args":{...} with what `describe` (one of record_args.h's functions)
  // lists, then how much the layout cut off, and the end of the event.
  template <typename Describe>
  inline __attribute__((always_inline)) void argsAndEnd(const Slice& s, uint64_t start, uint64_t end, Describe&& describe) {
    b_.lit(",\"args\":");
    JsonObject args(b_);
    ArgSink sink{*this, args};
    describe(sink);
    adjustment(args, s, start, end);
    args.close();
    endEvent();
  }

  void writeSlice(const Slice& s, const Track& t) {
    switch (s.source) {
      case SliceSource::ApiRuntime:
      case SliceSource::ApiDriver:
        return writeApi(s, t);
      case SliceSource::Nvtx:
        return writeNvtxRange(s, t);
      case SliceSource::Graph:
        return writeGraph(s, t);
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
      case SliceSource::OpenAcc:
        return writeOpenAcc(s, t);
    }
  }

  // An OpenACC event on the thread that made it (its arguments: record_args.h),
  // and an arrow to each GPU slice its CUDA calls launched (openacc_flows.h).
  // The launch arrows use bind_id, one per slice; these are v1 flow events
  // (cat "openacc"), bound to the slice the event is written right after:
  // same track, same time.
  void writeOpenAcc(const Slice& s, const Track& t) {
    const OpenAccRecord& r = rec_.openacc[s.index];
    JsonText name;
    name.quoted(openAccEventLabel(r, trace_.strings));
    beginSlice("openacc", name.view(), t, s);
    argsAndEnd(s, r.start, r.end, [&](ArgSink& a) { openAccArgs(r, a); });
    if (const std::vector<uint32_t>* calls = accFlows_.callsOf(r.externalId)) {
      for (const uint32_t correlation : *calls)
        if (gpuDrawn_.contains(correlation)) openAccFlowEvent("s", correlation, t, s);
    }
  }
  // The end of an OpenACC event's arrow, on GPU work its calls launched.
  void openAccFlowIn(uint32_t correlationId, const Track& t, const Slice& s) {
    if (accFlows_.empty() || accFlows_.eventOf(correlationId) == 0) return;
    openAccFlowEvent("f", correlationId, t, s);
  }
  void openAccFlowEvent(const char* phase, uint32_t correlationId, const Track& t, const Slice& s) {
    beginEvent();
    b_.lit("\"ph\":\"");
    b_.put(phase);
    b_.lit("\",\"cat\":\"openacc\",\"name\":\"openacc\",\"id\":");
    b_.uint(place_.flowBase + correlationId);
    if (phase[0] == 'f') b_.lit(",\"bp\":\"e\"");
    b_.put(',');
    b_.put(t.prefixOfLane(s.lane));
    time(",\"ts\":", s.start);
    endEvent();
    if (phase[0] == 'f') ++sink_.stats.flows;
  }

  // A whole graph launch (CUPTITRACE_GRAPHS=graph), with the arrow from its cudaGraphLaunch.
  void writeGraph(const Slice& s, const Track& t) {
    const GraphRecord& g = rec_.graphs[s.index];
    beginSlice("graph");
    b_.lit("\"Graph ");
    b_.uint(g.graphId);
    b_.put('"');
    sliceTimes(t, s);
    flowIn(g.correlationId);
    argsAndEnd(s, g.start, g.end, [&](ArgSink& a) { graphLaunchArgs(g, a); });
    openAccFlowIn(g.correlationId, t, s);
  }

  void writeApi(const Slice& s, const Track& t) {
    const ApiRecord& r = rec_.api[s.index];
    if (isOsrtCall(r)) {  // a C library call that blocked the thread (the osrt activity)
      beginSlice("osrt", quoted(r.name), t, s);
    } else {
      beginSlice(isDriverCall(r) ? "cuda_driver" : "cuda_runtime", quoted(r.name), t, s);
      if (sources_.isSource(s.index, r) && gpuDrawn_.contains(r.correlationId)) {
        b_.lit(",\"bind_id\":");
        b_.uint(place_.flowBase + r.correlationId);
        b_.lit(",\"flow_out\":true");
      }
    }
    argsAndEnd(s, r.start, r.end, [&](ArgSink& a) { apiArgs(r, a); });
  }

  void writeKernel(const Slice& s, const Track& t) {
    const KernelRecord& k = rec_.kernels[s.index];
    beginSlice("kernel", quotedKernelName(k.name), t, s);
    flowIn(k.correlationId);
    argsAndEnd(s, k.start, k.end, [&](ArgSink& a) { kernelArgs(k, a); });
    openAccFlowIn(k.correlationId, t, s);
  }

  void writeMemcpy(const Slice& s, const Track& t) {
    const MemcpyRecord& m = rec_.memcpys[s.index];
    // "Memcpy HtoD (Pinned -> Device)": names of our own, nothing to escape.
    beginSlice("memcpy");
    b_.lit("\"Memcpy ");
    b_.put(copyKindName(static_cast<CopyKind>(m.copyKind)));
    b_.lit(" (");
    b_.put(memoryKindName(static_cast<MemoryKind>(m.srcKind)));
    b_.lit(" -> ");
    b_.put(memoryKindName(static_cast<MemoryKind>(m.dstKind)));
    b_.lit(")\"");
    sliceTimes(t, s);
    flowIn(m.correlationId);
    argsAndEnd(s, m.start, m.end, [&](ArgSink& a) { memcpyArgs(m, a); });
    openAccFlowIn(m.correlationId, t, s);
  }

  void writeMemset(const Slice& s, const Track& t) {
    const MemsetRecord& m = rec_.memsets[s.index];
    beginSlice("memset");
    b_.lit("\"Memset (");
    b_.put(memoryKindName(static_cast<MemoryKind>(m.memoryKind)));
    b_.lit(")\"");
    sliceTimes(t, s);
    flowIn(m.correlationId);
    argsAndEnd(s, m.start, m.end, [&](ArgSink& a) { memsetArgs(m, a); });
    openAccFlowIn(m.correlationId, t, s);
  }

  void writeSync(const Slice& s, const Track& t) {
    const SyncRecord& r = rec_.syncs[s.index];
    beginSlice("sync");
    b_.put('"');
    b_.put(syncTypeName(static_cast<SyncType>(r.type)));
    b_.put('"');
    sliceTimes(t, s);
    argsAndEnd(s, r.start, r.end, [&](ArgSink& a) { syncArgs(r, a); });
  }

  void writeOverhead(const Slice& s, const Track& t) {
    const OverheadRecord& r = rec_.overheads[s.index];
    beginSlice("overhead", quoted(r.name), t, s);
    argsAndEnd(s, r.start, r.end, [&](ArgSink& a) { overheadArgs(r, a); });
  }

  void writeNvtxRange(const Slice& s, const Track& t) {
    const NvtxRecord& r = rec_.nvtx[s.index];
    beginSlice("nvtx", quoted(r.message), t, s);
    argsAndEnd(s, r.start, r.end, [&](ArgSink& a) { nvtxArgs(r, true, a); });
  }

  void nvtxArgsAndEnd(const NvtxRecord& r) {
    b_.lit(",\"args\":");
    JsonObject args(b_);
    ArgSink sink{*this, args};
    nvtxArgs(r, false, sink);
    args.close();
    endEvent();
  }

  // Marks as thread instants; start/end ranges as async slices of the host
  // process, which may overlap anything and may end on another thread.
  void writeNvtxInstantsAndAsync() {
    uint64_t asyncId = place_.asyncBase;
    auto head = [&](const char* phase, const NvtxRecord& r, uint32_t tid, uint64_t ns) {
      beginEvent();
      b_.put(phase);
      b_.lit(",\"cat\":\"nvtx\",\"name\":");
      b_.put(quoted(r.message));
      b_.lit(",\"pid\":");
      b_.uint(hostPid_);
      b_.lit(",\"tid\":");
      b_.uint(hostTid(tid));
      time(",\"ts\":", ns);
    };
    rec_.nvtx.forEach([&](const NvtxRecord& r) {
      if (!drawable(r.start, r.end)) return;
      const auto type = static_cast<NvtxType>(r.type);
      if (type == NvtxType::Mark) {
        head("\"ph\":\"i\",\"s\":\"t\"", r, r.threadId, r.start);
        nvtxArgsAndEnd(r);
      } else if (type == NvtxType::StartEnd) {
        // Async ids need only be unique among nvtx events; a counter is,
        // whatever ids the program's ranges had (kept in "range_id").
        ++asyncId;
        // An empty range as one async instant: at equal timestamps newer
        // Perfetto versions order ends before begins.
        head(r.end == r.start ? "\"ph\":\"n\"" : "\"ph\":\"b\"", r, r.threadId, r.start);
        b_.lit(",\"id\":");
        b_.uint(asyncId);
        nvtxArgsAndEnd(r);
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
  void threadSortIndexEvent(uint32_t pid, uint32_t tid, uint64_t index) {
    beginEvent();
    b_.lit("\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":");
    b_.uint(pid);
    b_.lit(",\"tid\":");
    b_.uint(tid);
    b_.lit(",\"ts\":0,\"args\":{\"sort_index\":");
    b_.uint(index);
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
        return hostThreadName(trace_, t.tid - in_.idOffset);
      case TrackKind::Overhead:
        return kOverheadTrackName;
      case TrackKind::Stream:
        return streamTrackName(trace_, t.tid, t.context);
      case TrackKind::Sync:
        return syncTrackName(trace_, t.context);
    }
    return {};
  }

  // The tracks in the order they are named: by process, kind and tid.
  std::vector<const Track*> namingOrder() const {
    std::vector<const Track*> order;
    order.reserve(tracks_.size());
    for (const Track& t : tracks_) order.push_back(&t);
    std::sort(order.begin(), order.end(), [](const Track* a, const Track* b) {
      return std::tie(a->pid, a->kind, a->tid) < std::tie(b->pid, b->kind, b->tid);
    });
    return order;
  }

  // process_name, process_sort_index and thread_name events, host first,
  // then each GPU in device order (Perfetto sorts processes by sort index).
  void writeNameEvents() {
    const std::vector<const Track*> order = namingOrder();
    nameEvent("process_name", hostPid_, hostPid_, hostProcessName(trace_) + in_.nameSuffix);
    sortIndexEvent(hostPid_, place_.sortBase);
    uint32_t namedPid = hostPid_;
    for (const Track* t : order) {
      if (t->pid != namedPid) {
        namedPid = t->pid;
        nameEvent("process_name", t->pid, t->pid,
                  gpuProcessName(trace_, t->device) + in_.nameSuffix);
        sortIndexEvent(t->pid, place_.sortBase + 1 + t->device);
      }
      nameEvent("thread_name", t->pid, t->tid, trackName(*t));
    }
  }

  // The names of the lanes, known once the slices are laid out: metadata
  // events are read wherever they are in the file. In a process with lanes
  // every track gets a thread_sort_index, so that each lane sorts right
  // under its track ("Stream 7", "Stream 7 ·2", "Stream 9").
  void writeLaneNames() {
    if (laneTracks_ == 0) return;
    const std::vector<const Track*> order = namingOrder();
    for (size_t i = 0; i < order.size();) {
      size_t next = i;
      bool lanes = false;
      for (; next < order.size() && order[next]->pid == order[i]->pid; ++next)
        lanes = lanes || order[next]->layout.lanes() > 1;
      uint64_t rank = 0;
      for (; lanes && i < next; ++i) {
        const Track& t = *order[i];
        threadSortIndexEvent(t.pid, t.tid, rank++);
        const std::string name = t.layout.lanes() > 1 ? trackName(t) : std::string();
        for (uint32_t lane = 1; lane < t.layout.lanes(); ++lane) {
          nameEvent("thread_name", t.pid, laneTid(t.tid, lane), laneName(name, lane));
          threadSortIndexEvent(t.pid, laneTid(t.tid, lane), rank++);
        }
      }
      i = next;
    }
  }

 public:
  // ---- Metadata ---------------------------------------------------------------

  // The trace's metadata object; in a merged file, also where it was put.
  void writeMetadata() {
    const TraceMetadata& m = trace_.meta;
    JsonObject meta(b_);
    if (place_.merged) {
      for (const auto& [key, value] : in_.labels) {
        meta.escapedKey(key);
        b_.quoted(value);
      }
      meta.u("shown_pid", hostPid_);
      meta.s("shown_process_name", hostProcessName(trace_) + in_.nameSuffix);
      meta.u("gpu_pid_base", gpuPid(0));
      meta.u("flow_id_base", place_.flowBase);
      meta.u("async_id_base", place_.asyncBase);
    }
    meta.s("tool", "cuptitrace");
    meta.s("tool_version", m.toolVersion);
    meta.s("host", m.hostName);
    meta.u("pid", m.pid);
    meta.s("process_name", m.processName);
    meta.s("command_line", m.commandLine);
    if (m.rank >= 0) {  // set by the launcher (core/rank_info.h)
      meta.u("rank", static_cast<uint64_t>(m.rank));
      if (m.localRank >= 0) meta.u("local_rank", static_cast<uint64_t>(m.localRank));
      if (m.worldSize != 0) meta.u("world_size", m.worldSize);
      meta.s("rank_source", m.rankSource);
    }
    meta.s("clock", m.clock);
    meta.u("base_timestamp_ns", base_);
    meta.u("start_timestamp_ns", m.startTimestampNs);
    meta.u("end_timestamp_ns", m.endTimestampNs);
    meta.u("start_realtime_ns", m.startRealtimeNs);
    meta.i("realtime_offset_ns", m.wallClockOffsetNs());
    meta.u("cupti_version", m.cuptiVersion);
    meta.i("driver_version", m.driverVersion);
    // CUPTITRACE_CAPTURE: when collection was on, and when CUPTI was detached past the last window.
    if (!m.captureWindows.empty()) {
      meta.key("capture_windows");
      b_.put('[');
      for (size_t w = 0; w < m.captureWindows.size(); ++w) {
        if (w != 0) b_.put(',');
        JsonObject window(b_);
        window.u("start_ns", m.captureWindows[w].startNs);
        window.u("end_ns", m.captureWindows[w].endNs);
        window.close();
      }
      b_.put(']');
    }
    if (m.cuptiDetachedNs != 0) meta.u("cupti_detached_ns", m.cuptiDetachedNs);
    // Which runtime and driver calls were recorded: the lean set is not every call.
    const std::string apiCalls = describeApiSets(recordedApiSets(trace_));
    if (!apiCalls.empty()) meta.s("api_calls", apiCalls);

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
      if (d.memoryBandwidthKBps != 0) device.u("memory_bandwidth_kbps", d.memoryBandwidthKBps);
      if (d.l2CacheBytes != 0) device.u("l2_cache_bytes", d.l2CacheBytes);
      if (d.copyEngines != 0) device.u("copy_engines", d.copyEngines);
      device.s("uuid", d.uuid);
      device.close();
    }
    b_.put(']');
    // The contexts that track names call "context N", with the names NVTX gave them.
    std::map<uint32_t, const ContextInfo*> contexts;
    for (const ContextInfo& c : trace_.contexts) contexts[c.contextId] = &c;
    for (const auto& named : trace_.contextNames) contexts.emplace(named.first, nullptr);
    if (!contexts.empty()) {
      meta.key("contexts");
      b_.put('[');
      for (auto it = contexts.begin(); it != contexts.end(); ++it) {
        if (it != contexts.begin()) b_.put(',');
        JsonObject context(b_);
        context.u("id", it->first);
        if (it->second != nullptr) {
          context.u("device", it->second->deviceId);
          context.u("null_stream", it->second->nullStreamId);
        }
        const auto named = trace_.contextNames.find(it->first);
        if (named != trace_.contextNames.end()) context.s("nvtx_name", named->second);
        context.close();
      }
      b_.put(']');
    }

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
    meta.u("max_lanes", maxLanes_);
    meta.u("lane_tracks", laneTracks_);
    meta.u("flows", flows_);
    meta.close();
  }

 private:
  const TimelineInput& in_;
  const Trace& trace_;
  JsonSink& sink_;
  JsonText& b_;  // sink_.b
  JsonPlacement place_;
  const TimelineRecords rec_;
  const FlowSources sources_;
  const ExternalIdIndex externalIds_;
  const OpenAccFlows accFlows_;  // OpenACC event -> the GPU work its CUDA calls launched
  NcclNames nccl_;  // which kernels are NCCL's collectives
  const uint32_t hostPid_;
  const size_t windowSlices_;

  uint64_t base_ = 0;
  uint64_t incomplete_ = 0;
  uint64_t clamped_ = 0;
  uint32_t maxLanes_ = 1;    // the most lanes of one track (track_layout.h)
  uint64_t laneTracks_ = 0;  // lanes past the first, over all tracks
  uint64_t flows_ = 0;
  uint64_t maxCorrelation_ = 0;
  uint64_t asyncCount_ = 0;
  IdSet gpuDrawn_;  // correlation ids of drawn GPU work

  std::vector<Track> tracks_;
  std::unordered_map<uint64_t, uint32_t> trackIndex_;  // (pid << 32 | tid) -> tracks_ index
  bool haveLastTrack_ = false;                         // consecutive records mostly share a track
  uint64_t lastTrackKey_ = 0;
  uint32_t lastTrack_ = 0;
  std::unordered_map<uint32_t, uint32_t> contextDevice_;
  TimelineSlices slices_;
  std::vector<uint64_t> windows_;  // bounds (slice_windows.h)
  std::vector<Slice> window_;      // the window's slices

  std::vector<std::string> quoted_;
  std::vector<std::string> kernelNames_;
};

}  // namespace

JsonExportStats writeChromeJson(const Trace& trace, std::ostream& out, size_t windowSlices) {
  JsonSink sink(out);
  const TimelineInput in = timelineInput(trace);
  ChromeJsonWriter writer(in, sink, windowSlices);
  writer.plan();
  sink.b.lit("{\"traceEvents\":[\n");
  writer.writeEvents(JsonPlacement{});
  sink.b.lit("\n],\n\"metadata\":");
  writer.writeMetadata();
  sink.b.lit("}\n");
  sink.flush();
  return sink.stats;
}

JsonExportStats writeChromeJson(const std::vector<TimelineInput>& inputs, std::ostream& out,
                                size_t windowSlices) {
  JsonSink sink(out);
  std::vector<std::unique_ptr<ChromeJsonWriter>> writers;
  // The file's base: the earliest wall-clock time any trace's timeline starts at.
  uint64_t wallBase = UINT64_MAX;
  for (const TimelineInput& in : inputs) {
    writers.push_back(std::make_unique<ChromeJsonWriter>(in, sink, windowSlices));
    writers.back()->plan();
    const auto offset = static_cast<uint64_t>(in.trace->meta.wallClockOffsetNs());
    wallBase = std::min(wallBase, writers.back()->ownBase() + offset);  // modulo 2^64
  }
  sink.b.lit("{\"traceEvents\":[\n");
  JsonPlacement place;
  place.merged = true;
  for (size_t i = 0; i < writers.size(); ++i) {
    const auto offset = static_cast<uint64_t>(inputs[i].trace->meta.wallClockOffsetNs());
    place.base = wallBase - offset;  // on this trace's clock
    writers[i]->writeEvents(place);
    place.flowBase += writers[i]->maxFlowId() + 1;
    place.asyncBase += writers[i]->asyncIds();
    place.sortBase += 100;
  }
  sink.b.lit("\n],\n\"metadata\":{\"tool\":\"cuptitrace\",\"merged_inputs\":");
  sink.b.uint(inputs.size());
  sink.b.lit(",\"base_realtime_ns\":");
  sink.b.uint(wallBase);
  sink.b.lit(",\"inputs\":[");
  for (size_t i = 0; i < writers.size(); ++i) {
    if (i != 0) sink.b.put(',');
    writers[i]->writeMetadata();
  }
  sink.b.lit("]}}\n");
  sink.flush();
  return sink.stats;
}

}  // namespace cuptitrace
