// Perfetto protobuf exporter: decode what it writes with the test-only
// reader (pftrace_decoder.h), replay it the way Perfetto's trace processor
// reads it (sequence flags, interning, the incremental clock, tracks,
// begin/end pairs, flows) and check the rules PERFETTO.md lists, the
// timeline against the Chrome JSON exporter's, and exact bytes for a tiny
// trace.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/demangle.h"
#include "core/trace.h"
#include "formats/chrome_json.h"
#include "formats/perfetto_proto.h"
#include "timeline/track_layout.h"
#include "pftrace_decoder.h"
#include "proto_reader.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using cuptitrace::testing::addApi;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::addUsualAndUnusualLaunch;
using cuptitrace::testing::fillSampleTrace;
using cuptitrace::testing::initTrace;
using cuptitrace::testing::kHostileKernelName;
using cuptitrace::testing::kUtf8Message;
using cuptitrace::testing::longTemplateName;
using cuptitrace::testing::proto::fromHex;
using cuptitrace::testing::proto::Message;
using cuptitrace::testing::proto::toHex;
using nlohmann::json;

namespace {

namespace f = cuptitrace::testing::perfetto::f;
using cuptitrace::testing::perfetto::Arg;
using cuptitrace::testing::perfetto::Args;
using cuptitrace::testing::perfetto::Event;
using cuptitrace::testing::perfetto::SliceOut;
using cuptitrace::testing::perfetto::TrackInfo;

constexpr uint32_t kHostPid = cuptitrace::testing::kSamplePid;
const uint32_t kGpuPid = gpuProcessId(kHostPid, 0);

struct Decoded : cuptitrace::testing::perfetto::Decoded {
  PerfettoExportStats stats;

  SliceOut sliceByCorrelation(const std::string& category, uint64_t correlation) const {
    std::vector<SliceOut> found;
    for (const SliceOut& s : slicesOf(category)) {
      const auto it = s.begin.args.find("correlation");
      if (it != s.begin.args.end() && it->second.u == correlation) found.push_back(s);
    }
    REQUIRE(found.size() == 1);
    return found[0];
  }
  // The index in `events` of a slice's begin.
  size_t indexOf(const SliceOut& s) const {
    for (size_t i = 0; i < events.size(); ++i)
      if (events[i].packet == s.begin.packet) return i;
    FAIL("no such event");
    return 0;
  }
};

Decoded decode(std::string bytes, PerfettoExportStats stats = {}) {
  Decoded d;
  static_cast<cuptitrace::testing::perfetto::Decoded&>(d) =
      cuptitrace::testing::perfetto::decodePerfetto(std::move(bytes));
  d.stats = stats;
  return d;
}

Decoded exportTrace(const Trace& trace) {
  std::ostringstream out;
  const PerfettoExportStats stats = writePerfettoProto(trace, out);
  Decoded d = decode(out.str(), stats);
  CHECK(d.stats.bytes == d.bytes.size());
  return d;
}

Decoded exportSample() {
  Trace t;
  fillSampleTrace(t);
  return exportTrace(t);
}

std::string problems(const Decoded& d) { return d.problemText(); }


}  // namespace

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
  // Descriptors come before every event.
  size_t lastDescriptor = 0, firstEvent = d.packets.size();
  for (size_t i = 0; i < d.packets.size(); ++i) {
    if (d.packets[i].has(f::kTrackDescriptor)) lastDescriptor = i;
    if (d.packets[i].has(f::kTrackEvent)) firstEvent = std::min(firstEvent, i);
  }
  CHECK(lastDescriptor < firstEvent);
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
  // File order is timestamp order.
  for (size_t i = 1; i < d.events.size(); ++i) CHECK(d.events[i - 1].ts <= d.events[i].ts);
  CHECK(d.stats.clamped == 0);
}

TEST_CASE("pftrace: one slice or instant per drawn record, in its category", "[pftrace]") {
  const Decoded d = exportSample();
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.slicesOf("kernel").size() == 3);
  CHECK(d.slicesOf("memcpy").size() == 2);
  CHECK(d.slicesOf("memset").size() == 1);
  CHECK(d.slicesOf("cuda_runtime").size() == 6);
  CHECK(d.slicesOf("cuda_driver").size() == 1);
  CHECK(d.slicesOf("nvtx").size() == 2 + 1);  // push/pop ranges and the start/end range
  CHECK(d.slicesOf("sync").size() == 1);
  CHECK(d.slicesOf("overhead").size() == 1);
  REQUIRE(d.instants.size() == 2);
  CHECK(d.instants[0].categories == std::vector<std::string>{"metadata"});
  CHECK(d.instants[1].categories == std::vector<std::string>{"nvtx"});
  CHECK(d.instants[1].name == "checkpoint");
  CHECK(d.slices.size() == 3 + 2 + 1 + 7 + 3 + 1 + 1);
  CHECK(d.events.size() == 2 * d.slices.size() + 2);
  CHECK(d.stats.events == d.events.size());
}

