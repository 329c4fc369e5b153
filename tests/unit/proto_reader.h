// A protobuf wire-format reader for tests: no schema, no libprotobuf. It
// splits a message into its fields (number, wire type, value or bytes), so
// tests can check what an exporter wrote field by field. Written apart from
// formats/proto_writer so that a mistake in one does not hide in the other.
// Malformed input throws std::runtime_error, failing the test that reads it.
//
// On top of it, decodePerfetto() reads a .pftrace the way Perfetto's trace
// processor does (sequences and their incremental state, interning, packet
// defaults, incremental clocks tied to REALTIME, track descriptors,
// begin/end pairs, flows started and terminated in time order) and notes
// every rule the file breaks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cuptitrace::testing::proto {

enum Wire : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kBytes = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5
};

struct Field {
  uint32_t number = 0;
  uint8_t wire = 0;
  uint64_t value = 0;      // varint, fixed64 and fixed32 fields
  std::string_view bytes;  // length-delimited fields: the content
  size_t varintBytes = 0;  // bytes the varint value (or a length) took, to check minimal encoding
};

// Reads a varint at `p`, advancing it; throws past `end` or past 10 bytes.
inline uint64_t readVarint(const uint8_t*& p, const uint8_t* end, size_t* width = nullptr) {
  uint64_t v = 0;
  for (int i = 0; i < 10; ++i) {
    if (p == end) throw std::runtime_error("varint runs past the end");
    const uint8_t b = *p++;
    if (i == 9 && b > 1) throw std::runtime_error("varint overflows 64 bits");
    v |= uint64_t{b & 0x7Fu} << (7 * i);
    if ((b & 0x80) == 0) {
      if (width) *width = static_cast<size_t>(i + 1);
      return v;
    }
  }
  throw std::runtime_error("varint longer than 10 bytes");
}

// The fields of one message, in order.
inline std::vector<Field> parseFields(std::string_view message) {
  std::vector<Field> fields;
  const auto* p = reinterpret_cast<const uint8_t*>(message.data());
  const auto* end = p + message.size();
  while (p != end) {
    const uint64_t key = readVarint(p, end);
    Field f;
    f.number = static_cast<uint32_t>(key >> 3);
    f.wire = static_cast<uint8_t>(key & 7);
    if (f.number == 0 || key >> 3 > 0x1FFFFFFF) throw std::runtime_error("invalid field number");
    switch (f.wire) {
      case kVarint:
        f.value = readVarint(p, end, &f.varintBytes);
        break;
      case kFixed64:
        if (end - p < 8) throw std::runtime_error("fixed64 runs past the end");
        for (int i = 0; i < 8; ++i) f.value |= uint64_t{p[i]} << (8 * i);
        p += 8;
        break;
      case kFixed32:
        if (end - p < 4) throw std::runtime_error("fixed32 runs past the end");
        for (int i = 0; i < 4; ++i) f.value |= uint64_t{p[i]} << (8 * i);
        p += 4;
        break;
      case kBytes: {
        const uint64_t length = readVarint(p, end, &f.varintBytes);
        if (length > static_cast<uint64_t>(end - p))
          throw std::runtime_error("length-delimited field runs past the end");
        f.bytes = std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(length));
        p += length;
        break;
      }
      default:
        throw std::runtime_error("unsupported wire type " + std::to_string(f.wire));
    }
    fields.push_back(f);
  }
  return fields;
}

// A parsed message. The bytes it was parsed from must outlive it.
class Message {
 public:
  Message() = default;
  explicit Message(std::string_view bytes) : bytes_(bytes), fields_(parseFields(bytes)) {}

  std::string_view bytes() const { return bytes_; }
  const std::vector<Field>& fields() const { return fields_; }

  size_t count(uint32_t number) const {
    size_t n = 0;
    for (const Field& f : fields_) n += f.number == number ? 1 : 0;
    return n;
  }
  bool has(uint32_t number) const { return count(number) != 0; }

