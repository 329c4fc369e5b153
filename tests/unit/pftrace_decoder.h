// decodePerfetto() reads a .pftrace the way Perfetto's trace processor
// does (sequences and their incremental state, interning, packet defaults,
// incremental clocks tied to REALTIME, track descriptors, begin/end pairs,
// flows started and terminated in time order) and notes every rule the file
// breaks. Built on the wire-format reader of proto_reader.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pftrace_decoded.h"
#include "proto_reader.h"

namespace cuptitrace::testing::perfetto {

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
// its state, no packet clearing it again, each sequence's events in time
// order (across sequences the file need not be: trace processor sorts by
// time, and at equal times keeps the file's order).
inline Decoded decodePerfetto(std::string bytes) {
  Decoded d;
  d.bytes = std::move(bytes);
  d.packets = proto::tracePackets(d.bytes);
  auto problem = [&](size_t packet, const std::string& what) {
    d.problems.push_back("packet " + std::to_string(packet) + ": " + what);
  };
  std::map<uint64_t, detail::SequenceState> sequences;
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
      if (t.has(f::kDoubleCounterValue)) {
        e.doubleCounterValue = t.dbl(f::kDoubleCounterValue);
        e.isDouble = true;
      }
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
      // An end names no slice: at equal times it may be another sequence's
      // (another piece's) that closes this one, for the same end time.
      d.slices.push_back({begin, e.ts, e.wall, stack.size() - 1});
      stack.pop_back();
    } else if (e.type == f::kInstant) {
      (e.name == "cuptitrace timeline" ? d.layouts : d.instants).push_back(e);
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