TEST_CASE("pftrace: processes, threads and streams carry their names", "[pftrace]") {
  const Decoded d = exportSample();
  const TrackInfo* host = d.processTrack(kHostPid);
  REQUIRE(host != nullptr);
  CHECK(host->processName == "sample_app");
  CHECK(host->cmdline == "./sample_app --flag \"x\"");
  const TrackInfo* gpu = d.processTrack(kGpuPid);
  REQUIRE(gpu != nullptr);
  CHECK(gpu->processName == "GPU 0: NVIDIA H100 80GB HBM3 (CC 9.0, 132 SMs, 85.0 GiB, 1980 MHz)");
  CHECK(gpu->childOrdering == 3);  // EXPLICIT: streams by id

  const TrackInfo* main = d.trackNamed(kHostPid, "Main thread");
  REQUIRE(main != nullptr);
  CHECK(main->thread);
  CHECK(main->tid == kHostPid);
  const TrackInfo* worker = d.trackNamed(kHostPid, "worker");
  REQUIRE(worker != nullptr);
  CHECK(worker->tid == 4243);
  const TrackInfo* overhead = d.trackNamed(kHostPid, "CUPTI overhead");
  REQUIRE(overhead != nullptr);
  CHECK(overhead->merge == 2);
  const TrackInfo* stream7 = d.trackNamed(kGpuPid, "Stream 7");
  REQUIRE(stream7 != nullptr);
  CHECK(stream7->parent == gpu->uuid);
  CHECK(stream7->rank == 7);
  CHECK(stream7->merge == 2);  // NONE: streams never merge, whatever NVTX names them
  const TrackInfo* stream9 = d.trackNamed(kGpuPid, "copy \"stream\"");
  REQUIRE(stream9 != nullptr);
  CHECK(stream9->rank == 9);
  CHECK(stream9->merge == 2);
  const TrackInfo* sync = d.trackNamed(kGpuPid, "Synchronization (context 1)");
  REQUIRE(sync != nullptr);
  CHECK(sync->merge == 2);
  const TrackInfo* async = d.trackNamed(kHostPid, "async range");
  REQUIRE(async != nullptr);
  CHECK(async->parent == host->uuid);

  // Work sits on its stream of its GPU; calls on their thread.
  CHECK(d.sliceByCorrelation("kernel", 13).begin.track == stream9->uuid);
  CHECK(d.sliceByCorrelation("kernel", 11).begin.track == stream7->uuid);
  CHECK(d.sliceByCorrelation("cuda_runtime", 13).begin.track == worker->uuid);
  CHECK(d.sliceByCorrelation("sync", 16).begin.track == sync->uuid);
  CHECK(d.slicesOf("overhead").at(0).begin.track == overhead->uuid);
}

TEST_CASE("pftrace: hostile names survive exactly", "[pftrace]") {
  const Decoded d = exportSample();
  INFO(problems(d));
  CHECK(d.problems.empty());
  const SliceOut k1 = d.sliceByCorrelation("kernel", 11);
  CHECK(k1.begin.name == demangle(kHostileKernelName));
  CHECK_FALSE(k1.begin.args.count("mangled_name"));  // the Chrome JSON's only
  const SliceOut k2 = d.sliceByCorrelation("kernel", 12);
  CHECK(k2.begin.name == longTemplateName());
  CHECK(d.sliceByCorrelation("kernel", 13).begin.name == "add(float*, float*, float*, int)");
  const auto utf8 = d.slicesNamed(kUtf8Message);
  REQUIRE(utf8.size() == 1);
  CHECK(utf8[0].begin.args.at("domain").s == "my domain");
}

TEST_CASE("pftrace: invalid UTF-8 becomes U+FFFD, as in the JSON", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 10, b + 20, 0, 7, "bad\xFF\xFE name\xC3");
  addNvtx(t, NvtxType::PushPop, b + 5, b + 30, "cut \xE2\x82");
  t.threadNames[kHostPid] = "thread \xC0\xAF";
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  const std::string r = "\xEF\xBF\xBD";
  CHECK(d.slicesOf("kernel").at(0).begin.name == "bad" + r + r + " name" + r);
  CHECK(d.slicesOf("nvtx").at(0).begin.name == "cut " + r);
  CHECK(d.trackNamed(kHostPid, "thread " + r + r) != nullptr);
}

TEST_CASE("pftrace: an arrow from each launch call to the GPU work it launched", "[pftrace]") {
  const Decoded d = exportSample();
  INFO(problems(d));
  CHECK(d.problems.empty());  // no flow stepped, left open or ended while inactive
  CHECK(d.arrows.size() == 6);
  CHECK(d.stats.flows == 6);
  // Every kernel, copy and set ends an arrow from the call with its correlation id.
  size_t ends = 0;
  for (const char* category : {"kernel", "memcpy", "memset"}) {
    for (const SliceOut& work : d.slicesOf(category)) {
      const Event* source = d.arrowInto(d.indexOf(work));
      REQUIRE(source != nullptr);
      CHECK(source->type == f::kBegin);
      CHECK(source->args.at("correlation").u == work.begin.args.at("correlation").u);
      CHECK(d.pidOf(source->track) == kHostPid);
      CHECK(source->ts <= work.begin.ts);
      ++ends;
    }
  }
  CHECK(ends == 6);
  // Correlation 11 has a runtime and a driver call: the arrow leaves the runtime one.
  CHECK(d.sliceByCorrelation("cuda_runtime", 11).begin.flows.size() == 1);
  CHECK(d.sliceByCorrelation("cuda_driver", 11).begin.flows.empty());
  // Ids are small varints (fields 36 and 42), never the 8-byte fixed64 ones.
  for (const Event& e : d.events) {
    const Message te = d.packets[e.packet].msg(f::kTrackEvent);
    CHECK_FALSE(te.has(f::kFlowIds));
    CHECK_FALSE(te.has(f::kTerminatingFlowIds));
    for (uint64_t id : e.flows) CHECK(id <= 6);
  }
}

TEST_CASE("pftrace: flow ids are reused once their flow has ended", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  // 300 launches; each kernel runs before the next call, but the next
  // call starts exactly when the kernel starts: no reuse at equal times.
  for (uint32_t i = 0; i < 300; ++i) {
    const uint64_t at = b + 1000 * uint64_t{i};
    addApi(t, at, at + 300, i + 1);
    addKernel(t, at + 500, at + 800, i + 1);
  }
  // A call whose kernel starts at the very nanosecond the previous kernel's did.
  addApi(t, b + 299'500, b + 299'600, 1000);
  addKernel(t, b + 299'800, b + 299'900, 1000, 8);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  REQUIRE(d.arrows.size() == 301);
  std::set<uint64_t> ids;
  for (const Event& e : d.events)
    for (uint64_t id : e.flows) ids.insert(id);
  CHECK(ids.size() <= 2);  // at most two arrows are ever open at once
  for (const auto& a : d.arrows)
    CHECK(d.events[a.from].args.at("correlation").u == d.events[a.to].args.at("correlation").u);
}