  // The last occurrence of a field (protobuf: the last one wins); throws
  // when it is missing or of another wire type.
  const Field& field(uint32_t number, uint8_t wire) const {
    const Field* found = nullptr;
    for (const Field& f : fields_)
      if (f.number == number) found = &f;
    if (found == nullptr) throw std::runtime_error("missing field " + std::to_string(number));
    if (found->wire != wire)
      throw std::runtime_error("field " + std::to_string(number) + " has wire type " +
                               std::to_string(found->wire));
    return *found;
  }
  uint64_t u(uint32_t number) const { return field(number, kVarint).value; }
  int64_t i(uint32_t number) const { return static_cast<int64_t>(u(number)); }
  uint64_t fixed64(uint32_t number) const { return field(number, kFixed64).value; }
  double dbl(uint32_t number) const {
    const uint64_t bits = fixed64(number);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  std::string str(uint32_t number) const { return std::string(field(number, kBytes).bytes); }
  Message msg(uint32_t number) const { return Message(field(number, kBytes).bytes); }
  uint64_t u(uint32_t number, uint64_t missing) const { return has(number) ? u(number) : missing; }

  // Every occurrence of a repeated field.
  std::vector<Message> msgs(uint32_t number) const {
    std::vector<Message> out;
    for (const Field& f : fields_) {
      if (f.number != number) continue;
      if (f.wire != kBytes)
        throw std::runtime_error("field " + std::to_string(number) + " is not a message");
      out.emplace_back(f.bytes);
    }
    return out;
  }
  // Every value of a repeated scalar field, unpacked or packed (varints and fixed64).
  std::vector<uint64_t> all(uint32_t number, uint8_t wire) const {
    std::vector<uint64_t> out;
    for (const Field& f : fields_) {
      if (f.number != number) continue;
      if (f.wire == wire) {
        out.push_back(f.value);
      } else if (f.wire == kBytes) {
        const auto* p = reinterpret_cast<const uint8_t*>(f.bytes.data());
        const auto* end = p + f.bytes.size();
        while (p != end) {
          if (wire == kVarint) {
            out.push_back(readVarint(p, end));
          } else {
            if (end - p < 8) throw std::runtime_error("packed fixed64 runs past the end");
            uint64_t v = 0;
            for (int i = 0; i < 8; ++i) v |= uint64_t{p[i]} << (8 * i);
            out.push_back(v);
            p += 8;
          }
        }
      } else {
        throw std::runtime_error("field " + std::to_string(number) + " has the wrong wire type");
      }
    }
    return out;
  }

 private:
  std::string_view bytes_;
  std::vector<Field> fields_;
};

// The packets of a trace: a Trace message whose only field is `packet = 1`.
inline std::vector<Message> tracePackets(std::string_view trace) {
  std::vector<Message> packets;
  for (const Field& f : parseFields(trace)) {
    if (f.number != 1 || f.wire != kBytes)
      throw std::runtime_error("a Trace holds only packets (field 1, length-delimited)");
    packets.emplace_back(f.bytes);
  }
  return packets;
}

// Bytes from text like "0a 05 08 01" (spaces and newlines ignored).
inline std::string fromHex(std::string_view hex) {
  std::string out;
  int high = -1;
  for (const char c : hex) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else if (c == ' ' || c == '\n') {
      continue;
    } else {
      throw std::runtime_error(std::string("not a hex digit: ") + c);
    }
    if (high < 0) {
      high = v;
    } else {
      out += static_cast<char>(high << 4 | v);
      high = -1;
    }
  }
  if (high >= 0) throw std::runtime_error("odd number of hex digits");
  return out;
}

// "0a 05 08 01": bytes as spaced hex, to show a difference readably.
inline std::string toHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (!out.empty()) out += ' ';
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

}  // namespace cuptitrace::testing::proto

