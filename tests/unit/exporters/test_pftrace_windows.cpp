// The Perfetto protobuf exporter writing a window of start times at a
// time: the same timeline (slices, instants, arrows, the trace's
// description) as in one window, whatever the window size, merged traces
// included; arrows decided as events are written, with the call and its GPU
// work in different windows.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/trace.h"
#include "exporters/merge.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "memory_fixture.h"
#include "pftrace_decoder.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using cuptitrace::testing::addKernel;
using cuptitrace::testing::addNvtx;
using cuptitrace::testing::initTrace;
using cuptitrace::testing::kSamplePid;
using cuptitrace::testing::perfetto::Args;
using cuptitrace::testing::perfetto::Decoded;
using cuptitrace::testing::perfetto::decodePerfetto;
using cuptitrace::testing::perfetto::Event;
using cuptitrace::testing::perfetto::SliceOut;
namespace f = cuptitrace::testing::perfetto::f;

namespace {

void addCall(Trace& t, uint64_t start, uint64_t end, uint32_t correlation,
             uint32_t tid = kSamplePid, const char* name = "cudaLaunchKernel",
             ApiDomain domain = ApiDomain::Runtime) {
  cuptitrace::testing::addApi(t, start, end, correlation, tid, domain, name);
}

// Launches on two threads (runtime calls around driver calls, NVTX ranges
// around some, marks, overlapping start/end ranges), kernels on three
// streams that sometimes overlap (moved on their track, some across a
// window's end), long kernels spanning many windows, kernels queued far
// behind their call, graph launches (three kernels, one arrow each), copies
// and sets, calls without recorded work, work without a call or without an
// end, GPU work before its call (clock skew: no arrow), whole graphs,
// synchronization, overhead and memory counters; more records than one
// chunk (4096) of each of the busy kinds, so windows skip whole chunks.
void fillLongTrace(Trace& t, std::mt19937_64& rng, uint32_t launches = 9000) {
  initTrace(t);
  t.meta.toolVersion = "test";
  t.meta.clock = "cupti";
  t.counters["dropped.cupti"] = 3;
  t.contexts.push_back({1, 0, 7});
  const uint64_t b = t.meta.baseTimestampNs;
  uint64_t now = b + 1000;
  uint64_t streamFree[3] = {now, now, now};
  auto copy = [&](uint64_t start, uint64_t end, uint32_t correlation, uint32_t stream) {
    MemcpyRecord m{};
    m.start = start;
    m.end = end;
    m.bytes = 4096 + correlation;
    m.correlationId = correlation;
    m.contextId = 1;
    m.streamId = stream;
    m.copyKind = static_cast<uint8_t>(CopyKind::HtoD);
    m.srcKind = static_cast<uint8_t>(MemoryKind::Pinned);
    m.dstKind = static_cast<uint8_t>(MemoryKind::Device);
    m.flags = kCopyFlagAsync;
    t.store.add(m);
  };
  auto set = [&](uint64_t start, uint64_t end, uint32_t correlation, uint32_t stream) {
    MemsetRecord m{};
    m.start = start;
    m.end = end;
    m.bytes = 512;
    m.correlationId = correlation;
    m.contextId = 1;
    m.streamId = stream;
    m.memoryKind = static_cast<uint8_t>(MemoryKind::Device);
    t.store.add(m);
  };
  for (uint32_t corr = 1; corr <= launches; ++corr) {
    const uint32_t tid = corr % 3 == 0 ? 4243 : kSamplePid;
    now += 200 + rng() % 400;
    const uint64_t end = now + 150 + rng() % 100;
    if (corr % 50 == 0)
      addNvtx(t, NvtxType::PushPop, now - 10, end + 10 + rng() % 2000, "step", tid);
    if (corr % 401 == 0) addNvtx(t, NvtxType::Mark, now + 5, now + 5, "mark", tid);
    if (corr % 97 == 0)
      addNvtx(t, NvtxType::StartEnd, now, corr % 194 == 0 ? now : now + rng() % 50000, "phase",
              tid);
    const uint32_t stream = corr % 2;
    uint64_t start = std::max(end + rng() % 300, streamFree[stream]);
    if (rng() % 10 == 0) start -= 50;      // overlaps the one before
    if (corr % 700 == 0) start += 200000;  // queued far behind its launch
    const uint64_t length = corr % 997 == 0 ? 300000 : 100 + rng() % 500;
    const uint32_t kind = corr % 23;
    if (kind == 5) {  // a graph launch: a kernel on each stream
      addCall(t, now, end, corr, tid, "cudaGraphLaunch");
      for (uint32_t s = 0; s < 3; ++s) {
        const uint64_t at = std::max(start, streamFree[s]);
        addKernel(t, at, at + length, corr, 7 + 2 * s, "_Z5graphv");
        streamFree[s] = at + length;
      }
      continue;
    }
    if (kind == 7) {
      addCall(t, now, end, corr, tid, "cudaMemcpyAsync");
      copy(start, start + length, corr, 7 + 2 * stream);
    } else if (kind == 11) {
      addCall(t, now, end, corr, tid, "cudaMemsetAsync");
      set(start, start + length, corr, 7 + 2 * stream);
    } else if (kind == 13) {
      addCall(t, now, end, corr, tid);  // its kernel was not recorded
      continue;
    } else if (kind == 17) {
      addKernel(t, start, start + length, corr, 7 + 2 * stream, "_Z6orphanv");  // no call
    } else if (kind == 19) {
      addCall(t, now, end, corr, tid);
      addKernel(t, start, 0, corr, 7 + 2 * stream);  // its end was not recorded
      continue;
    } else {
      addCall(t, now, end, corr, tid);
      addCall(t, now + 20, end - 20, corr, tid, "cuLaunchKernel", ApiDomain::Driver);
      addKernel(t, start, start + length, corr, 7 + 2 * stream, corr % 2 ? "_Z1av" : "_Z1bv");
    }
    streamFree[stream] = start + length;
    if (corr % 613 == 0) {  // clock skew: GPU work before its call, on a stream of its own
      addCall(t, now + 20000, now + 20100, launches + corr, tid);
      addKernel(t, now + 19000, now + 19500, launches + corr, 21);
    }
    if (corr % 1500 == 0) {  // a whole graph (graph-level tracing)
      addCall(t, now + 1, now + 2, 2 * launches + corr, kSamplePid, "cudaGraphLaunch");
      cuptitrace::testing::addGraphLaunch(t, now + 30000, now + 30000 + rng() % 5000, 4,
                                          2 * launches + corr);
    }
    if (corr % 300 == 0) {
      SyncRecord sy{};
      sy.start = now + 100;
      sy.end = now + 100 + rng() % 3000;
      sy.correlationId = corr;
      sy.contextId = 1;
      sy.streamId = 7;
      sy.eventId = 0xffffffff;
      sy.type = static_cast<uint8_t>(SyncType::StreamSynchronize);
      t.store.add(sy);
    }
    if (corr % 500 == 0) {
      OverheadRecord o{};
      o.start = now;
      o.end = now + 700;
      o.name = t.strings.intern("CUPTI buffer flush");
      o.threadId = kSamplePid;
      o.deviceId = 0xffffffff;
      t.store.add(o);
    }
    if (corr % 1000 == 0) {
      cuptitrace::testing::addAllocation(t, now, 0xA000 + corr, 1 << 20, 0, MemoryKind::Device,
                                         corr);
      cuptitrace::testing::addFree(t, now + 50000, 0xA000 + corr, 1 << 20, 0, MemoryKind::Device,
                                   corr);
    }
  }
  addNvtx(t, NvtxType::Mark, now, now, "done");
  addNvtx(t, NvtxType::StartEnd, b + 5000, now, "whole run");
}

std::string text(const Args& args) {
  std::string out;
  for (const auto& [key, a] : args)
    out += key + "=" + std::to_string(a.u) + "/" + std::to_string(a.i) + "/" + std::to_string(a.b) +
           "/" + std::to_string(a.d) + "/" + a.s + ";";
  return out;
}

// What a file shows, apart from its order and its flow ids: each slice and
// instant (process, track, name, times, arguments), each arrow by its two
// ends, the trace's description.
struct Timeline {
  std::multiset<std::string> slices, instants, arrows;
  std::map<uint64_t, std::string> description;  // by pid: its arguments
  size_t flowStarts = 0, flowEnds = 0;
  bool operator==(const Timeline& o) const {
    return slices == o.slices && instants == o.instants && arrows == o.arrows &&
           description == o.description && flowStarts == o.flowStarts && flowEnds == o.flowEnds;
  }
};

std::string where(const Decoded& d, const Event& e) {
  return std::to_string(d.pidOf(e.track)) + "|" + d.nameOf(e.track) + "|" + e.name + "|" +
         std::to_string(e.ts);
}

Timeline timeline(const Decoded& d) {
  Timeline t;
  for (const SliceOut& s : d.slices)
    t.slices.insert(where(d, s.begin) + "-" + std::to_string(s.end) + "|" + text(s.begin.args));
  for (const Event& e : d.layouts) t.description[static_cast<uint64_t>(d.pidOf(e.track))] += text(e.args);
  for (const Event& e : d.instants) {
    if (e.name == "cuptitrace") {
      t.description[static_cast<uint64_t>(d.pidOf(e.track))] += text(e.args);
    } else {
      t.instants.insert(where(d, e) + "|" + text(e.args));
    }
  }
  for (const auto& a : d.arrows)
    t.arrows.insert(where(d, d.events[a.from]) + " -> " + where(d, d.events[a.to]));
  for (const Event& e : d.events) {
    t.flowStarts += e.flows.size();
    t.flowEnds += e.terminating.size();
  }
  return t;
}

struct Written {
  std::string bytes;
  PerfettoExportStats stats;
  Decoded decoded;
};

Written write(const Trace& t, size_t windowSlices) {
  Written w;
  std::ostringstream out;
  w.stats = writePerfettoProto(t, out, windowSlices);
  w.bytes = out.str();
  w.decoded = decodePerfetto(w.bytes);
  return w;
}

Written write(const std::vector<TimelineInput>& inputs, size_t windowSlices) {
  Written w;
  std::ostringstream out;
  w.stats = writePerfettoProto(inputs, out, windowSlices);
  w.bytes = out.str();
  w.decoded = decodePerfetto(w.bytes);
  return w;
}

// The checks every file passes: valid as trace processor reads it, stats
// as decoded, each arrow started once and terminated once, the description's
// counts those of the stats.
void checkValid(const Written& w) {
  const Decoded& d = w.decoded;
  INFO(d.problemText());
  CHECK(d.problems.empty());  // no flow stepped, left open or ended while inactive
  CHECK(w.stats.bytes == w.bytes.size());
  CHECK(w.stats.events == d.events.size());
  CHECK(w.stats.packets == d.packets.size());
  // A reader that pairs each track's begins and ends in file order, not by
  // time, gets the same slices: every piece ends what it begins before the
  // next piece's packets.
  std::multiset<std::tuple<uint64_t, uint64_t, uint64_t>> byTime, byFile;
  for (const SliceOut& s : d.slices) byTime.insert({s.begin.track, s.begin.wall, s.endWall});
  std::map<uint64_t, std::vector<const Event*>> open;
  for (const Event& e : d.events) {
    if (e.type == f::kBegin) {
      open[e.track].push_back(&e);
    } else if (e.type == f::kEnd) {
      auto& stack = open[e.track];
      REQUIRE(!stack.empty());
      byFile.insert({e.track, stack.back()->wall, e.wall});
      stack.pop_back();
    }
  }
  CHECK(byFile == byTime);
  const Timeline t = timeline(d);
  CHECK(t.flowStarts == w.stats.flows);
  CHECK(t.flowEnds == w.stats.flows);
  CHECK(d.arrows.size() == w.stats.flows);
  uint64_t described = 0, clamped = 0, laneTracks = 0;
  // One summary of the layout per trace, as many as their descriptions.
  CHECK(d.layouts.size() == static_cast<size_t>(std::count_if(
                                d.instants.begin(), d.instants.end(),
                                [](const Event& e) { return e.name == "cuptitrace"; })));
  for (const Event& e : d.layouts) {
    described += e.args.at("flows").u;
    clamped += e.args.at("clamped_slices").u;
    laneTracks += e.args.at("lane_tracks").u;
  }
  CHECK(described == w.stats.flows);
  CHECK(clamped == w.stats.clamped);
  CHECK(laneTracks == w.stats.laneTracks);
}

// The arrow into the GPU slice of `category` with correlation id `correlation`, or nullptr.
const Event* arrowInto(const Decoded& d, const std::string& category, uint64_t correlation) {
  for (size_t i = 0; i < d.events.size(); ++i) {
    const Event& e = d.events[i];
    if (e.categories != std::vector<std::string>{category}) continue;
    const auto it = e.args.find("correlation");
    if (it != e.args.end() && it->second.u == correlation) return d.arrowInto(i);
  }
  FAIL("no " << category << " with correlation " << correlation);
  return nullptr;
}

// The slice named `name` with correlation id `correlation`.
SliceOut sliceOf(const Decoded& d, const std::string& name, uint64_t correlation) {
  std::vector<SliceOut> found;
  for (const SliceOut& s : d.slicesNamed(name)) {
    const auto it = s.begin.args.find("correlation");
    if (it != s.begin.args.end() && it->second.u == correlation) found.push_back(s);
  }
  REQUIRE(found.size() == 1);
  return found[0];
}

}  // namespace