TEST_CASE("pftrace: no arrow to GPU work that starts before its call", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 500, b + 600, 1);
  addKernel(t, b + 400, b + 700, 1);  // clock skew: before its launch
  addApi(t, b + 800, b + 900, 2);
  addKernel(t, b + 950, b + 990, 2);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  REQUIRE(d.arrows.size() == 1);
  CHECK(d.events[d.arrows[0].to].args.at("correlation").u == 2);
  CHECK(d.stats.flows == 1);
}

TEST_CASE("pftrace: a graph launch starts one arrow per kernel", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 100, b + 200, 5, kHostPid, ApiDomain::Runtime, "cudaGraphLaunch");
  addKernel(t, b + 300, b + 400, 5);
  addKernel(t, b + 400, b + 500, 5);
  addKernel(t, b + 400, b + 450, 5, 8);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  const SliceOut launch = d.slicesNamed("cudaGraphLaunch").at(0);
  REQUIRE(launch.begin.flows.size() == 3);
  CHECK(std::set<uint64_t>(launch.begin.flows.begin(), launch.begin.flows.end()).size() == 3);
  for (const SliceOut& k : d.slicesOf("kernel")) {
    const Event* source = d.arrowInto(d.indexOf(k));
    REQUIRE(source != nullptr);
    CHECK(source->packet == launch.begin.packet);
  }
  CHECK(d.arrows.size() == 3);
  CHECK(d.stats.flows == 3);
}

TEST_CASE("pftrace: no flow is written with a missing end", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addApi(t, b + 100, b + 200, 1);  // its kernel was not collected (end 0)
  addKernel(t, b + 300, 0, 1);
  addApi(t, b + 400, b + 500, 2);     // launched nothing that was recorded
  addKernel(t, b + 600, b + 700, 3);  // its launch call was not recorded
  addApi(t, 0, b + 750, 4);           // launch call without a start
  addKernel(t, b + 800, b + 900, 4);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  for (const Event& e : d.events) {
    CHECK(e.flows.empty());
    CHECK(e.terminating.empty());
  }
  CHECK(d.stats.flows == 0);
  CHECK(d.stats.incomplete == 2);
}

TEST_CASE("pftrace: arguments of kernels, copies, sets, syncs, calls and overhead", "[pftrace]") {
  const Decoded d = exportSample();
  const Args k = d.sliceByCorrelation("kernel", 13).begin.args;
  CHECK(k.at("grid").s == "[128,1,1]");
  CHECK(k.at("block").s == "[256,1,1]");
  CHECK(k.at("registers").u == 32);
  CHECK(k.at("static_smem").kind == Arg::Int);
  CHECK(k.at("static_smem").i == 1024);
  CHECK(k.at("dynamic_smem").i == 0);
  // Known from the track: the GPU process and the stream.
  CHECK_FALSE(k.count("device"));
  CHECK_FALSE(k.count("context"));
  CHECK_FALSE(k.count("stream"));
  CHECK_FALSE(k.count("launch_type"));  // Regular
  CHECK_FALSE(k.count("graph_id"));
  CHECK_FALSE(k.count("clamped_ns"));

  const SliceOut h2d = d.sliceByCorrelation("memcpy", 14);
  CHECK(h2d.begin.name == "Memcpy HtoD (Pinned -> Device)");
  CHECK(h2d.begin.args.at("bytes").u == 1 << 20);
  CHECK(h2d.begin.args.at("copy_kind").s == "HtoD");
  CHECK(h2d.begin.args.at("src_kind").s == "Pinned");
  CHECK(h2d.begin.args.at("dst_kind").s == "Device");
  CHECK(h2d.begin.args.at("async").b);
  CHECK(h2d.begin.args.at("bandwidth_GBps").d == Approx(104.8576));
  CHECK_FALSE(h2d.begin.args.count("stream"));
  CHECK(h2d.end - h2d.begin.ts == 10000);
  CHECK(d.sliceByCorrelation("memcpy", 16).begin.name == "Memcpy DtoH (Device -> Pageable)");
  CHECK_FALSE(d.sliceByCorrelation("memcpy", 16).begin.args.at("async").b);

  const SliceOut set = d.sliceByCorrelation("memset", 15);
  CHECK(set.begin.name == "Memset (Device)");
  CHECK(set.begin.args.at("memory_kind").s == "Device");
  CHECK(set.begin.args.at("value").u == 0);
  // Inside the copy on stream 9: concurrent work, on the stream's second lane.
  CHECK(set.depth == 0);
  const uint64_t stream9 = d.sliceByCorrelation("memcpy", 14).begin.track;
  CHECK(d.nameOf(set.begin.track) == d.nameOf(stream9) + " \u00b72");
  CHECK(d.track(set.begin.track).parent == stream9);

  const SliceOut sync = d.slicesOf("sync").at(0);
  CHECK(sync.begin.name == "StreamSynchronize");
  CHECK(sync.begin.args.at("stream").u == 7);
  CHECK_FALSE(sync.begin.args.count("context"));  // the track's
  CHECK_FALSE(sync.begin.args.count("event"));

  const SliceOut driver = d.sliceByCorrelation("cuda_driver", 11);
  CHECK(driver.begin.name == "cuLaunchKernel");
  CHECK(driver.begin.args.size() == 1);  // correlation: success, no cbid, domain = category
  CHECK(driver.depth == 3);              // in the runtime call, in two NVTX ranges

  const SliceOut overhead = d.slicesOf("overhead").at(0);
  CHECK(overhead.begin.name == "CUPTI buffer flush");
  CHECK(overhead.begin.args.at("thread").u == 4242);
  CHECK_FALSE(overhead.begin.args.count("device"));

  // The trace's own description, on the host process.
  const Event& meta = d.instants.at(0);
  CHECK(meta.name == "cuptitrace");
  CHECK(meta.track == d.processTrack(kHostPid)->uuid);
  CHECK(meta.ts == d.clockReference);
  CHECK(meta.args.at("tool_version").s == "test");
  CHECK(meta.args.at("clock").s == "cupti");
  CHECK(meta.args.at("realtime_offset_ns").i == 0);
  CHECK(meta.args.at("flows").u == 6);
  CHECK(meta.args.at("dropped_records").u == 0);
  CHECK(meta.args.at("counters.dropped.cupti").u == 0);
  CHECK_FALSE(meta.args.count("host"));  // a merged file's only
}