namespace cuptitrace::testing::perfetto {

using proto::Message;

// Field numbers, from PERFETTO.md and Perfetto's protos (not from the
// exporter: a wrong number there must fail here).
namespace f {
// TracePacket
constexpr uint32_t kClockSnapshot = 6, kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11,
                   kInternedData = 12, kSequenceFlags = 13, kTimestampClockId = 58, kDefaults = 59,
                   kTrackDescriptor = 60;
// TracePacketDefaults, TrackEventDefaults
constexpr uint32_t kDefaultsClockId = 58, kDefaultsTrackEvent = 11, kDefaultTrackUuid = 11;
// ClockSnapshot and its Clock
constexpr uint32_t kClocks = 1, kPrimaryClock = 2, kClockId = 1, kClockTimestamp = 2,
                   kClockIncremental = 3;
// TrackDescriptor, ProcessDescriptor, ThreadDescriptor
constexpr uint32_t kUuid = 1, kName = 2, kProcess = 3, kThread = 4, kParent = 5,
                   kChildOrdering = 11, kRank = 12, kMerge = 15;
constexpr uint32_t kPid = 1, kCmdline = 2, kProcessName = 6, kTid = 2, kThreadName = 5;
// TrackEvent
constexpr uint32_t kCategoryIids = 3, kAnnotations = 4, kType = 9, kNameIid = 10, kTrackUuid = 11,
                   kEventName = 23, kCategories = 22, kFlowIdsOld = 36, kTerminatingFlowIdsOld = 42,
                   kFlowIds = 47, kTerminatingFlowIds = 48;
constexpr uint64_t kBegin = 1, kEnd = 2, kInstant = 3, kCounter = 4;
constexpr uint32_t kCounterValue = 30, kCounterDescriptor = 8, kCounterUnit = 3;
// DebugAnnotation
constexpr uint32_t kArgNameIid = 1, kArgName = 10, kBool = 2, kUint = 3, kInt = 4, kDouble = 5,
                   kString = 6, kStringIid = 17;
// InternedData
constexpr uint32_t kInternedCategories = 1, kInternedNames = 2, kInternedArgNames = 3,
                   kInternedStrings = 29;
// Clocks
constexpr uint64_t kRealtime = 1;
}  // namespace f

struct Arg {
  enum Kind { Uint, Int, Bool, Double, String } kind = Uint;
  uint64_t u = 0;
  int64_t i = 0;
  bool b = false;
  double d = 0;
  std::string s;
};
using Args = std::map<std::string, Arg>;

struct Event {
  size_t packet = 0;
  uint64_t sequence = 0;
  uint64_t ts = 0;    // absolute, on the clock of its sequence (the trace's own)
  uint64_t wall = 0;  // on REALTIME, the file's trace clock
  uint64_t type = 0;
  uint64_t track = 0;
  std::string name;
  std::vector<std::string> categories;
  Args args;
  std::vector<uint64_t> flows, terminating;
  int64_t counterValue = 0;  // COUNTER events
};

struct TrackInfo {
  uint64_t uuid = 0, parent = 0;
  std::string name;
  bool process = false, thread = false;
  int64_t pid = -1, tid = -1;
  std::string processName, threadName, cmdline;
  uint64_t merge = 0, childOrdering = 0;
  int64_t rank = -1;
  bool counter = false;  // has a CounterDescriptor
  uint64_t counterUnit = 0;
};

// A slice: a SLICE_BEGIN and the SLICE_END that closed it.
struct SliceOut {
  Event begin;
  uint64_t end = 0;      // on the begin's clock
  uint64_t endWall = 0;  // on REALTIME
  size_t depth = 0;
};

// An arrow as trace processor draws it: from the event that started a flow
// to the one that terminated it (indices into Decoded::events).
struct Arrow {
  size_t from = 0, to = 0;
};

struct Decoded {
  std::string bytes;
  std::vector<Message> packets;
  std::vector<Event> events;  // in file order
  std::map<uint64_t, TrackInfo> tracks;
  std::vector<SliceOut> slices;
  std::vector<Event> instants;
  std::vector<Event> counters;  // COUNTER events, in time order
  std::vector<Arrow> arrows;
  std::vector<std::string> problems;  // every rule broken, in words
  // The first sequence's clock: its reference on the trace clock and on REALTIME.
  uint64_t clockReference = 0, realtimeReference = 0;
  std::map<uint64_t, int64_t> sequenceOffsets;  // sequence -> REALTIME minus its clock

