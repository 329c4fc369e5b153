// The memory tracks' encoders: Chrome JSON events and Perfetto packets of
// the memory model (memory_usage.cpp).
#include "exporters/memory_tracks.h"

#include <algorithm>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/json_text.h"
#include "exporters/pftrace/pftrace_wire.h"
#include "exporters/pftrace/proto_writer.h"
#include "timeline/track_layout.h"

namespace cuptitrace {
namespace {

// Tids of unified memory tracks: clear of stream ids (small), OS tids
// (< 2^22) and the sync and overhead tids (0x7FFFxxxx).
uint32_t uvmTid(uint8_t kind, uint32_t lane) {
  return 0x7FFE0000u | uint32_t{kind} << 8 | std::min<uint32_t>(lane, 255);
}

std::string hexAddress(uint64_t address) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s = "0x";
  int digits = 0;
  for (uint64_t v = address; v != 0; v >>= 4) ++digits;
  if (digits == 0) digits = 1;
  for (int i = digits - 1; i >= 0; --i) s += kHex[(address >> (4 * i)) & 0xf];
  return s;
}

// ---- Chrome JSON ------------------------------------------------------------------

class JsonEvents {
 public:
  JsonEvents(JsonText& out, bool first, uint64_t base, const std::function<void()>& flush)
      : out_(out), first_(first), base_(base), flush_(flush) {}

  size_t written() const { return written_; }

  void begin() {
    if (!first_) out_.lit(",\n");
    first_ = false;
    out_.put('{');
  }
  void end() {
    out_.put('}');
    ++written_;
    if (flush_) flush_();
  }
  void where(uint32_t pid, uint32_t tid) {
    out_.lit(",\"pid\":");
    out_.uint(pid);
    out_.lit(",\"tid\":");
    out_.uint(tid);
  }
  void ts(uint64_t ns) {
    out_.lit(",\"ts\":");
    out_.micros(static_cast<int64_t>(ns - base_));
  }

  void name(const char* what, uint32_t pid, uint32_t tid, const std::string& text) {
    begin();
    out_.lit("\"ph\":\"M\",\"name\":\"");
    out_.put(what);
    out_.put('"');
    where(pid, tid);
    out_.lit(",\"ts\":0,\"args\":{\"name\":");
    out_.quoted(text);
    out_.put('}');
    end();
  }
  void sortIndex(const char* what, uint32_t pid, uint32_t tid, uint64_t index) {
    begin();
    out_.lit("\"ph\":\"M\",\"name\":\"");
    out_.put(what);
    out_.put('"');
    where(pid, tid);
    out_.lit(",\"ts\":0,\"args\":{\"sort_index\":");
    out_.uint(index);
    out_.put('}');
    end();
  }
  void counter(const std::string& name, const char* key, uint32_t pid, const CounterPoint& p) {
    begin();
    out_.lit("\"ph\":\"C\",\"cat\":\"memory\",\"name\":");
    out_.quoted(name);
    out_.lit(",\"pid\":");
    out_.uint(pid);
    ts(p.ts);
    out_.lit(",\"args\":{\"");
    out_.put(key);
    out_.lit("\":");
    out_.uint(p.value);
    out_.put('}');
    end();
  }

  JsonText& out() { return out_; }

 private:
  JsonText& out_;
  bool first_;
  uint64_t base_;
  const std::function<void()>& flush_;
  size_t written_ = 0;
};

// The arguments of a unified memory slice or instant, as "key":value pairs.
template <typename Put>
void uvmArgs(const UvmRecord& r, Put&& put) {
  const auto kind = static_cast<UvmKind>(r.kind);
  if (r.address != 0) put.text("address", hexAddress(r.address));
  if (isUvmTransfer(r.kind) || kind == UvmKind::Thrashing || kind == UvmKind::RemoteMap)
    put.number("bytes", r.value);
  if (kind == UvmKind::GpuPageFault) put.number("fault_groups", r.value);
  if (kind == UvmKind::CpuPageFault) put.text("pc", hexAddress(r.value));
  if (isUvmTransfer(r.kind)) {
    put.number("src", r.srcId);
    put.number("dst", r.dstId);
    if (*uvmCauseName(r.cause)) put.text("cause", uvmCauseName(r.cause));
  }
  if (kind == UvmKind::GpuPageFault && *uvmAccessName(r.accessType))
    put.text("access", uvmAccessName(r.accessType));
}

struct JsonArgs {
  JsonText& out;
  bool first = true;
  void key(const char* k) {
    out.put(first ? '{' : ',');
    first = false;
    out.put('"');
    out.put(k);
    out.lit("\":");
  }
  void number(const char* k, uint64_t v) {
    key(k);
    out.uint(v);
  }
  void text(const char* k, const std::string& v) {
    key(k);
    out.quoted(v);
  }
  void close() { out.put(first ? std::string_view("{}") : std::string_view("}")); }
};

}  // namespace

