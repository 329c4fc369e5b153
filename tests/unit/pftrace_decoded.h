// What a .pftrace read back by pftrace_decoder.h holds: Perfetto's field
// numbers, and the events, tracks, slices and arrows as trace processor
// would see them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "proto_reader.h"

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
constexpr uint32_t kCounterValue = 30, kCounterDescriptor = 8, kCounterUnit = 3, kDoubleCounterValue = 44;
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
  double doubleCounterValue = 0;
  bool isDouble = false;     // the value came as double_counter_value
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
  // What the layout did, one instant per trace after its events ("cuptitrace
  // timeline": clamped slices, lanes, arrows): metadata, not in `instants`.
  std::vector<Event> layouts;
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

}  // namespace cuptitrace::testing::perfetto