TEST_CASE("pftrace: arguments only written when they differ from the usual", "[pftrace]") {
  Trace t;
  initTrace(t);
  addUsualAndUnusualLaunch(t);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK_FALSE(d.sliceByCorrelation("cuda_runtime", 1).begin.args.count("return_value"));
  CHECK(d.sliceByCorrelation("cuda_runtime", 2).begin.args.at("return_value").u == 719);
  const Args second = d.sliceByCorrelation("kernel", 2).begin.args;
  CHECK(second.at("launch_type").s == "CooperativeSingle");
  CHECK(second.at("device_launched").b);
  CHECK(second.at("graph_id").u == 3);
  CHECK(second.at("graph_node_id").u == 44);
}

TEST_CASE("pftrace: NVTX ranges, marks and start/end ranges", "[pftrace]") {
  const Decoded d = exportSample();
  const SliceOut outer = d.slicesNamed("outer").at(0);
  CHECK(outer.begin.args.at("color").s == "#FF00FF00");
  CHECK(outer.begin.args.at("depth").u == 0);
  CHECK(d.nameOf(outer.begin.track) == "Main thread");
  CHECK(outer.end - outer.begin.ts == 49500);
  const SliceOut inner = d.slicesNamed(kUtf8Message).at(0);
  CHECK(inner.depth == 1);
  CHECK(inner.begin.args.at("category").u == 3);

  const Event& mark = d.instants.at(1);
  CHECK(mark.ts == 1'000'007'000ull);
  CHECK(d.nameOf(mark.track) == "worker");

  const SliceOut range = d.slicesNamed("async range").at(0);
  CHECK(range.begin.ts == 1'000'002'000ull);
  CHECK(range.end == 1'000'035'000ull);
  CHECK(range.begin.args.at("range_id").u == 77);
  CHECK(range.begin.args.at("thread").u == 4242);
  CHECK(range.begin.args.at("end_thread").u == 4243);
  CHECK(d.track(range.begin.track).parent == d.processTrack(kHostPid)->uuid);
}

TEST_CASE("pftrace: overlapping start/end ranges go on lanes of their name", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addNvtx(t, NvtxType::StartEnd, b + 100, b + 300, "load");
  addNvtx(t, NvtxType::StartEnd, b + 200, b + 400, "load");  // overlaps the first
  addNvtx(t, NvtxType::StartEnd, b + 300, b + 350, "load");  // fits after the first
  addNvtx(t, NvtxType::StartEnd, b + 150, b + 250, "step");  // another name
  addNvtx(t, NvtxType::StartEnd, b + 500, b + 500, "load");  // empty: an instant
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  const auto loads = d.slicesNamed("load");
  REQUIRE(loads.size() == 3);
  std::set<uint64_t> lanes;
  for (const SliceOut& s : loads) {
    lanes.insert(s.begin.track);
    CHECK(d.nameOf(s.begin.track) == "load");
    CHECK(s.depth == 0);
  }
  CHECK(lanes.size() == 2);
  auto startingAt = [&](uint64_t ts) {
    for (const SliceOut& s : loads)
      if (s.begin.ts == ts) return s.begin.track;
    FAIL("no range starts at " << ts);
    return uint64_t{0};
  };
  CHECK(startingAt(b + 100) != startingAt(b + 200));
  CHECK(startingAt(b + 100) == startingAt(b + 300));
  const SliceOut step = d.slicesNamed("step").at(0);
  CHECK(lanes.count(step.begin.track) == 0);
  REQUIRE(d.instants.size() == 2);
  CHECK(d.instants[1].name == "load");
  CHECK(d.instants[1].ts == b + 500);
  // Lanes of one name keep the default merge: one track in the UI.
  for (uint64_t lane : lanes) CHECK(d.track(lane).merge == 0);
}

TEST_CASE("pftrace: overlapping kernels on one stream go on lanes with their own times",
          "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 100, b + 300, 1);
  addKernel(t, b + 200, b + 400, 2);     // runs with the first
  addKernel(t, b + 250, b + 350, 3, 8);  // another stream: no conflict
  addKernel(t, b + 300, b + 500, 4);     // the first has ended: its lane again
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.stats.clamped == 0);
  CHECK(d.stats.maxLanes == 2);
  CHECK(d.stats.laneTracks == 1);
  const uint64_t stream7 = d.sliceByCorrelation("kernel", 1).begin.track;
  const uint64_t starts[] = {100, 200, 250, 300}, ends[] = {300, 400, 350, 500};
  for (uint32_t c = 1; c <= 4; ++c) {
    const SliceOut k = d.sliceByCorrelation("kernel", c);
    INFO("kernel " << c);
    CHECK(k.begin.ts == b + starts[c - 1]);
    CHECK(k.end == b + ends[c - 1]);
    CHECK(k.depth == 0);
    CHECK_FALSE(k.begin.args.count("clamped_ns"));
  }
  const TrackInfo& lane = d.track(d.sliceByCorrelation("kernel", 2).begin.track);
  CHECK(lane.name == "Stream 7 \u00b72");
  CHECK(lane.parent == stream7);  // a child of the stream: shown under it
  CHECK(lane.rank == 1);
  CHECK(lane.merge == 2);                      // never merged with another lane
  CHECK(d.track(stream7).childOrdering == 3);  // explicit: lanes in order
  CHECK(d.sliceByCorrelation("kernel", 4).begin.track == stream7);
  CHECK(d.instants.at(0).args.at("clamped_slices").u == 0);
  CHECK(d.instants.at(0).args.at("max_lanes").u == 2);
  CHECK(d.instants.at(0).args.at("lane_tracks").u == 1);
}

TEST_CASE("pftrace: a graph's branches get a lane each and an arrow each from its launch",
          "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  // 12 graph branches of different lengths, replayed 3 times on one stream;
  // each replay's kernels share the correlation id of its cudaGraphLaunch.
  for (uint32_t replay = 0; replay < 3; ++replay) {
    const uint64_t at = b + 10000 * replay;
    addApi(t, at, at + 5, 100 + replay, kHostPid, ApiDomain::Runtime, "cudaGraphLaunch");
    for (uint64_t branch = 0; branch < 12; ++branch)
      addKernel(t, at + 10 + branch, at + 1000 + 300 * branch, 100 + replay);
  }
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.stats.maxLanes == 12);
  CHECK(d.stats.laneTracks == 11);
  CHECK(d.stats.clamped == 0);
  CHECK(d.stats.flows == 36);
  std::map<uint64_t, std::set<uint64_t>> tracksOfBranch;
  std::set<uint64_t> tracks;
  std::map<uint64_t, int> endsOfReplay;
  size_t kernels = 0;
  for (size_t i = 0; i < d.events.size(); ++i) {
    const Event& k = d.events[i];
    if (k.categories != std::vector<std::string>{"kernel"}) continue;
    ++kernels;
    const uint64_t replay = (k.ts - b) / 10000, branch = (k.ts - b) % 10000 - 10;
    INFO("replay " << replay << " branch " << branch);
    tracksOfBranch[branch].insert(k.track);
    tracks.insert(k.track);
    // Its arrow: from the launch of its replay, one source for the 12 ends.
    const Event* from = d.arrowInto(i);
    REQUIRE(from != nullptr);
    CHECK(from->name == "cudaGraphLaunch");
    CHECK(from->args.at("correlation").u == 100 + replay);
    CHECK(k.args.at("correlation").u == 100 + replay);
    ++endsOfReplay[replay];
  }
  CHECK(kernels == 36);
  for (const SliceOut& s : d.slicesOf("kernel")) {
    const uint64_t branch = (s.begin.ts - b) % 10000 - 10;
    CHECK(s.end - s.begin.ts == 1000 + 300 * branch - 10 - branch);
    CHECK(s.depth == 0);
  }
  CHECK(tracks.size() == 12);
  for (const auto& [branch, of] : tracksOfBranch) CHECK(of.size() == 1);  // replays reuse the lanes
  REQUIRE(endsOfReplay.size() == 3);
  for (const auto& [replay, n] : endsOfReplay) CHECK(n == 12);
}

TEST_CASE("pftrace: a slice ending where the next begins is closed first", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 100, b + 200, 1);
  addKernel(t, b + 200, b + 300, 2);
  addKernel(t, b + 300, b + 400, 3);
  addKernel(t, b + 300, b + 300, 4);  // empty, at the start of another: nested in it
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  std::vector<std::pair<uint64_t, uint64_t>> order;  // (ts, type) in file order
  for (const Event& e : d.events)
    if (e.categories == std::vector<std::string>{"kernel"} || e.type == f::kEnd)
      order.push_back({e.ts - b, e.type});
  const std::vector<std::pair<uint64_t, uint64_t>> expected = {
      {100, f::kBegin}, {200, f::kEnd},   {200, f::kBegin}, {300, f::kEnd},
      {300, f::kBegin}, {300, f::kBegin}, {300, f::kEnd},   {400, f::kEnd}};
  CHECK(order == expected);
  for (const SliceOut& s : d.slicesOf("kernel"))
    CHECK(s.depth == (s.begin.args.at("correlation").u == 4 ? 1 : 0));
  CHECK(d.sliceByCorrelation("kernel", 2).end == b + 300);
  CHECK(d.stats.clamped == 0);
}

