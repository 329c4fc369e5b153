// Merging saved traces into one timeline (exporters/merge.h), in both
// formats: every event of every input present, pids and names as promised,
// ids renumbered and unique, per-track order kept, clocks aligned.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "exporters/merge.h"
#include "exporters/native/native.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "timeline/track_layout.h"
#include "pftrace_decoder.h"

using namespace cuptitrace;
using cuptitrace::testing::perfetto::Decoded;
using cuptitrace::testing::perfetto::decodePerfetto;
using cuptitrace::testing::perfetto::Event;
using cuptitrace::testing::perfetto::SliceOut;
using nlohmann::json;

namespace {

constexpr uint32_t kShift = uint32_t{1} << 22;

struct Spec {
  std::string host;
  uint32_t pid;
  uint64_t start;          // trace clock at collection start
  int64_t realtimeOffset;  // wall clock minus trace clock
  uint32_t launches;
  uint32_t worker = 0;     // a second thread making half the calls, when not 0
};

// A run: `launches` calls each launching a kernel on stream 7 of GPU 0, with
// correlation ids from 1 (so every trace's ids overlap), an NVTX start/end
// range, and the offset recorded the way the tracer does (two start times).
void fill(Trace& t, const Spec& s) {
  t.meta.toolVersion = "test";
  t.meta.hostName = s.host;
  t.meta.pid = s.pid;
  t.meta.processName = "train.py";
  t.meta.baseTimestampNs = s.start;
  t.meta.startTimestampNs = s.start;
  t.meta.startRealtimeNs = s.start + static_cast<uint64_t>(s.realtimeOffset);
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-1"});
  t.contexts.push_back({1, 0, 7});
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  const StringId kernel = t.strings.intern("_Z6kernelPfi");
  for (uint32_t i = 0; i < s.launches; ++i) {
    const uint64_t at = s.start + 1000 + uint64_t{i} * 2000;
    ApiRecord a{};
    a.start = at;
    a.end = at + 500;
    a.name = launch;
    a.correlationId = i + 1;
    a.threadId = s.worker != 0 && i % 2 == 1 ? s.worker : s.pid;
    t.store.add(a);
    KernelRecord k{};
    k.start = at + 700;
    k.end = at + 1500;
    k.name = kernel;
    k.correlationId = i + 1;
    k.contextId = 1;
    k.streamId = 7;
    k.gridX = k.gridY = k.gridZ = 1;
    k.blockX = k.blockY = k.blockZ = 1;
    t.store.add(k);
  }
  NvtxRecord r{};
  r.type = static_cast<uint8_t>(NvtxType::StartEnd);
  r.start = s.start + 900;
  r.end = s.start + 1000 + uint64_t{s.launches} * 2000;
  r.id = 1;
  r.message = t.strings.intern("epoch");
  r.threadId = r.endThreadId = s.pid;
  t.store.add(r);
}

struct Inputs {
  std::vector<std::unique_ptr<Trace>> traces;
  std::vector<MergeSource> sources;
  std::vector<Spec> specs;
  void add(const Spec& s) {
    traces.push_back(std::make_unique<Trace>());
    fill(*traces.back(), s);
    specs.push_back(s);
    sources.push_back({traces.back().get(), s.host + "-" + std::to_string(s.pid) + ".native"});
  }
};

// Two runs with the same pid on different hosts, clocks 3 ms apart in wall time.
Inputs twoHosts() {
  Inputs in;
  in.add({"node1", 1234, 5'000'000'000ull, 1'000'000'000'000ll, 3});
  in.add({"node2", 1234, 7'000'000'000ull, 998'003'000'000ll, 4, 1240});
  return in;
}

// Three: the two above and another process of node1 with the same GPU.
Inputs threeProcesses() {
  Inputs in = twoHosts();
  in.add({"node1", 999, 5'000'100'000ull, 1'000'000'000'000ll, 2});
  return in;
}

Decoded mergedPftrace(const Inputs& in) {
  std::ostringstream out;
  const PerfettoExportStats stats = writePerfettoProto(planMerge(in.sources), out);
  Decoded d = decodePerfetto(out.str());
  CHECK(stats.bytes == d.bytes.size());
  CHECK(stats.events == d.events.size());
  return d;
}

json mergedJson(const Inputs& in) {
  std::ostringstream out;
  writeChromeJson(planMerge(in.sources), out);
  return json::parse(out.str());
}

// GPU 0's process name in a merged file: the name it has alone, and where it ran.
std::string gpuName(const std::string& host, uint32_t pid) {
  Trace t;
  fill(t, {host, pid, 1, 0, 0});
  return gpuProcessName(t, 0) + " (" + host + ":" + std::to_string(pid) + ")";
}

}  // namespace

TEST_CASE("merge: pids taken by an earlier trace move, names say where each ran", "[merge]") {
  const Inputs in = threeProcesses();
  const std::vector<TimelineInput> plan = planMerge(in.sources);
  REQUIRE(plan.size() == 3);
  CHECK(plan[0].hostPid() == 1234);
  CHECK(plan[1].hostPid() == 1234 + kShift);  // same pid, other host
  CHECK(plan[2].hostPid() == 999);
  CHECK(plan[0].nameSuffix == " (node1:1234)");
  CHECK(plan[1].nameSuffix == " (node2:1234)");
  std::set<uint32_t> gpuPids;
  for (const TimelineInput& p : plan) gpuPids.insert(gpuProcessId(p.gpuKey, 0));
  CHECK(gpuPids.size() == 3);  // one GPU process per traced process
  CHECK(plan[1].labels.at(0).second == "node2-1234.native");
}

TEST_CASE("merge: pftrace of two hosts with one pid", "[merge]") {
  const Inputs in = twoHosts();
  const Decoded d = mergedPftrace(in);
  INFO(d.problemText());
  CHECK(d.problems.empty());

  const auto* host1 = d.processTrack(1234);
  const auto* host2 = d.processTrack(1234 + kShift);
  REQUIRE(host1 != nullptr);
  REQUIRE(host2 != nullptr);
  CHECK(host1->processName == "train.py (node1:1234)");
  CHECK(host2->processName == "train.py (node2:1234)");
  // Threads moved with their process; names kept.
  CHECK(d.trackNamed(1234 + kShift, "Main thread")->tid == 1234 + kShift);
  CHECK(d.trackNamed(1234 + kShift, "Thread 1240")->tid == 1240 + kShift);
  CHECK(d.trackNamed(1234, "Main thread")->tid == 1234);

  // Each input's GPU, apart.
  std::map<std::string, int64_t> gpuPids;
  for (const auto& [uuid, t] : d.tracks)
    if (t.process && t.processName.rfind("GPU", 0) == 0) gpuPids[t.processName] = t.pid;
  REQUIRE(gpuPids.size() == 2);
  REQUIRE(gpuPids.count(gpuName("node1", 1234)));
  REQUIRE(gpuPids.count(gpuName("node2", 1234)));

  // Every event of every input, on its own process.
  std::map<int64_t, size_t> slicesByPid;
  for (const SliceOut& s : d.slices) ++slicesByPid[d.pidOf(s.begin.track)];
  CHECK(slicesByPid[1234] == 3 + 1);  // calls and the NVTX range
  CHECK(slicesByPid[1234 + kShift] == 4 + 1);
  CHECK(slicesByPid[gpuPids[gpuName("node1", 1234)]] == 3);
  CHECK(slicesByPid[gpuPids[gpuName("node2", 1234)]] == 4);
  CHECK(d.slices.size() == 3 + 1 + 3 + 4 + 1 + 4);

  // Arrows: one per launch, never across inputs, from the call of the same correlation id.
  REQUIRE(d.arrows.size() == 7);
  for (const auto& a : d.arrows) {
    const Event& from = d.events[a.from];
    const Event& to = d.events[a.to];
    CHECK(from.args.at("correlation").u == to.args.at("correlation").u);
    const bool first = d.pidOf(from.track) == 1234;
    CHECK(d.pidOf(to.track) == gpuPids[first ? gpuName("node1", 1234) : gpuName("node2", 1234)]);
  }

  // Clocks: each trace's times move by its own offset onto wall-clock time.
  for (const SliceOut& s : d.slices) {
    const bool first = d.pidOf(s.begin.track) == 1234 ||
                       d.pidOf(s.begin.track) == gpuPids[gpuName("node1", 1234)];
    const Spec& spec = in.specs[first ? 0 : 1];
    CHECK(s.begin.wall == s.begin.ts + static_cast<uint64_t>(spec.realtimeOffset));
    CHECK(s.begin.ts >= spec.start);
  }
  // The second run started 5 ms of trace clock later but only 3 ms of wall time later.
  const auto calls = d.slicesNamed("cudaLaunchKernel");
  uint64_t firstWall[2] = {UINT64_MAX, UINT64_MAX};
  for (const SliceOut& s : calls) {
    const int which = d.pidOf(s.begin.track) == 1234 ? 0 : 1;
    firstWall[which] = std::min(firstWall[which], s.begin.wall);
  }
  CHECK(firstWall[1] - firstWall[0] == 3'000'000);

  // Per track, the input's order.
  std::map<uint64_t, uint64_t> lastOnTrack;
  for (const Event& e : d.events) {
    CHECK(e.ts >= lastOnTrack[e.track]);
    lastOnTrack[e.track] = e.ts;
  }

  // What each input's description says.
  std::vector<Event> metas;
  for (const Event& e : d.instants)
    if (e.name == "cuptitrace") metas.push_back(e);
  REQUIRE(metas.size() == 2);
  for (const Event& m : metas) {
    const bool first = d.pidOf(m.track) == 1234;
    CHECK(m.args.at("host").s == (first ? "node1" : "node2"));
    CHECK(m.args.at("pid").u == 1234);
    CHECK(m.args.at("file").s == (first ? "node1-1234.native" : "node2-1234.native"));
    CHECK(m.args.at("realtime_offset_ns").i == in.specs[first ? 0 : 1].realtimeOffset);
  }
}

TEST_CASE("merge: pftrace of three processes, two sharing a host and its GPU", "[merge]") {
  const Inputs in = threeProcesses();
  const Decoded d = mergedPftrace(in);
  INFO(d.problemText());
  CHECK(d.problems.empty());
  REQUIRE(d.processTrack(999) != nullptr);
  CHECK(d.processTrack(999)->processName == "train.py (node1:999)");
  std::set<std::string> gpus;
  for (const auto& [uuid, t] : d.tracks)
    if (t.process && t.processName.rfind("GPU", 0) == 0) gpus.insert(t.processName);
  CHECK(gpus == std::set<std::string>{gpuName("node1", 1234), gpuName("node2", 1234),
                                      gpuName("node1", 999)});
  CHECK(d.arrows.size() == 3 + 4 + 2);
  CHECK(d.slicesOf("kernel").size() == 9);
  CHECK(d.slicesNamed("epoch").size() == 3);
  // Every process's sequences are its own: no sequence holds two tracks.
  std::map<uint64_t, uint64_t> trackOfSequence;
  for (const Event& e : d.events) {
    const auto [it, added] = trackOfSequence.emplace(e.sequence, e.track);
    CHECK(it->second == e.track);
  }
}

TEST_CASE("merge: JSON of three processes", "[merge]") {
  const Inputs in = threeProcesses();
  const json doc = mergedJson(in);
  std::map<int64_t, std::string> processNames;
  std::map<int64_t, size_t> slices;
  std::map<uint64_t, std::vector<json>> flowOut, flowIn;
  std::map<uint64_t, std::set<int64_t>> asyncPids;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name")
      processNames[e["pid"].get<int64_t>()] = e["args"]["name"];
    if (e["ph"] == "X") {
      ++slices[e["pid"].get<int64_t>()];
      if (e.contains("flow_out")) flowOut[e["bind_id"].get<uint64_t>()].push_back(e);
      if (e.contains("flow_in")) flowIn[e["bind_id"].get<uint64_t>()].push_back(e);
    }
    if (e["ph"] == "b" || e["ph"] == "e")
      asyncPids[e["id"].get<uint64_t>()].insert(e["pid"].get<int64_t>());
  }
  CHECK(processNames.at(1234) == "train.py (node1:1234)");
  CHECK(processNames.at(1234 + kShift) == "train.py (node2:1234)");
  CHECK(processNames.at(999) == "train.py (node1:999)");
  const std::vector<TimelineInput> plan = planMerge(in.sources);
  const uint32_t gpu[3] = {gpuProcessId(plan[0].gpuKey, 0), gpuProcessId(plan[1].gpuKey, 0),
                           gpuProcessId(plan[2].gpuKey, 0)};
  CHECK(processNames.at(gpu[0]) == gpuName("node1", 1234));
  CHECK(processNames.at(gpu[1]) == gpuName("node2", 1234));
  CHECK(processNames.at(gpu[2]) == gpuName("node1", 999));
  // Every event of every input.
  CHECK(slices[1234] == 3);
  CHECK(slices[1234 + kShift] == 4);
  CHECK(slices[999] == 2);
  CHECK(slices[gpu[0]] == 3);
  CHECK(slices[gpu[1]] == 4);
  CHECK(slices[gpu[2]] == 2);
  // Flow ids renumbered: each once out, once in, both ends in one input.
  CHECK(flowOut.size() == 9);
  for (const auto& [id, outs] : flowOut) {
    REQUIRE(outs.size() == 1);
    REQUIRE(flowIn[id].size() == 1);
    const int64_t from = outs[0]["pid"];
    const int64_t to = flowIn[id][0]["pid"];
    const int input = from == 1234 ? 0 : from == 999 ? 2 : 1;
    CHECK(to == gpu[input]);
    CHECK(outs[0]["args"]["correlation"] == flowIn[id][0]["args"]["correlation"]);
  }
  CHECK(flowIn.size() == 9);
  // NVTX async ids: one per range, each in one process.
  CHECK(asyncPids.size() == 3);
  for (const auto& [id, pids] : asyncPids) CHECK(pids.size() == 1);

  // Times on wall clock: relative to the file's base, each input by its offset.
  const uint64_t base = doc["metadata"]["base_realtime_ns"];
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "kernel") continue;
    const int64_t pid = e["pid"];
    const int input = pid == gpu[0] ? 0 : pid == gpu[1] ? 1 : 2;
    const uint64_t wall = base + static_cast<uint64_t>(std::llround(e["ts"].get<double>() * 1000));
    const uint64_t traceTs = wall - static_cast<uint64_t>(in.specs[input].realtimeOffset);
    // Kernels start 1700 ns after each 2000 ns step from the trace's start.
    CHECK((traceTs - in.specs[input].start - 1700) % 2000 == 0);
  }

  // Metadata: one entry per input, with where it came from and what was applied.
  const json& inputs = doc["metadata"]["inputs"];
  REQUIRE(inputs.size() == 3);
  CHECK(doc["metadata"]["merged_inputs"] == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(inputs[i]["file"] == in.sources[i].file);
    CHECK(inputs[i]["host"] == in.specs[i].host);
    CHECK(inputs[i]["pid"] == in.specs[i].pid);
    CHECK(inputs[i]["shown_pid"] == plan[i].hostPid());
    CHECK(inputs[i]["realtime_offset_ns"] == in.specs[i].realtimeOffset);
    CHECK(inputs[i]["process_name"] == "train.py");
  }
}

TEST_CASE("merge: the output's name picks the format; existing files are kept", "[merge]") {
  const Inputs in = twoHosts();
  MergeFormat format;
  CHECK(mergeFormatFor("a.json", format));
  CHECK(format == MergeFormat::Json);
  CHECK(mergeFormatFor("dir/a.b.pftrace", format));
  CHECK(format == MergeFormat::Pftrace);
  CHECK_FALSE(mergeFormatFor("a.csv", format));
  CHECK_FALSE(writeMerged(in.sources, "merged.csv", true).error.empty());

  const std::string path = "test_merge_out.pftrace";
  std::remove(path.c_str());
  const MergeResult first = writeMerged(in.sources, path, false);
  CHECK(first.error.empty());
  CHECK(first.flows == 7);
  std::ifstream file(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CHECK(decodePerfetto(bytes).problems.empty());
  CHECK(bytes.size() == first.bytes);
  CHECK_FALSE(writeMerged(in.sources, path, false).error.empty());  // exists: kept
  CHECK(writeMerged(in.sources, path, true).error.empty());
  std::remove(path.c_str());
}

TEST_CASE("merge: the native format keeps the clock offset", "[merge][native]") {
  Trace t;
  fill(t, {"h", 5, 1000, -250, 1});
  t.meta.realtimeOffsetNs = -250;
  std::stringstream buffer;
  writeNative(t, buffer);
  Trace back;
  std::string error;
  REQUIRE(readNative(buffer, back, error));
  CHECK(back.meta.realtimeOffsetNs == -250);
  CHECK(back.meta.wallClockOffsetNs() == -250);

  // Traces written before it: derived from the two start times.
  Trace old;
  old.meta.startTimestampNs = 1000;
  old.meta.startRealtimeNs = 5000;
  CHECK(old.meta.wallClockOffsetNs() == 4000);
  old.meta.startRealtimeNs = 0;
  CHECK(old.meta.wallClockOffsetNs() == 0);
}