TEST_CASE("pftrace written in windows is the file of one window", "[pftrace][windows]") {
  for (const uint64_t seed : {5, 9}) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    Trace t;
    fillLongTrace(t, rng);
    const Written whole = write(t, kDefaultWindowSlices);
    checkValid(whole);
    CHECK(whole.stats.windows == 1);
    REQUIRE(whole.stats.flows > 8000);
    REQUIRE(whole.stats.laneTracks > 0);  // overlaps put on lanes, some across windows
    REQUIRE(whole.stats.clamped == 0);
    CHECK(whole.stats.incomplete > 0);
    const Timeline expected = timeline(whole.decoded);
    CHECK(expected.slices.size() > 20000);
    CHECK(expected.instants.size() > 20);

    for (const size_t window : {size_t{1000}, size_t{7}, size_t{1}}) {
      INFO("window of " << window << " slices");
      const Written w = write(t, window);
      checkValid(w);
      // Many windows were laid out...
      CHECK(w.stats.windows > 10);
      // ...and the file shows the very same timeline (its pieces, sequences
      // and so its bytes are the windows').
      CHECK(timeline(w.decoded) == expected);
      CHECK(w.stats.events == whole.stats.events);
      CHECK(w.stats.flows == whole.stats.flows);
      CHECK(w.stats.clamped == whole.stats.clamped);
      CHECK(w.stats.maxLanes == whole.stats.maxLanes);
      CHECK(w.stats.laneTracks == whole.stats.laneTracks);
      CHECK(w.stats.incomplete == whole.stats.incomplete);
    }
  }
}