TEST_CASE("pftrace: timestamps keep every nanosecond of a realistic clock", "[pftrace]") {
  Trace t;
  initTrace(t);
  t.meta.baseTimestampNs = 1'700'000'000'123'456'789ull;
  t.meta.startTimestampNs = t.meta.baseTimestampNs;
  t.meta.startRealtimeNs = t.meta.baseTimestampNs + 5'000;  // the wall clock is 5 us ahead
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 1, b + 1 + 1234567, 0);
  addApi(t, b + 2, b + 7'000'000'000'001ull, 1);  // lasts about 2 hours
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  const SliceOut k = d.slicesOf("kernel").at(0);
  CHECK(k.begin.ts == b + 1);
  CHECK(k.end == b + 1 + 1234567);
  const SliceOut call = d.slicesOf("cuda_runtime").at(0);
  CHECK(call.begin.ts == b + 2);
  CHECK(call.end == b + 7'000'000'000'001ull);
  CHECK(d.clockReference == b);
  CHECK(d.realtimeReference == b + 5'000);
  // Deltas are small: no packet holds an absolute timestamp.
  for (const Message& p : d.packets)
    if (p.has(f::kTimestamp)) CHECK(p.u(f::kTimestamp) < 7'000'000'000'001ull);
}

TEST_CASE("pftrace: a record before the base moves the clock's reference", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 1, b + 10, 0);
  addApi(t, b - 500, b + 5, 1);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.clockReference == b - 500);
  CHECK(d.slicesOf("cuda_runtime").at(0).begin.ts == b - 500);
  CHECK(d.slicesOf("kernel").at(0).begin.ts == b + 1);
}

TEST_CASE("pftrace: incomplete records are not drawn but counted", "[pftrace]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 100, b + 200, 1);
  addKernel(t, b + 300, 0, 2);     // end not collected
  addKernel(t, 0, b + 500, 3);     // no start
  addApi(t, b + 600, b + 550, 4);  // end before start
  addNvtx(t, NvtxType::Mark, 0, 0, "lost mark");
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.stats.incomplete == 4);
  CHECK(d.slices.size() == 1);
  CHECK(d.instants.size() == 1);  // the trace's description only
  CHECK(d.instants[0].args.at("incomplete_records").u == 4);
}

TEST_CASE("pftrace: an empty trace is a valid trace", "[pftrace]") {
  Trace t;
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.slices.empty());
  CHECK(d.instants.size() == 1);
  CHECK(d.stats.flows == 0);
  CHECK(d.processTrack(0) != nullptr);
}

