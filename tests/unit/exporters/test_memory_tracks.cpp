// GPU memory and unified memory on the timeline (memory_tracks.h): the
// counter series, the lanes of unified memory slices, and what the Chrome
// JSON and Perfetto writers make of them, read back.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "core/json_text.h"
#include "exporters/memory_tracks.h"
#include "timeline/track_layout.h"
#include "memory_fixture.h"
#include "pftrace_decoder.h"
#include "proto_reader.h"

using namespace cuptitrace;
using cuptitrace::testing::addAllocation;
using cuptitrace::testing::addFree;
using cuptitrace::testing::addUvm;
using nlohmann::json;

namespace {

constexpr uint32_t kPid = 4242;
constexpr uint64_t kBase = 1'000'000'000ull;

Trace& baseTrace(Trace& t) {
  t.meta.pid = kPid;
  t.meta.baseTimestampNs = kBase;
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-0"});
  t.devices.push_back({1, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-1"});
  return t;
}

json jsonEvents(const Trace& trace, size_t* written = nullptr) {
  JsonText text;
  text.put('[');
  const size_t n = writeJsonMemoryEvents(timelineInput(trace), kBase, 0, text, true, {});
  text.put(']');
  if (written) *written = n;
  return json::parse(text.view());
}

}  // namespace

TEST_CASE("memory usage: allocated bytes over time, peak, and what is never freed") {
  Trace t;
  baseTrace(t);
  // Device 0: 100 then 50 allocated, 100 freed, 30 allocated; device 1: 7, never freed.
  addAllocation(t, kBase + 100, 0xA000, 100, 0, MemoryKind::Device, 1);
  addAllocation(t, kBase + 300, 0xB000, 50, 0, MemoryKind::Pinned, 2);
  addFree(t, kBase + 400, 0xA000, 100, 0, MemoryKind::Device, 3);
  addAllocation(t, kBase + 500, 0xC000, 30, 0, MemoryKind::Managed, 4);
  addAllocation(t, kBase + 200, 0xD000, 7, 1, MemoryKind::Device, 5);  // out of time order in the store
  addFree(t, kBase + 600, 0xE000, 999, 0, MemoryKind::Device, 6);      // allocated before the trace
  addAllocation(t, kBase + 50, 0xF000, 4096, 0, MemoryKind::DeviceStatic, 7);

  const MemoryUsage u = memoryUsage(t);
  REQUIRE(u.devices.size() == 2);
  const DeviceMemoryUsage& d0 = u.devices[0];
  CHECK(d0.device == 0);
  REQUIRE(d0.points.size() == 5);
  const uint64_t expected[][2] = {{50, 4096}, {100, 4196}, {300, 4246}, {400, 4146}, {500, 4176}};
  for (size_t i = 0; i < 5; ++i) {
    CHECK(d0.points[i].ts == kBase + expected[i][0]);
    CHECK(d0.points[i].value == expected[i][1]);
  }
  CHECK(d0.all.allocations == 4);
  CHECK(d0.all.frees == 1);
  CHECK(d0.all.allocatedBytes == 4096 + 100 + 50 + 30);
  CHECK(d0.all.peakBytes == 4246);
  CHECK(d0.all.peakTs == kBase + 300);
  CHECK(d0.all.liveCount == 3);
  CHECK(d0.all.liveBytes == 4096 + 50 + 30);
  const MemoryKindUsage& device = d0.byKind[static_cast<size_t>(MemoryKind::Device)];
  CHECK(device.allocations == 1);
  CHECK(device.frees == 1);
  CHECK(device.peakBytes == 100);
  CHECK(device.liveCount == 0);
  CHECK(d0.byKind[static_cast<size_t>(MemoryKind::Pinned)].liveBytes == 50);

  const DeviceMemoryUsage& d1 = u.devices[1];
  CHECK(d1.device == 1);
  CHECK(d1.all.peakBytes == 7);
  CHECK(d1.all.liveBytes == 7);

  CHECK(u.unmatchedFrees == 1);
  CHECK(u.reusedAddresses == 0);
  // Largest first: the static 4096, then 50, 30, 7.
  REQUIRE(u.live.size() == 4);
  const auto& records = t.store.records<MemoryRecord>();
  CHECK(records[u.live[0]].bytes == 4096);
  CHECK(records[u.live[1]].bytes == 50);
  CHECK(records[u.live[2]].bytes == 30);
  CHECK(records[u.live[3]].bytes == 7);
  CHECK(isStaticMemory(records[u.live[0]].memoryKind));
  CHECK_FALSE(isStaticMemory(records[u.live[1]].memoryKind));
}

TEST_CASE("memory usage: an address allocated again before its free is taken as freed") {
  Trace t;
  baseTrace(t);
  addAllocation(t, kBase + 10, 0xA000, 100, 0, MemoryKind::Device, 1);
  addAllocation(t, kBase + 20, 0xA000, 60, 0, MemoryKind::Device, 2);
  addFree(t, kBase + 30, 0xA000, 60, 0, MemoryKind::Device, 3);
  // An allocation and its free at one timestamp: the allocation comes first.
  addFree(t, kBase + 40, 0xB000, 8, 0, MemoryKind::Device, 5);
  addAllocation(t, kBase + 40, 0xB000, 8, 0, MemoryKind::Device, 4);
  const MemoryUsage u = memoryUsage(t);
  CHECK(u.reusedAddresses == 1);
  CHECK(u.unmatchedFrees == 0);
  REQUIRE(u.devices.size() == 1);
  CHECK(u.devices[0].all.peakBytes == 100);
  CHECK(u.devices[0].all.liveCount == 0);
  CHECK(u.devices[0].points.back().value == 0);
  CHECK(u.live.empty());
}

TEST_CASE("unified memory: overlapping transfers get lanes, counters add up") {
  Trace t;
  baseTrace(t);
  addUvm(t, UvmKind::BytesHtoD, kBase + 100, kBase + 300, 65536, 0);
  addUvm(t, UvmKind::BytesHtoD, kBase + 200, kBase + 400, 4096, 0);  // overlaps the first
  addUvm(t, UvmKind::BytesHtoD, kBase + 300, kBase + 350, 8192, 0);  // fits after the first
  addUvm(t, UvmKind::BytesDtoH, kBase + 500, kBase + 600, 1 << 20, 0);
  addUvm(t, UvmKind::GpuPageFault, kBase + 150, kBase + 250, 3, 0);
  addUvm(t, UvmKind::CpuPageFault, kBase + 700, kBase + 700, 0x401000, kUvmNoDevice);
  addUvm(t, UvmKind::CpuPageFault, kBase + 800, kBase + 800, 0x401000, kUvmNoDevice);
  addUvm(t, UvmKind::BytesHtoD, 0, 0, 1, 0);  // no time: not drawn

  const UvmTimeline tl = uvmTimeline(t);
  CHECK(tl.undrawn == 1);
  auto tracksOf = [&](UvmKind kind, uint32_t device) {
    std::vector<const UvmTrack*> out;
    for (const auto& track : tl.tracks)
      if (track.kind == static_cast<uint8_t>(kind) && track.device == device) out.push_back(&track);
    return out;
  };
  const auto htod = tracksOf(UvmKind::BytesHtoD, 0);
  REQUIRE(htod.size() == 2);
  CHECK(htod[0]->lane == 0);
  CHECK(htod[0]->records == std::vector<uint32_t>{0, 2});
  CHECK(htod[1]->lane == 1);
  CHECK(htod[1]->records == std::vector<uint32_t>{1});
  CHECK(tracksOf(UvmKind::CpuPageFault, kUvmNoDevice).size() == 1);

  auto counterOf = [&](UvmKind kind) -> const UvmCounter* {
    for (const auto& c : tl.counters)
      if (c.kind == static_cast<uint8_t>(kind)) return &c;
    return nullptr;
  };
  const UvmCounter* h = counterOf(UvmKind::BytesHtoD);
  REQUIRE(h != nullptr);
  // Transfers count at their end: 300, 350, 400.
  REQUIRE(h->points.size() == 3);
  CHECK(h->points[0].ts == kBase + 300);
  CHECK(h->points[0].value == 65536);
  CHECK(h->points[1].ts == kBase + 350);
  CHECK(h->points[1].value == 65536 + 8192);
  CHECK(h->points[2].value == 65536 + 8192 + 4096);
  const UvmCounter* cpu = counterOf(UvmKind::CpuPageFault);
  REQUIRE(cpu != nullptr);
  CHECK(cpu->device == kUvmNoDevice);
  REQUIRE(cpu->points.size() == 2);
  CHECK(cpu->points[1].value == 2);  // faults counted, not their PCs
  const UvmCounter* gpu = counterOf(UvmKind::GpuPageFault);
  REQUIRE(gpu != nullptr);
  CHECK(gpu->points.back().value == 3);
}

TEST_CASE("memory JSON: counters on the GPU's process, unified memory slices on named tracks") {
  Trace t;
  baseTrace(t);
  addAllocation(t, kBase + 1000, 0xA000, 100, 1, MemoryKind::Device, 1);
  addFree(t, kBase + 3000, 0xA000, 100, 1, MemoryKind::Device, 2);
  addUvm(t, UvmKind::BytesHtoD, kBase + 100, kBase + 300, 65536, 1);
  addUvm(t, UvmKind::BytesHtoD, kBase + 200, kBase + 400, 4096, 1);
  addUvm(t, UvmKind::CpuPageFault, kBase + 700, kBase + 700, 0x401000, kUvmNoDevice);

  size_t written = 0;
  const json events = jsonEvents(t, &written);
  CHECK(events.size() == written);
  const uint32_t gpuPid = gpuProcessId(kPid, 1);

  std::vector<json> counters, slices, instants;
  std::map<std::pair<uint32_t, uint32_t>, std::string> threadNames;
  std::string processName;
  for (const json& e : events) {
    const std::string ph = e.at("ph");
    if (ph == "C" && e.at("name") == kMemoryCounterName) counters.push_back(e);
    if (ph == "X") slices.push_back(e);
    if (ph == "i") instants.push_back(e);
    if (ph == "M" && e.at("name") == "thread_name")
      threadNames[{e.at("pid"), e.at("tid")}] = e.at("args").at("name");
    if (ph == "M" && e.at("name") == "process_name" && e.at("pid") == gpuPid)
      processName = e.at("args").at("name");
  }
  CHECK(processName == "GPU 1: NVIDIA H100 80GB HBM3 (CC 9.0, 132 SMs, 85.0 GiB, 1980 MHz)");
  REQUIRE(counters.size() == 2);
  CHECK(counters[0].at("pid") == gpuPid);
  CHECK(counters[0].at("ts").get<double>() == Approx(1.0));
  CHECK(counters[0].at("args").at("bytes") == 100);
  CHECK(counters[1].at("ts").get<double>() == Approx(3.0));
  CHECK(counters[1].at("args").at("bytes") == 0);

  REQUIRE(slices.size() == 2);
  CHECK(slices[0].at("name") == "HtoD");
  CHECK(slices[0].at("cat") == "uvm");
  CHECK(slices[0].at("pid") == gpuPid);
  CHECK(slices[0].at("args").at("bytes") == 65536);
  CHECK(slices[0].at("args").at("address") == "0xa000");
  // Overlapping slices are on two tracks of one name.
  CHECK(slices[0].at("tid") != slices[1].at("tid"));
  CHECK(threadNames.at({gpuPid, slices[0].at("tid")}) == "Unified memory HtoD");
  CHECK(threadNames.at({gpuPid, slices[1].at("tid")}) == "Unified memory HtoD");

  REQUIRE(instants.size() == 1);
  CHECK(instants[0].at("pid") == kPid);
  CHECK(instants[0].at("s") == "t");
  CHECK(instants[0].at("args").at("pc") == "0x401000");
  CHECK(threadNames.at({kPid, instants[0].at("tid")}) == "CPU page faults");
  // A counter of faults on the host process.
  bool cpuCounter = false;
  for (const json& e : events)
    if (e.at("ph") == "C" && e.at("name") == "CPU page faults" && e.at("pid") == kPid)
      cpuCounter = e.at("args").at("faults") == 1;
  CHECK(cpuCounter);
}

TEST_CASE("memory JSON: a trace without memory records adds nothing") {
  Trace t;
  baseTrace(t);
  JsonText text;
  CHECK(writeJsonMemoryEvents(timelineInput(t), kBase, 0, text, false, {}) == 0);
  CHECK(text.size() == 0);
}

TEST_CASE("memory Perfetto: a sequence of its own, in time order between another's packets") {
  Trace t;
  baseTrace(t);
  t.meta.startTimestampNs = kBase;
  t.meta.startRealtimeNs = kBase + 5'000'000;  // the wall clock runs 5 ms ahead
  addAllocation(t, kBase + 1000, 0xA000, 100, 0, MemoryKind::Device, 1);
  addAllocation(t, kBase + 2000, 0xB000, 300, 1, MemoryKind::Device, 2);
  addFree(t, kBase + 3000, 0xA000, 100, 0, MemoryKind::Device, 3);
  addUvm(t, UvmKind::BytesDtoH, kBase + 1500, kBase + 2500, 4096, 0);
  addUvm(t, UvmKind::CpuPageFault, kBase + 1200, kBase + 1200, 0x401000, kUvmNoDevice);

  PerfettoMemoryOptions options;
  options.sequenceId = 9;
  options.base = kBase;
  options.hostProcessUuid = 1;
  options.gpuProcessUuid = [](uint32_t device) -> uint64_t { return device == 0 ? 7 : 0; };
  PerfettoMemorySequence sequence(timelineInput(t), options);
  REQUIRE_FALSE(sequence.empty());

  // What the timeline would have written around it: its host and GPU 0 process tracks.
  ProtoWriter w;
  auto processTrack = [&](uint64_t uuid, uint32_t pid, const char* name) {
    auto pk = w.beginNested(1);
    w.varintField(10, 1);
    w.varintField(13, 3);
    auto d = w.beginNested(60);
    w.varintField(1, uuid);
    auto proc = w.beginNested(3);
    w.varintField(1, pid);
    w.bytesField(6, name);
    w.endNestedCompact(proc);
    w.endNestedCompact(d);
    w.endNestedCompact(pk);
  };
  processTrack(1, kPid, "app");
  processTrack(7, gpuProcessId(kPid, 0), "GPU 0");
  std::string bytes(w.view());
  bytes += sequence.header();
  const std::string early(sequence.takeUntil(kBase + 1500 + 5'000'000));  // wall clock
  bytes += early;
  bytes += sequence.rest();
  CHECK(sequence.rest().empty());

  namespace pf = cuptitrace::testing::perfetto;
  const pf::Decoded d = pf::decodePerfetto(bytes);
  // The timeline's own packets here carry no clock: only ours are checked.
  for (const std::string& p : d.problems)
    CHECK((p.find("packet 0:") == 0 || p.find("packet 1:") == 0));

  // Counters: GPU 0 under the timeline's process, GPU 1 under one described here.
  std::map<uint64_t, std::vector<int64_t>> values;
  for (const pf::Event& e : d.counters) values[e.track].push_back(e.counterValue);
  uint64_t gpu0 = 0, gpu1 = 0;
  for (const auto& [uuid, info] : d.tracks) {
    if (info.name != "Memory allocated bytes") continue;
    CHECK(info.counter);
    CHECK(info.counterUnit == 3);  // SIZE_BYTES
    if (d.pidOf(uuid) == gpuProcessId(kPid, 0)) gpu0 = uuid;
    if (d.pidOf(uuid) == gpuProcessId(kPid, 1)) gpu1 = uuid;
  }
  REQUIRE(gpu0 != 0);
  REQUIRE(gpu1 != 0);
  CHECK(d.track(gpu0).parent == 7);
  CHECK(d.track(d.track(gpu1).parent).processName == "GPU 1: NVIDIA H100 80GB HBM3 (CC 9.0, 132 SMs, 85.0 GiB, 1980 MHz)");
  CHECK(values[gpu0] == std::vector<int64_t>{100, 0});
  CHECK(values[gpu1] == std::vector<int64_t>{300});

  // Times on the wall clock: trace time plus the offset.
  for (const pf::Event& e : d.counters)
    if (e.track == gpu1) CHECK(e.wall == kBase + 2000 + 5'000'000);
  // The events taken first are those up to the time asked for.
  // The allocation at 1000, the CPU fault (instant and counter) at 1200, the DtoH begin at 1500.
  CHECK(cuptitrace::testing::proto::tracePackets(early).size() == 4);

  const auto slices = d.slicesOf("uvm");
  REQUIRE(slices.size() == 1);
  CHECK(slices[0].begin.name == "DtoH");
  CHECK(slices[0].begin.args.at("bytes").u == 4096);
  CHECK(slices[0].endWall - slices[0].begin.wall == 1000);
  CHECK(d.nameOf(slices[0].begin.track) == "Unified memory DtoH");
  REQUIRE(d.instants.size() == 1);
  CHECK(d.instants[0].name == "CPU page fault");
  CHECK(d.pidOf(d.instants[0].track) == kPid);
}

TEST_CASE("memory Perfetto: nothing to write, no packets") {
  Trace t;
  baseTrace(t);
  PerfettoMemorySequence sequence(timelineInput(t), PerfettoMemoryOptions{});
  CHECK(sequence.empty());
  CHECK(sequence.header().empty());
  CHECK(sequence.rest().empty());
}