TEST_CASE("pftrace windows: merged traces each written in windows of their own",
          "[pftrace][windows]") {
  std::vector<std::unique_ptr<Trace>> traces;
  std::vector<MergeSource> sources;
  for (uint32_t i = 0; i < 3; ++i) {
    std::mt19937_64 rng(20 + i);
    traces.push_back(std::make_unique<Trace>());
    Trace& t = *traces.back();
    fillLongTrace(t, rng, 2000 + 1000 * i);
    t.meta.hostName = "node" + std::to_string(i);
    // Clocks apart on the wall clock, the traces overlapping in time.
    t.meta.startTimestampNs = t.meta.baseTimestampNs;
    t.meta.startRealtimeNs =
        t.meta.baseTimestampNs + 1'000'000'000'000ull - 3'000'000ull * i + 17 * i;
    sources.push_back({&t, "run" + std::to_string(i) + ".cuptitrace"});
  }
  const std::vector<TimelineInput> inputs = planMerge(sources);
  const Written whole = write(inputs, kDefaultWindowSlices);
  checkValid(whole);
  CHECK(whole.stats.windows == 3);
  const Timeline expected = timeline(whole.decoded);
  CHECK(expected.description.size() == 3);
  for (const size_t window : {size_t{3000}, size_t{21}}) {
    INFO("window of " << window << " slices");
    const Written w = write(inputs, window);
    checkValid(w);
    CHECK(w.stats.windows > 3 * 2);  // each trace in windows of its own, one trace after another
    CHECK(timeline(w.decoded) == expected);
  }
}