size_t writeJsonMemoryEvents(const TimelineInput& in, uint64_t base, uint64_t sortBase, JsonText& out,
                             bool first, const std::function<void()>& flush) {
  const Trace& trace = *in.trace;
  if (trace.store.count(RecordKind::Memory) == 0 && trace.store.count(RecordKind::Uvm) == 0) return 0;
  const MemoryUsage memory = memoryUsage(trace);
  const UvmTimeline uvm = uvmTimeline(trace);
  const auto& records = trace.store.records<UvmRecord>();
  const uint32_t hostPid = in.hostPid();
  auto gpuPid = [&](uint32_t device) { return gpuProcessId(in.gpuKey, device); };
  JsonEvents events(out, first, base, flush);

  // Names of the processes and tracks used. A GPU process may also be named
  // by the timeline's own tracks: the same name again changes nothing.
  std::vector<uint32_t> devices;
  for (const auto& d : memory.devices)
    if (!d.points.empty()) devices.push_back(d.device);
  for (const auto& t : uvm.tracks)
    if (t.device != kUvmNoDevice) devices.push_back(t.device);
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  for (const uint32_t d : devices) {
    const uint32_t pid = gpuPid(d);
    events.name("process_name", pid, pid, gpuProcessName(trace, d) + in.nameSuffix);
    events.sortIndex("process_sort_index", pid, pid, sortBase + 1 + d);
  }
  for (const auto& t : uvm.tracks) {
    const uint32_t pid = t.device == kUvmNoDevice ? hostPid : gpuPid(t.device);
    events.name("thread_name", pid, uvmTid(t.kind, t.lane), uvmTrackName(t.kind));
  }

  for (const auto& d : memory.devices) {
    const uint32_t pid = gpuPid(d.device);
    for (const CounterPoint& p : d.points) events.counter(kMemoryCounterName, "bytes", pid, p);
  }
  for (const auto& c : uvm.counters) {
    const uint32_t pid = c.device == kUvmNoDevice ? hostPid : gpuPid(c.device);
    const std::string name = uvmTrackName(c.kind);
    for (const CounterPoint& p : c.points) events.counter(name, uvmCounterKey(c.kind), pid, p);
  }
  for (const auto& t : uvm.tracks) {
    const uint32_t pid = t.device == kUvmNoDevice ? hostPid : gpuPid(t.device);
    const uint32_t tid = uvmTid(t.kind, t.lane);
    for (const uint32_t i : t.records) {
      const UvmRecord& r = records[i];
      events.begin();
      if (r.end == r.start)
        out.lit("\"ph\":\"i\",\"s\":\"t\"");
      else
        out.lit("\"ph\":\"X\"");
      out.lit(",\"cat\":\"uvm\",\"name\":\"");
      out.put(uvmKindName(r.kind));
      out.put('"');
      events.where(pid, tid);
      events.ts(r.start);
      if (r.end != r.start) {
        out.lit(",\"dur\":");
        out.micros(static_cast<int64_t>(r.end - r.start));
      }
      out.lit(",\"args\":");
      JsonArgs args{out};
      uvmArgs(r, args);
      args.close();
      events.end();
    }
  }
  return events.written();
}

// ---- Perfetto protobuf -------------------------------------------------------------

namespace {

// Field numbers and tags (PERFETTO.md): the .pftrace writer's.
using namespace pftrace;

// Names may hold NVTX text: Perfetto wants UTF-8, so anything else is replaced.
std::string asciiOnly(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (static_cast<unsigned char>(c) >= 0x80 || static_cast<unsigned char>(c) < 0x20) c = '?';
  return out;
}

struct ProtoArgs {
  ProtoWriter& p;
  void number(const char* k, uint64_t v) {
    auto a = p.beginNested(event_field::kDebugAnnotations);
    p.bytesField(annotation_field::kName, k);
    p.varintField(annotation_field::kUintValue, v);
    p.endNestedCompact(a);
  }
  void text(const char* k, const std::string& v) {
    auto a = p.beginNested(event_field::kDebugAnnotations);
    p.bytesField(annotation_field::kName, k);
    p.bytesField(annotation_field::kStringValue, v);
    p.endNestedCompact(a);
  }
};

// One event of the sequence, ordered by time; at equal times ends first,
// then instants and counters, then begins (as the timeline's own events).
struct ProtoEvent {
  uint64_t ts;
  uint8_t phase;  // 0 end, 1 instant, 2 counter, 3 begin
  uint64_t track;
  uint32_t record;  // UvmRecord index (slices, instants)
  uint64_t value;   // counters
};

}  // namespace

