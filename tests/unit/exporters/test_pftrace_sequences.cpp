// The .pftrace as Perfetto's trace processor reads it (pftrace_decoder.h):
// a sequence per track with its state cleared first, names interned on each
// sequence that uses them, every track described, slices balanced and nested
// in timestamp order, one slice or instant per drawn record.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/trace.h"
#include "pftrace_readback.h"
#include "proto_reader.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using namespace cuptitrace::testing::pftrace;
using cuptitrace::testing::fillSampleTrace;
using cuptitrace::testing::longTemplateName;
using cuptitrace::testing::proto::Message;

TEST_CASE("pftrace: each track has a sequence of its own, cleared first", "[pftrace]") {
  const Decoded d = exportSample();
  INFO(problems(d));
  CHECK(d.problems.empty());
  REQUIRE(d.packets.size() > 2);
  CHECK(d.stats.packets == d.packets.size());
  CHECK(d.stats.events == d.events.size());
  // The first packet of every sequence: flags 1|2, its clock, its defaults.
  std::map<uint64_t, size_t> firstPacket;
  for (size_t i = 0; i < d.packets.size(); ++i) {
    const Message& p = d.packets[i];
    const uint64_t seq = p.u(f::kSequenceId);
    CHECK(seq != 0);
    if (firstPacket.emplace(seq, i).second) {
      CHECK(p.u(f::kSequenceFlags) == 3);
      CHECK(p.has(f::kClockSnapshot));
      const Message defaults = p.msg(f::kDefaults);
      CHECK(defaults.u(f::kDefaultsClockId) == 64);
      CHECK(defaults.msg(f::kDefaultsTrackEvent).has(f::kDefaultTrackUuid));
    } else {
      CHECK_FALSE(p.has(f::kSequenceFlags));  // the state is never lost in a file
      CHECK_FALSE(p.has(f::kClockSnapshot));
    }
  }
  // Events name neither their track nor their clock: the sequence's defaults
  // do. Only those on a lane name it: a lane is on its track's sequence.
  std::map<uint64_t, uint64_t> sequenceOfTrack;
  size_t onLanes = 0;
  for (const Event& e : d.events) {
    const Message te = d.packets[e.packet].msg(f::kTrackEvent);
    const bool lane = d.track(e.track).name.find(" \u00b7") != std::string::npos;
    onLanes += lane ? 1 : 0;
    CHECK(te.has(f::kTrackUuid) == lane);
    CHECK_FALSE(d.packets[e.packet].has(f::kTimestampClockId));
    const auto [it, added] =
        sequenceOfTrack.emplace(lane ? d.track(e.track).parent : e.track, e.sequence);
    CHECK(it->second == e.sequence);  // one sequence per track
  }
  std::set<uint64_t> sequences;
  for (const auto& [track, seq] : sequenceOfTrack) sequences.insert(seq);
  CHECK(sequences.size() == sequenceOfTrack.size());
  CHECK(onLanes == 2);  // the set inside the copy on stream 9: its begin and end
  CHECK(d.clockReference == 1'000'000'000ull);
  CHECK(d.realtimeReference == 1'000'000'000ull);  // no wall-clock offset known: equal
  for (const auto& [seq, offset] : d.sequenceOffsets) CHECK(offset == 0);
}

TEST_CASE("pftrace: interned names are defined on each sequence that uses them", "[pftrace]") {
  Trace t;
  fillSampleTrace(t);
  // The long template name on a second stream too.
  const uint64_t b = t.meta.baseTimestampNs;
  KernelRecord k = t.store.records<KernelRecord>()[1];
  k.start = b + 60000;
  k.end = b + 61000;
  k.streamId = 9;
  k.correlationId = 0;
  t.store.add(k);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());  // every iid used was defined on its sequence first
  // Nothing that repeats is written inline: names and strings go by iid.
  for (const Message& p : d.packets) {
    if (!p.has(f::kTrackEvent)) continue;
    const Message e = p.msg(f::kTrackEvent);
    CHECK_FALSE(e.has(f::kEventName));
    CHECK_FALSE(e.has(f::kCategories));
    CHECK(e.count(f::kCategoryIids) <= 1);
  }
  // Each name is sent once per sequence that uses it: the long one on two streams.
  std::map<uint64_t, int> longNames;  // sequence -> definitions
  for (const Message& p : d.packets) {
    if (!p.has(f::kInternedData)) continue;
    for (const Message& n : p.msg(f::kInternedData).msgs(f::kInternedNames))
      if (n.str(2) == longTemplateName()) ++longNames[p.u(f::kSequenceId)];
  }
  CHECK(longNames.size() == 2);
  for (const auto& [seq, n] : longNames) CHECK(n == 1);
  CHECK(d.slicesNamed(longTemplateName()).size() == 2);
}

TEST_CASE("pftrace: every event's track is described, every parent too", "[pftrace]") {
  const Decoded d = exportSample();
  INFO(problems(d));
  CHECK(d.problems.empty());
  for (const Event& e : d.events) CHECK(d.tracks.count(e.track) == 1);
  // A track's descriptor comes before every event on it, and its parent's
  // before it: the tracks' in the header, a lane's just before its first slice.
  std::map<uint64_t, size_t> describedAt;  // uuid -> packet
  size_t firstEvent = d.packets.size(), lanesAfterFirstEvent = 0;
  for (size_t i = 0; i < d.packets.size(); ++i) {
    if (d.packets[i].has(f::kTrackEvent)) firstEvent = std::min(firstEvent, i);
    if (!d.packets[i].has(f::kTrackDescriptor)) continue;
    const Message td = d.packets[i].msg(f::kTrackDescriptor);
    describedAt[td.u(1)] = i;
    lanesAfterFirstEvent += i > firstEvent;
  }
  for (const Event& e : d.events) CHECK(describedAt.at(e.track) < e.packet);
  for (const auto& [uuid, at] : describedAt) {
    const uint64_t parent = d.track(uuid).parent;
    if (parent != 0) CHECK(describedAt.at(parent) < at);
  }
  CHECK(lanesAfterFirstEvent == d.stats.laneTracks);
}

TEST_CASE("pftrace: slices balance and nest on every track, in timestamp order", "[pftrace]") {
  const Decoded d = exportSample();
  INFO(problems(d));
  CHECK(d.problems.empty());  // balance, ends on open slices, no time going back
  // No partial overlap: per track, any two slices are disjoint or nested.
  std::map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> byTrack;
  for (const SliceOut& s : d.slices) byTrack[s.begin.track].push_back({s.begin.ts, s.end});
  for (auto& [track, list] : byTrack) {
    for (const auto& a : list)
      for (const auto& b : list) {
        const bool disjoint = a.second <= b.first || b.second <= a.first;
        const bool nested = (a.first <= b.first && b.second <= a.second) ||
                            (b.first <= a.first && a.second <= b.second);
        CHECK((disjoint || nested));
      }
  }
  // Each sequence's events are in timestamp order (the decoder notes one
  // going back); across sequences the file need not be, and here is not:
  // a track's pieces come one after another.
  std::map<uint64_t, uint64_t> lastTs;
  for (const Event& e : d.events) {
    uint64_t& last = lastTs[e.sequence];
    CHECK(last <= e.ts);
    last = e.ts;
  }
  CHECK(d.stats.clamped == 0);
}

TEST_CASE("pftrace: one slice or instant per drawn record, in its category", "[pftrace]") {
  const Decoded d = exportSample();
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.slicesOf("kernel").size() == 3);
  CHECK(d.slicesOf("gpu_memcpy").size() == 2);
  CHECK(d.slicesOf("gpu_memset").size() == 1);
  CHECK(d.slicesOf("cuda_runtime").size() == 6);
  CHECK(d.slicesOf("cuda_driver").size() == 1);
  CHECK(d.slicesOf("nvtx").size() == 2 + 1);  // push/pop ranges and the start/end range
  CHECK(d.slicesOf("cuda_sync").size() == 1);
  CHECK(d.slicesOf("overhead").size() == 1);
  REQUIRE(d.instants.size() == 2);
  CHECK(d.instants[0].categories == std::vector<std::string>{"metadata"});
  CHECK(d.instants[1].categories == std::vector<std::string>{"nvtx"});
  CHECK(d.instants[1].name == "checkpoint");
  CHECK(d.slices.size() == 3 + 2 + 1 + 7 + 3 + 1 + 1);
  REQUIRE(d.layouts.size() == 1);
  CHECK(d.events.size() == 2 * d.slices.size() + 2 + 1);  // the instants and the layout's summary
  CHECK(d.stats.events == d.events.size());
}