TEST_CASE("pftrace windows: a kernel queued far behind its call keeps its arrow",
          "[pftrace][windows]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  addCall(t, b + 100, b + 200, 1);
  addKernel(t, b + 500'000, b + 501'000, 1, 8);  // queued behind everything below
  // A graph launch whose kernels run one early, one soon, one much later.
  addCall(t, b + 300, b + 400, 2, kSamplePid, "cudaGraphLaunch");
  addKernel(t, b + 450, b + 460, 2, 9);
  addKernel(t, b + 250'000, b + 250'010, 2, 9);
  addKernel(t, b + 600'000, b + 600'010, 2, 9);
  for (uint32_t i = 0; i < 200; ++i) {
    const uint64_t at = b + 1000 + 2000 * uint64_t{i};
    addCall(t, at, at + 300, 100 + i);
    addKernel(t, at + 500, at + 900, 100 + i);
  }
  const Written whole = write(t, kDefaultWindowSlices);
  checkValid(whole);
  const Written w = write(t, 7);
  checkValid(w);
  CHECK(w.stats.windows > 40);  // the calls in the first window, their kernels in the last ones
  CHECK(timeline(w.decoded) == timeline(whole.decoded));
  CHECK(w.stats.flows == 200 + 1 + 3);
  const Event* call = arrowInto(w.decoded, "kernel", 1);
  REQUIRE(call != nullptr);
  CHECK(call->name == "cudaLaunchKernel");
  CHECK(call->ts == b + 100);
  const SliceOut launch = w.decoded.slicesNamed("cudaGraphLaunch").at(0);
  CHECK(launch.begin.flows.size() == 3);
  size_t fromLaunch = 0;
  for (const auto& a : w.decoded.arrows) {
    if (w.decoded.events[a.from].packet != launch.begin.packet) continue;
    CHECK(w.decoded.events[a.to].args.at("correlation").u == 2);
    ++fromLaunch;
  }
  CHECK(fromLaunch == 3);
}