  const TrackInfo& track(uint64_t uuid) const { return tracks.at(uuid); }
  // The pid of the process a track belongs to.
  int64_t pidOf(uint64_t uuid) const {
    const TrackInfo& t = track(uuid);
    if (t.process || t.thread) return t.pid;
    return t.parent != 0 ? pidOf(t.parent) : -1;
  }
  // What the UI shows as the track's name.
  std::string nameOf(uint64_t uuid) const {
    const TrackInfo& t = track(uuid);
    if (t.thread) return t.threadName;
    if (t.process) return t.processName;
    return t.name;
  }
  std::vector<SliceOut> slicesOf(const std::string& category) const {
    std::vector<SliceOut> out;
    for (const SliceOut& s : slices)
      if (s.begin.categories == std::vector<std::string>{category}) out.push_back(s);
    return out;
  }
  std::vector<SliceOut> slicesNamed(const std::string& name) const {
    std::vector<SliceOut> out;
    for (const SliceOut& s : slices)
      if (s.begin.name == name) out.push_back(s);
    return out;
  }
  const TrackInfo* processTrack(int64_t pid) const {
    for (const auto& [uuid, t] : tracks)
      if (t.process && t.pid == pid) return &t;
    return nullptr;
  }
  // The track named `name` in process `pid`, or nullptr (or the first of several).
  const TrackInfo* trackNamed(int64_t pid, const std::string& name) const {
    for (const auto& [uuid, t] : tracks)
      if (!t.process && pidOf(uuid) == pid && nameOf(uuid) == name) return &t;
    return nullptr;
  }
  // The event an arrow into event `to` comes from, or nullptr.
  const Event* arrowInto(size_t to) const {
    for (const Arrow& a : arrows)
      if (a.to == to) return &events[a.from];
    return nullptr;
  }
  std::string problemText() const {
    std::string out;
    for (const std::string& p : problems) out += p + "\n";
    return out;
  }
};

namespace detail {

struct SequenceState {
  bool cleared = false;  // incremental state valid
  std::map<uint32_t, std::map<uint64_t, std::string>> interned;
  uint64_t defaultClock = 0, defaultTrack = 0;
  bool hasDefaultTrack = false;
  bool incremental = false;
  bool haveClock = false;
  uint64_t clockValue = 0;  // the incremental clock's last value
  int64_t offset = 0;       // REALTIME minus the clock
  uint64_t lastTs = 0;
};

inline Args readArgs(const Message& event, SequenceState& s, std::vector<std::string>& problems) {
  Args args;
  const auto& names = s.interned[f::kInternedArgNames];
  const auto& strings = s.interned[f::kInternedStrings];
  for (const Message& a : event.msgs(f::kAnnotations)) {
    std::string name;
    if (a.has(f::kArgNameIid)) {
      const auto it = names.find(a.u(f::kArgNameIid));
      if (it == names.end()) {
        problems.push_back("annotation name iid " + std::to_string(a.u(f::kArgNameIid)) +
                           " used before it was defined on its sequence");
        continue;
      }
      name = it->second;
    } else {
      name = a.str(f::kArgName);
    }
    Arg v;
    if (a.has(f::kUint)) {
      v.kind = Arg::Uint;
      v.u = a.u(f::kUint);
    } else if (a.has(f::kInt)) {
      v.kind = Arg::Int;
      v.i = a.i(f::kInt);
    } else if (a.has(f::kBool)) {
      v.kind = Arg::Bool;
      v.b = a.u(f::kBool) != 0;
    } else if (a.has(f::kDouble)) {
      v.kind = Arg::Double;
      v.d = a.dbl(f::kDouble);
    } else if (a.has(f::kString)) {
      v.kind = Arg::String;
      v.s = a.str(f::kString);
    } else if (a.has(f::kStringIid)) {
      v.kind = Arg::String;
      const auto it = strings.find(a.u(f::kStringIid));
      if (it == strings.end()) {
        problems.push_back("string value iid " + std::to_string(a.u(f::kStringIid)) +
                           " used before it was defined on its sequence");
      } else {
        v.s = it->second;
      }
    } else {
      problems.push_back("annotation " + name + " has no value");
    }
    if (args.count(name)) problems.push_back("annotation " + name + " written twice");
    args[name] = v;
  }
  return args;
}

}  // namespace detail

// Reads a trace back as Perfetto would, noting every rule it breaks. Our
// own conventions are checked too: one clock per sequence (id 64,
// incremental, tied to REALTIME), the first packet of each sequence clearing
// its state, no packet clearing it again, events in wall-clock order.
inline Decoded decodePerfetto(std::string bytes) {
  Decoded d;
  d.bytes = std::move(bytes);
  d.packets = proto::tracePackets(d.bytes);
  auto problem = [&](size_t packet, const std::string& what) {
    d.problems.push_back("packet " + std::to_string(packet) + ": " + what);
  };
  std::map<uint64_t, detail::SequenceState> sequences;
  uint64_t lastWall = 0;
  bool first = true;
  for (size_t i = 0; i < d.packets.size(); ++i) {
    const Message& p = d.packets[i];
    if (!p.has(f::kSequenceId) || p.u(f::kSequenceId) == 0) {
      problem(i, "no trusted_packet_sequence_id");
      continue;
    }
    const uint64_t id = p.u(f::kSequenceId);
    const bool seen = sequences.count(id) != 0;
    detail::SequenceState& s = sequences[id];
    const uint64_t flags = p.u(f::kSequenceFlags, 0);
    if (!seen && flags != 3) problem(i, "first packet of a sequence does not have flags 1|2");
    if (seen && flags != 0 && flags != 2) problem(i, "flags " + std::to_string(flags));
    if (flags & 1) {
      s = detail::SequenceState();
      s.cleared = true;
    }
    if (p.has(f::kDefaults)) {
      const Message defaults = p.msg(f::kDefaults);
      s.defaultClock = defaults.u(f::kDefaultsClockId, 0);
      if (defaults.has(f::kDefaultsTrackEvent)) {
        const Message te = defaults.msg(f::kDefaultsTrackEvent);
        s.hasDefaultTrack = te.has(f::kDefaultTrackUuid);
        s.defaultTrack = te.u(f::kDefaultTrackUuid, 0);
      }
    }
    if (p.has(f::kInternedData)) {
      if (!s.cleared) problem(i, "interned data on a sequence whose state is not valid");
      const Message data = p.msg(f::kInternedData);
      for (const proto::Field& field : data.fields()) {
        const Message entry(field.bytes);
        const uint64_t iid = entry.u(1);
        const std::string name = entry.str(2);
        if (iid == 0) problem(i, "interned iid 0");
        auto& table = s.interned[field.number];
        const auto [it, added] = table.try_emplace(iid, name);
        if (!added) problem(i, "iid " + std::to_string(iid) + " defined twice on its sequence");
      }
    }
    if (p.has(f::kClockSnapshot)) {
      const Message snapshot = p.msg(f::kClockSnapshot);
      if (snapshot.u(f::kPrimaryClock, 0) != f::kRealtime) problem(i, "trace clock is not REALTIME");
      uint64_t clock = 0, realtime = 0, boottime = 0;
      bool haveRealtime = false, haveBoottime = false;
      for (const Message& c : snapshot.msgs(f::kClocks)) {
        if (c.u(f::kClockId) == 6) {  // BOOTTIME
          boottime = c.u(f::kClockTimestamp);
          haveBoottime = true;
        }
        if (c.u(f::kClockId) == 64) {
          clock = c.u(f::kClockTimestamp);
          s.clockValue = clock;
          s.incremental = c.u(f::kClockIncremental, 0) != 0;
          s.haveClock = true;
        } else if (c.u(f::kClockId) == f::kRealtime) {
          realtime = c.u(f::kClockTimestamp);
          haveRealtime = true;
        }
      }
      if (!s.haveClock || !haveRealtime) problem(i, "clock snapshot without clock 64 and REALTIME");
      // Without BOOTTIME, Perfetto's default clock, trace processor counts
      // clock_sync_unrelatable_clock_domains (PERFETTO.md); ours equals REALTIME.
      if (!haveBoottime || boottime != realtime)
        problem(i, "clock snapshot without BOOTTIME at REALTIME's value");
      s.offset = static_cast<int64_t>(realtime - clock);
      s.lastTs = clock;
      d.sequenceOffsets[id] = s.offset;
      if (first) {
        d.clockReference = clock;
        d.realtimeReference = realtime;
        first = false;
      }
      continue;  // trace processor reads nothing else of a clock snapshot packet
    }
    uint64_t ts = s.lastTs;
    if (p.has(f::kTimestamp)) {
      const uint64_t clock = p.u(f::kTimestampClockId, s.defaultClock);
      if (clock != 64 || !s.incremental || !s.haveClock) {
        problem(i, "timestamp not on the sequence's incremental clock");
      } else {
        s.clockValue += p.u(f::kTimestamp);
        ts = s.clockValue;
      }
    }
    if (ts < s.lastTs) problem(i, "timestamp goes back on its sequence");
    s.lastTs = ts;
    const uint64_t wall = ts + static_cast<uint64_t>(s.offset);
    if (p.has(f::kTrackDescriptor)) {
      const Message t = p.msg(f::kTrackDescriptor);
      TrackInfo info;
      info.uuid = t.u(f::kUuid);
      info.parent = t.u(f::kParent, 0);
      if (t.has(f::kName)) info.name = t.str(f::kName);
      if (t.has(f::kProcess)) {
        const Message process = t.msg(f::kProcess);
        info.process = true;
        info.pid = process.i(f::kPid);
        info.processName = process.str(f::kProcessName);
        if (process.has(f::kCmdline)) info.cmdline = process.str(f::kCmdline);
      }
      if (t.has(f::kThread)) {
        const Message thread = t.msg(f::kThread);
        info.thread = true;
        info.pid = thread.i(f::kPid);
        info.tid = thread.i(f::kTid);
        info.threadName = thread.str(f::kThreadName);
      }
      info.merge = t.u(f::kMerge, 0);
      info.childOrdering = t.u(f::kChildOrdering, 0);
      if (t.has(f::kRank)) info.rank = t.i(f::kRank);
      if (t.has(f::kCounterDescriptor)) {
        info.counter = true;
        info.counterUnit = t.msg(f::kCounterDescriptor).u(f::kCounterUnit, 0);
      }
      if (info.uuid == 0) problem(i, "track uuid 0");
      if (!d.tracks.emplace(info.uuid, info).second)
        problem(i, "track " + std::to_string(info.uuid) + " described twice");
    }
    if (p.has(f::kTrackEvent)) {
      const Message t = p.msg(f::kTrackEvent);
      Event e;
      e.packet = i;
      e.sequence = id;
      e.ts = ts;
      e.wall = wall;
      e.type = t.u(f::kType);
      if (t.has(f::kTrackUuid)) {
        e.track = t.u(f::kTrackUuid);
      } else if (s.hasDefaultTrack) {
        e.track = s.defaultTrack;
      } else {
        problem(i, "event without a track");
      }
      if (!p.has(f::kTimestamp)) problem(i, "event without a timestamp");
      if (wall < lastWall) problem(i, "event before the one written before it (wall clock)");
      lastWall = wall;
      if (t.has(f::kNameIid)) {
        const auto& names = s.interned[f::kInternedNames];
        const auto it = names.find(t.u(f::kNameIid));
        if (it == names.end()) {
          problem(i, "event name iid " + std::to_string(t.u(f::kNameIid)) +
                         " not defined on its sequence");
        } else {
          e.name = it->second;
        }
      } else if (t.has(f::kEventName)) {
        e.name = t.str(f::kEventName);
      }
      for (uint64_t iid : t.all(f::kCategoryIids, proto::kVarint)) {
        const auto& categories = s.interned[f::kInternedCategories];
        const auto it = categories.find(iid);
        if (it == categories.end()) {
          problem(i, "category iid " + std::to_string(iid) + " not defined on its sequence");
        } else {
          e.categories.push_back(it->second);
        }
      }
      for (const proto::Field& field : t.fields())
        if (field.number == f::kCategories) e.categories.emplace_back(field.bytes);
      e.args = detail::readArgs(t, s, d.problems);
      if (t.has(f::kCounterValue)) e.counterValue = t.i(f::kCounterValue);
      // Trace processor reads fields 47/48 when present, else the older 36/42.
      e.flows = t.has(f::kFlowIds) ? t.all(f::kFlowIds, proto::kFixed64)
                                   : t.all(f::kFlowIdsOld, proto::kVarint);
      e.terminating = t.has(f::kTerminatingFlowIds)
                          ? t.all(f::kTerminatingFlowIds, proto::kFixed64)
                          : t.all(f::kTerminatingFlowIdsOld, proto::kVarint);
      d.events.push_back(e);
    }
  }

  for (const Event& e : d.events)
    if (!d.tracks.count(e.track))
      d.problems.push_back("event on track " + std::to_string(e.track) + ", never described");
  for (const auto& [uuid, t] : d.tracks)
    if (t.parent != 0 && !d.tracks.count(t.parent))
      d.problems.push_back("track " + std::to_string(uuid) + ": parent not described");

  // Trace processor sorts events by time (stably), then pairs begins and
  // ends per track and runs the flows.
  std::vector<size_t> order(d.events.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return d.events[a].wall < d.events[b].wall; });
  std::map<uint64_t, std::vector<size_t>> open;  // track -> indices into events
  std::map<uint64_t, size_t> activeFlows;        // flow id -> the event that started it
  for (const size_t k : order) {
    const Event& e = d.events[k];
    auto& stack = open[e.track];
    if (e.type == f::kBegin) {
      stack.push_back(k);
    } else if (e.type == f::kEnd) {
      if (stack.empty()) {
        d.problems.push_back("SLICE_END with nothing open on track " + std::to_string(e.track));
        continue;
      }
      const Event& begin = d.events[stack.back()];
      d.slices.push_back({begin, e.ts, e.wall, stack.size() - 1});
      if (e.sequence != begin.sequence)
        d.problems.push_back("a slice begins and ends on different sequences");
      stack.pop_back();
    } else if (e.type == f::kInstant) {
      d.instants.push_back(e);
    } else if (e.type == f::kCounter) {
      if (!d.tracks.count(e.track) || !d.tracks.at(e.track).counter)
        d.problems.push_back("counter event on track " + std::to_string(e.track) + ", not a counter track");
      d.counters.push_back(e);
    } else {
      d.problems.push_back("event of type " + std::to_string(e.type));
    }
    for (uint64_t id : e.flows) {
      if (id == 0) d.problems.push_back("flow id 0");
      if (activeFlows.count(id))
        d.problems.push_back("flow " + std::to_string(id) + " started while active (a step)");
      activeFlows[id] = k;
    }
    for (uint64_t id : e.terminating) {
      const auto it = activeFlows.find(id);
      if (it == activeFlows.end()) {
        d.problems.push_back("flow " + std::to_string(id) + " terminated while not active");
        continue;
      }
      d.arrows.push_back({it->second, k});
      activeFlows.erase(it);
    }
  }
  for (const auto& [track, stack] : open)
    if (!stack.empty())
      d.problems.push_back("track " + std::to_string(track) + ": slices left open");
  for (const auto& [id, from] : activeFlows)
    d.problems.push_back("flow " + std::to_string(id) + " never terminated");
  return d;
}

}  // namespace cuptitrace::testing::perfetto