TEST_CASE("pftrace: a trace of NVTX records that cannot be drawn is a valid trace", "[pftrace]") {
  Trace t;
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::StartEnd);
  n.start = 0;  // never started: not drawn, and no track made
  n.end = 100;
  n.message = t.strings.intern("lost");
  t.store.add(n);
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.slices.empty());
  CHECK(d.stats.incomplete == 1);
}

// The same timeline as the Chrome JSON exporter: every X slice there is a
// slice here on the track of the same name in the same process, with the
// same name, times and arguments; marks and async ranges likewise.
TEST_CASE("pftrace: the timeline is the Chrome JSON exporter's", "[pftrace]") {
  Trace t;
  fillSampleTrace(t);
  // Lanes too: a kernel that overlaps another, a call that outlives its range.
  const uint64_t b = t.meta.baseTimestampNs;
  addKernel(t, b + 25000, b + 27000, 0, 7);
  addNvtx(t, NvtxType::PushPop, b + 60000, b + 60300, "range");
  addApi(t, b + 60200, b + 60400, 99, kHostPid, ApiDomain::Runtime, "cudaFree");

  std::ostringstream jsonOut;
  const JsonExportStats jsonStats = writeChromeJson(t, jsonOut);
  const json doc = json::parse(jsonOut.str());
  const Decoded d = exportTrace(t);
  INFO(problems(d));
  CHECK(d.problems.empty());
  CHECK(d.stats.clamped == jsonStats.clamped);
  CHECK(d.stats.clamped == 0);
  CHECK(d.stats.laneTracks == jsonStats.laneTracks);
  CHECK(d.stats.laneTracks == 3);  // the overlapping kernel, the call, the set in the copy
  CHECK(d.stats.flows == jsonStats.flows);

  const uint64_t base = doc["metadata"]["base_timestamp_ns"].get<uint64_t>();
  auto ns = [&](const json& micros) { return std::llround(micros.get<double>() * 1000.0); };
  std::map<std::pair<int64_t, int64_t>, std::string> threadNames;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name")
      threadNames[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}] = e["args"]["name"];

  auto toJson = [](const Arg& a) -> json {
    switch (a.kind) {
      case Arg::Uint:
        return a.u;
      case Arg::Int:
        return a.i;
      case Arg::Bool:
        return a.b;
      case Arg::Double:
        return a.d;
      case Arg::String:
        return a.s;
    }
    return nullptr;
  };
  // What the protobuf leaves out on purpose (see pftrace_slices.h "Arguments").
  auto leftOut = [](const std::string& category, const std::string& key, const json& value) {
    const bool gpu = category == "kernel" || category == "memcpy" || category == "memset";
    const bool call = category == "cuda_runtime" || category == "cuda_driver";
    if (gpu && (key == "device" || key == "context" || key == "stream")) return true;
    if (category == "sync" && (key == "device" || key == "context")) return true;
    if (category == "kernel" && key == "mangled_name") return true;
    if (category == "kernel" && key == "launch_type") return value == "Regular";
    if (call && (key == "cbid" || key == "domain")) return true;
    if (call && key == "return_value") return value == 0;
    return false;
  };
  // Both formats write the arguments record_args.h lists: a start/end range
  // says in both which thread started and ended it.
  auto sameArgs = [&](const json& expected, Args actual, const std::string& what, const std::string& category) {
    INFO(what);
    for (const auto& [key, value] : expected.items()) {
      INFO(key);
      if (leftOut(category, key, value)) {
        CHECK(actual.count(key) == 0);
        continue;
      }
      REQUIRE(actual.count(key) == 1);
      const json mine = toJson(actual.at(key));
      if (value.is_number_float() || mine.is_number_float()) {
        CHECK(mine.get<double>() == Approx(value.get<double>()).epsilon(1e-5));
      } else {
        CHECK(mine == value);
      }
      actual.erase(key);
    }
    CHECK(actual.empty());
  };

  // X slices.
  using Key = std::tuple<int64_t, std::string, std::string, int64_t, int64_t>;
  std::multimap<Key, json> jsonSlices;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int64_t pid = e["pid"];
    const std::string track = threadNames.at({pid, e["tid"].get<int64_t>()});
    jsonSlices.insert(
        {Key{pid, track, e["name"], static_cast<int64_t>(base) + ns(e["ts"]), ns(e["dur"])}, e});
  }
  size_t matched = 0;
  for (const SliceOut& s : d.slices) {
    if (d.nameOf(s.begin.track) == "async range") continue;  // an async range in JSON
    const Key key{d.pidOf(s.begin.track), d.nameOf(s.begin.track), s.begin.name,
                  static_cast<int64_t>(s.begin.ts), static_cast<int64_t>(s.end - s.begin.ts)};
    const auto it = jsonSlices.find(key);
    INFO(s.begin.name << " at " << s.begin.ts);
    REQUIRE(it != jsonSlices.end());
    CHECK(it->second["cat"] == s.begin.categories.at(0));
    sameArgs(it->second["args"], s.begin.args, s.begin.name, s.begin.categories.at(0));
    jsonSlices.erase(it);
    ++matched;
  }
  CHECK(jsonSlices.empty());
  CHECK(matched == 3 + 1 + 2 + 1 + 8 + 3 + 1 + 1);

  // Marks and async ranges.
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "i") {
      const auto found = std::find_if(d.instants.begin(), d.instants.end(),
                                      [&](const Event& x) { return x.name == e["name"]; });
      REQUIRE(found != d.instants.end());
      CHECK(found->ts == base + static_cast<uint64_t>(ns(e["ts"])));
      CHECK(d.nameOf(found->track) == threadNames.at({e["pid"], e["tid"]}));
      sameArgs(e["args"], found->args, e["name"], "nvtx");
    } else if (e["ph"] == "b") {
      const SliceOut range = d.slicesNamed(e["name"]).at(0);
      CHECK(range.begin.ts == base + static_cast<uint64_t>(ns(e["ts"])));
      sameArgs(e["args"], range.begin.args, e["name"], "nvtx");
    }
  }
}