TEST_CASE("pftrace windows: GPU work before its call has no arrow, its call one fewer",
          "[pftrace][windows]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  // Clock skew: the kernel of call 1 runs long before the call, in an earlier window.
  addKernel(t, b + 100, b + 200, 1, 8);
  for (uint32_t i = 0; i < 200; ++i) {
    const uint64_t at = b + 1000 + 2000 * uint64_t{i};
    addCall(t, at, at + 300, 100 + i);
    addKernel(t, at + 500, at + 900, 100 + i);
  }
  addCall(t, b + 450'000, b + 450'100, 1);
  // A graph launch with one kernel before it (no arrow) and two after (arrows).
  addKernel(t, b + 300, b + 310, 2, 9);
  addCall(t, b + 460'000, b + 460'100, 2, kSamplePid, "cudaGraphLaunch");
  addKernel(t, b + 460'200, b + 460'300, 2, 9);
  addKernel(t, b + 470'000, b + 470'300, 2, 9);
  // At the very nanosecond of its call: the call is written first, the arrow kept.
  addCall(t, b + 480'000, b + 480'100, 3);
  addKernel(t, b + 480'000, b + 480'050, 3, 8);
  const Written whole = write(t, kDefaultWindowSlices);
  checkValid(whole);
  for (const size_t window : {size_t{7}, size_t{1}}) {
    INFO("window of " << window << " slices");
    const Written w = write(t, window);
    checkValid(w);
    CHECK(w.stats.windows > 40);
    CHECK(timeline(w.decoded) == timeline(whole.decoded));
    CHECK(w.stats.flows == 200 + 2 + 1);
    CHECK(arrowInto(w.decoded, "kernel", 1) == nullptr);
    const SliceOut call = sliceOf(w.decoded, "cudaLaunchKernel", 1);
    CHECK(call.begin.ts == b + 450'000);
    CHECK(call.begin.flows.empty());
    const SliceOut launch = w.decoded.slicesNamed("cudaGraphLaunch").at(0);
    CHECK(launch.begin.flows.size() == 2);
    CHECK(arrowInto(w.decoded, "kernel", 3) != nullptr);
  }
}

TEST_CASE("pftrace windows: a slice at the end of time is in the last window",
          "[pftrace][windows]") {
  Trace t;
  initTrace(t);
  const uint64_t b = t.meta.baseTimestampNs;
  for (uint32_t i = 0; i < 20; ++i)
    addKernel(t, b + 100 * uint64_t{i}, b + 100 * uint64_t{i} + 50, 0);
  addKernel(t, UINT64_MAX, UINT64_MAX, 0, 8);
  // The only record of its kind: its chunk starts nothing before the end of time.
  cuptitrace::testing::addGraphLaunch(t, UINT64_MAX, UINT64_MAX, 4, 0);
  const Written whole = write(t, kDefaultWindowSlices);
  checkValid(whole);
  CHECK(whole.decoded.slices.size() == 22);
  const Written w = write(t, 3);
  checkValid(w);
  CHECK(w.stats.windows > 1);
  CHECK(w.bytes == whole.bytes);
}