PerfettoMemorySequence::PerfettoMemorySequence(const TimelineInput& in, const PerfettoMemoryOptions& options) {
  const Trace& trace = *in.trace;
  if (trace.store.count(RecordKind::Memory) == 0 && trace.store.count(RecordKind::Uvm) == 0) return;
  const MemoryUsage memory = memoryUsage(trace);
  const UvmTimeline uvm = uvmTimeline(trace);
  const auto& records = trace.store.records<UvmRecord>();
  const uint32_t hostPid = in.hostPid();

  // Uuids of our own: a tag in the top byte, the host pid, then a count, so
  // that they meet neither the timeline's small uuids nor another process's.
  uint64_t nextUuid = uint64_t{0xC7} << 56 | uint64_t{hostPid & 0xFFFFFFu} << 32;
  // TrackDescriptor messages, processes apart: other tracks name them as parent.
  ProtoWriter processes, tracks;
  std::vector<std::pair<size_t, size_t>> processesAt, tracksAt;  // (offset, size) of each
  auto describeIn = [](ProtoWriter& w, std::vector<std::pair<size_t, size_t>>& at, auto&& fill) {
    const size_t from = w.size();
    fill(w);
    at.push_back({from, w.size() - from});
  };
  auto describe = [&](auto&& fill) { describeIn(tracks, tracksAt, fill); };
  std::map<uint32_t, uint64_t> processUuid;  // GPUs with no process track in the timeline
  auto gpuProcess = [&](uint32_t device) -> uint64_t {
    if (device == kUvmNoDevice) return options.hostProcessUuid;
    const uint64_t known = options.gpuProcessUuid ? options.gpuProcessUuid(device) : 0;
    if (known != 0) return known;
    const auto inserted = processUuid.try_emplace(device, 0);
    const auto it = inserted.first;  // a plain name: C++17 lambdas cannot capture bindings
    if (inserted.second) {
      it->second = ++nextUuid;
      describeIn(processes, processesAt, [&](ProtoWriter& p) {
        p.varintField(track_field::kUuid, it->second);
        auto proc = p.beginNested(track_field::kProcess);
        p.varintField(track_field::kProcessPid, gpuProcessId(in.gpuKey, device));
        p.bytesField(track_field::kProcessName, asciiOnly(gpuProcessName(trace, device) + in.nameSuffix));
        p.endNestedCompact(proc);
      });
    }
    return it->second;
  };
  auto counterTrack = [&](uint32_t device, const std::string& name, uint64_t unit) {
    const uint64_t parent = gpuProcess(device);
    const uint64_t uuid = ++nextUuid;
    describe([&](ProtoWriter& p) {
      p.varintField(track_field::kUuid, uuid);
      p.bytesField(track_field::kName, name);
      p.varintField(track_field::kParentUuid, parent);
      auto c = p.beginNested(track_field::kCounter);
      p.varintField(track_field::kCounterUnit, unit);
      p.endNestedCompact(c);
      p.varintField(track_field::kSiblingMergeBehavior, track_field::kMergeNone);
    });
    return uuid;
  };

  std::vector<ProtoEvent> events;
  for (const auto& d : memory.devices) {
    if (d.points.empty()) continue;
    const uint64_t track = counterTrack(d.device, std::string(kMemoryCounterName) + " bytes", track_field::kUnitBytes);
    for (const CounterPoint& p : d.points) events.push_back({p.ts, 2, track, 0, p.value});
  }
  for (const auto& c : uvm.counters) {
    const uint64_t unit = isUvmTransfer(c.kind) ? track_field::kUnitBytes : track_field::kUnitCount;
    const uint64_t track = counterTrack(c.device, uvmCounterName(c.kind), unit);
    for (const CounterPoint& p : c.points) events.push_back({p.ts, 2, track, 0, p.value});
  }
  for (const auto& t : uvm.tracks) {
    const uint64_t parent = gpuProcess(t.device);
    const uint64_t uuid = ++nextUuid;
    // Lanes of one kind keep the default merge (by name): one track in the UI.
    describe([&](ProtoWriter& p) {
      p.varintField(track_field::kUuid, uuid);
      p.bytesField(track_field::kName, uvmTrackName(t.kind));
      p.varintField(track_field::kParentUuid, parent);
    });
    for (const uint32_t i : t.records) {
      const UvmRecord& r = records[i];
      if (r.end == r.start) {
        events.push_back({r.start, 1, uuid, i, 0});
      } else {
        events.push_back({r.start, 3, uuid, i, 0});
        events.push_back({r.end, 0, uuid, i, 0});
      }
    }
  }
  if (events.empty()) return;
  std::stable_sort(events.begin(), events.end(), [](const ProtoEvent& a, const ProtoEvent& b) {
    return std::tie(a.ts, a.phase) < std::tie(b.ts, b.phase);
  });

  // The reference of the sequence's clock: the timeline's base, or our
  // earliest event if it is earlier (no delta may be negative).
  const uint64_t reference = std::min(options.base != 0 ? options.base : events.front().ts, events.front().ts);
  const uint64_t sequenceFlagsLater = kNeedsIncrementalState;
  {
    // The first packet: clears the sequence's state, defines its clock (tied
    // to REALTIME as the timeline's own is) and makes it the default.
    auto pk = header_.beginNested(trace_field::kPacket);
    clockSnapshot(header_, reference, reference + static_cast<uint64_t>(trace.meta.wallClockOffsetNs()));
    header_.varintField(packet_field::kSequenceId, options.sequenceId);
    header_.varintField(packet_field::kSequenceFlags, kIncrementalStateCleared | kNeedsIncrementalState);
    auto defaults = header_.beginNested(packet_field::kTracePacketDefaults);
    header_.varintField(defaults_field::kTimestampClockId, kClockTrace);
    header_.endNestedCompact(defaults);
    header_.endNestedCompact(pk);
    ++packets_;
  }
  auto descriptorPackets = [&](const ProtoWriter& w, const std::vector<std::pair<size_t, size_t>>& at) {
    for (const auto& [from, size] : at) {
      auto pk = header_.beginNested(trace_field::kPacket);
      header_.varintField(packet_field::kTimestamp, 0);  // at the clock's reference
      header_.varintField(packet_field::kSequenceId, options.sequenceId);
      header_.varintField(packet_field::kSequenceFlags, sequenceFlagsLater);
      header_.bytesField(packet_field::kTrackDescriptor, w.view().substr(from, size));
      header_.endNestedCompact(pk);
      ++packets_;
    }
  };
  descriptorPackets(processes, processesAt);
  descriptorPackets(tracks, tracksAt);

  uint64_t last = reference;
  const auto offset = static_cast<uint64_t>(trace.meta.wallClockOffsetNs());
  for (const ProtoEvent& e : events) {
    starts_.push_back({e.ts + offset, events_.size()});  // modulo 2^64: either sign
    auto pk = events_.beginNested(trace_field::kPacket);
    events_.varintField(packet_field::kTimestamp, e.ts - last);
    last = e.ts;
    events_.varintField(packet_field::kSequenceId, options.sequenceId);
    auto te = events_.beginNested(packet_field::kTrackEvent);
    switch (e.phase) {
      case 0:
        events_.varintField(event_field::kType, kSliceEnd);
        break;
      case 2:
        events_.varintField(event_field::kType, kCounter);
        events_.int64Field(event_field::kCounterValue, static_cast<int64_t>(e.value));
        break;
      default: {
        const UvmRecord& r = records[e.record];
        ProtoArgs args{events_};
        uvmArgs(r, args);
        events_.varintField(event_field::kType, e.phase == 1 ? kInstant : kSliceBegin);
        events_.bytesField(event_field::kCategories, "uvm");
        events_.bytesField(event_field::kName, uvmKindName(r.kind));
        break;
      }
    }
    events_.varintField(event_field::kTrackUuid, e.track);
    events_.endNestedCompact(te);
    events_.varintField(packet_field::kSequenceFlags, sequenceFlagsLater);
    events_.endNestedCompact(pk);
    ++packets_;
  }
}

std::string_view PerfettoMemorySequence::header() const { return header_.view(); }

std::string_view PerfettoMemorySequence::takeUntil(uint64_t wall) {
  const size_t from = next_;
  while (next_ < starts_.size() && starts_[next_].first <= wall) ++next_;
  const size_t begin = from < starts_.size() ? starts_[from].second : events_.size();
  const size_t end = next_ < starts_.size() ? starts_[next_].second : events_.size();
  return events_.view().substr(begin, end - begin);
}

std::string_view PerfettoMemorySequence::rest() { return takeUntil(UINT64_MAX); }

}  // namespace cuptitrace