// Exact bytes of a tiny trace: one kernel on stream 2 of GPU 0 in process 7,
// written out by hand from the field numbers of PERFETTO.md and Perfetto's protos. Each packet is
// `0a <length>` (Trace.packet = 1); a tag is (field << 3) | wire type.
TEST_CASE("pftrace: golden bytes of a one-kernel trace", "[pftrace]") {
  Trace t;
  t.meta.pid = 7;
  t.meta.processName = "a";
  t.meta.baseTimestampNs = 1000;
  t.meta.toolVersion = "1";
  t.meta.clock = "c";
  KernelRecord k{};
  k.start = 1010;
  k.end = 1030;
  k.name = t.strings.intern("k");
  k.correlationId = 5;  // no launch call recorded: no arrow
  k.contextId = 1;
  k.streamId = 2;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = 32;
  k.blockY = k.blockZ = 1;
  k.registersPerThread = 8;
  t.store.add(k);

  // clang-format off
  const std::string expected = fromHex(
      // ---- Packet 1 (41 bytes): the main sequence (1) starts: its clock, defaults.
      "0a 29"
      "  32 19"                    // clock_snapshot (6), 25 bytes
      "    0a 07 08 40 10 e8 07 18 01"  // clocks {clock_id 64, timestamp 1000, is_incremental 1}
      "    0a 05 08 01 10 e8 07"        // clocks {clock_id 1 (REALTIME), timestamp 1000}
      "    0a 05 08 06 10 e8 07"        // clocks {clock_id 6 (BOOTTIME), timestamp 1000}: relates
                                        // the trace's clocks to Perfetto's default (PERFETTO.md)
      "    10 01"                       // primary_trace_clock REALTIME
      "  50 01"                    // trusted_packet_sequence_id (10) 1
      "  68 03"                    // sequence_flags (13) INCREMENTAL_STATE_CLEARED|NEEDS_...
      "  da 03 07"                 // trace_packet_defaults (59), 7 bytes
      "    d0 03 40"               //   timestamp_clock_id (58) 64
      "    5a 02 58 01"            //   track_event_defaults (11) {track_uuid (11) 1}
      // ---- Packet 2 (16 bytes): the host process track.
      "0a 10"
      "  40 00 50 01"              // timestamp (8) delta 0, sequence 1
      "  e2 03 09"                 // track_descriptor (60), 9 bytes
      "    08 01"                  //   uuid 1
      "    1a 05 08 07 32 01 61"   //   process (3) {pid 7, process_name (6) "a"}
      // ---- Packet 3 (26 bytes): GPU 0's process, pid (1 << 30) | (7 << 6) = 1073742272.
      "0a 1a"
      "  40 00 50 01"
      "  e2 03 13"                 // track_descriptor, 19 bytes
      "    08 02"                  //   uuid 2
      "    1a 0d 08 c0 83 80 80 04 32 05 47 50 55 20 30"  // process {pid, "GPU 0"}
      "    58 03"                  //   child_ordering (11) EXPLICIT
      // ---- Packet 4 (25 bytes): the stream's track.
      "0a 19"
      "  40 00 50 01"
      "  e2 03 12"                 // track_descriptor, 18 bytes
      "    08 03"                  //   uuid 3
      "    12 08 53 74 72 65 61 6d 20 32"  // name (2) "Stream 2"
      "    28 02"                  //   parent_uuid (5) 2
      "    60 02"                  //   sibling_order_rank (12) 2
      "    78 02"                  //   sibling_merge_behavior (15) NONE
      // ---- Packet 5 (41 bytes): the stream's sequence (2) starts; its default track is 3.
      "0a 29"
      "  32 19"
      "    0a 07 08 40 10 e8 07 18 01"
      "    0a 05 08 01 10 e8 07"
      "    0a 05 08 06 10 e8 07"
      "    10 01"
      "  50 02"
      "  68 03"
      "  da 03 07 d0 03 40 5a 02 58 03"
      // ---- Packet 6 (262 bytes): the trace's description, an instant at 1000 on the
      // host process (the main sequence's default track), the first event.
      "0a 86 02"
      "  40 00 50 01"
      "  5a 3e"                    // track_event (11), 62 bytes
      "    18 09"                  //   category_iids (3) 9
      "    22 05 08 24 32 01 31"   //   debug_annotations (4) {name_iid 36, string_value (6) "1"}
      "    22 05 08 25 32 01 63"   //   {37, "c"}
      "    22 04 08 26 20 00"      //   {38, int_value (4) 0}: realtime_offset_ns
      "    22 04 08 29 18 00"      //   {41, uint_value (3) 0}: dropped_records
      "    22 04 08 2a 18 00"      //   {42, 0}: incomplete_records
      "    22 04 08 2b 18 00"      //   {43, 0}: clamped_slices
      "    22 04 08 39 18 01"      //   {57, 1}: max_lanes
      "    22 04 08 3a 18 00"      //   {58, 0}: lane_tracks
      "    22 04 08 2c 18 00"      //   {44, 0}: flows
      "    48 03 50 01"            //   type (9) INSTANT, name_iid (10) 1
      "  62 bf 01"                 // interned_data (12), 191 bytes
      "    0a 0c 08 09 12 08 6d 65 74 61 64 61 74 61"        // event_categories {9, "metadata"}
      "    12 0e 08 01 12 0a 63 75 70 74 69 74 72 61 63 65"  // event_names (2) {1, "cuptitrace"}
      "    1a 10 08 24 12 0c 74 6f 6f 6c 5f 76 65 72 73 69 6f 6e"  // debug_annotation_names (3)
      "    1a 09 08 25 12 05 63 6c 6f 63 6b"                       //   {37, "clock"}
      "    1a 16 08 26 12 12 72 65 61 6c 74 69 6d 65 5f 6f 66 66 73 65 74 5f 6e 73"
      "    1a 13 08 29 12 0f 64 72 6f 70 70 65 64 5f 72 65 63 6f 72 64 73"
      "    1a 16 08 2a 12 12 69 6e 63 6f 6d 70 6c 65 74 65 5f 72 65 63 6f 72 64 73"
      "    1a 12 08 2b 12 0e 63 6c 61 6d 70 65 64 5f 73 6c 69 63 65 73"
      "    1a 0d 08 39 12 09 6d 61 78 5f 6c 61 6e 65 73"              //   {57, "max_lanes"}
      "    1a 0f 08 3a 12 0b 6c 61 6e 65 5f 74 72 61 63 6b 73"        //   {58, "lane_tracks"}
      "    1a 09 08 2c 12 05 66 6c 6f 77 73"
      // ---- Packet 7 (189 bytes): the kernel's SLICE_BEGIN, 10 ns after the reference.
      "0a bd 01"
      "  40 0a 50 02"
      "  5a 2c"                    // track_event, 44 bytes
      "    18 01"                  //   category kernel
      "    22 04 08 04 18 05"      //   {correlation, 5}
      "    22 05 08 05 88 01 01"   //   {grid, string_value_iid (17) 1}
      "    22 05 08 06 88 01 02"   //   {block, string 2}
      "    22 04 08 07 18 08"      //   {registers, 8}
      "    22 04 08 08 20 00"      //   {static_smem, int_value (4) 0}
      "    22 04 08 09 20 00"      //   {dynamic_smem, 0}
      "    48 01 50 02"            //   SLICE_BEGIN, name_iid 2
      "  62 88 01"                 // interned_data, 136 bytes: what sequence 2 has not seen
      "    0a 0a 08 01 12 06 6b 65 72 6e 65 6c"  // event_categories {1, "kernel"}
      "    12 05 08 02 12 01 6b"   //   event_names {2, "k"}
      "    1a 0f 08 04 12 0b 63 6f 72 72 65 6c 61 74 69 6f 6e"
      "    ea 01 0b 08 01 12 07 5b 31 2c 31 2c 31 5d"  // debug_annotation_string_values (29) {1, "[1,1,1]"}
      "    1a 08 08 05 12 04 67 72 69 64"
      "    ea 01 0c 08 02 12 08 5b 33 32 2c 31 2c 31 5d"  // {2, "[32,1,1]"}
      "    1a 09 08 06 12 05 62 6c 6f 63 6b"
      "    1a 0d 08 07 12 09 72 65 67 69 73 74 65 72 73"
      "    1a 0f 08 08 12 0b 73 74 61 74 69 63 5f 73 6d 65 6d"
      "    1a 10 08 09 12 0c 64 79 6e 61 6d 69 63 5f 73 6d 65 6d"
      // ---- Packet 8 (8 bytes): its SLICE_END, 20 ns later: no track, no flags.
      "0a 08"
      "  40 14 50 02"
      "  5a 02 48 02");            // track_event {type SLICE_END}
  // clang-format on

  std::ostringstream out;
  const PerfettoExportStats stats = writePerfettoProto(t, out);
  CHECK(toHex(out.str()) == toHex(expected));
  CHECK(stats.bytes == expected.size());
  CHECK(stats.packets == 8);
  CHECK(stats.events == 3);
  const Decoded d = decode(out.str());
  INFO(problems(d));
  CHECK(d.problems.empty());
}

// Not run by default: `format_tests "[.bench]"` (or "[pftrace-bench]").
TEST_CASE("pftrace: export speed and size", "[.bench][pftrace-bench]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  const StringId kernelNames[4] = {
      t.strings.intern("_ZN7cutlass6KernelINS_4gemm6kernel4GemmIfEEEEvNT_6ParamsE"),
      t.strings.intern("_Z6kernelPfi"), t.strings.intern("_Z3addPfS_S_i"),
      t.strings.intern("_Z7softmaxPKfPfi")};
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  const uint32_t n = 1'000'000;
  auto fill = [&](bool withCalls) {
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t at = b + uint64_t{i} * 1000;
      if (withCalls) {
        ApiRecord a{};
        a.start = at;
        a.end = at + 400;
        a.name = launch;
        a.correlationId = 1'000'000 + i;
        a.threadId = kHostPid + i % 4;
        a.cbid = 211;
        t.store.add(a);
      }
      KernelRecord k{};  // a realistic launch: every argument set
      k.start = at + 500 + i % 7;
      k.end = at + 900;
      k.name = kernelNames[i % 4];
      k.correlationId = 1'000'000 + i;
      k.deviceId = 0;
      k.contextId = 1;
      k.streamId = 7 + i % 8;
      k.gridX = 128 << (i % 3);
      k.gridY = k.gridZ = 1;
      k.blockX = 256;
      k.blockY = k.blockZ = 1;
      k.registersPerThread = 32;
      k.staticSharedMemory = 1024;
      k.dynamicSharedMemory = 0;
      t.store.add(k);
    }
  };
  // Counts the bytes and drops them: the exporter is measured, not a stream's growth.
  struct Sink : std::streambuf {
    size_t bytes = 0;
    std::streamsize xsputn(const char*, std::streamsize count) override {
      bytes += static_cast<size_t>(count);
      return count;
    }
    int overflow(int c) override {
      ++bytes;
      return c;
    }
  };
  auto run = [&](const char* what) {
    Sink sink;
    std::ostream out(&sink);
    const auto start = std::chrono::steady_clock::now();
    const PerfettoExportStats stats = writePerfettoProto(t, out);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << what << ": " << stats.events << " events, " << sink.bytes / 1e6 << " MB in "
              << seconds << " s: " << stats.events / seconds / 1e6 << " M events/s, "
              << static_cast<double>(sink.bytes) / static_cast<double>(stats.events)
              << " bytes/event, " << static_cast<double>(sink.bytes) / n << " bytes per kernel"
              << (t.store.count(RecordKind::Api) ? " and its launch call" : "") << "\n";
    return stats;
  };
  fill(false);
  run("1 M kernels (begin + end, 12 args each)");
  t.store.mutableRecords<KernelRecord>().clear();
  fill(true);
  const PerfettoExportStats stats = run("1 M kernels + 1 M launch calls with arrows");
  CHECK(stats.flows == n);
}
