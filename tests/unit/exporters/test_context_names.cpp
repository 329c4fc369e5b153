// Contexts in track names: the synchronization track of a context named with
// NVTX carries its name; with more than one context, each stream track says
// its context (NVTX name or "context N"). The JSON and protobuf timelines
// agree; the names survive the native file, whose older files still read.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "exporters/native/native.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "exporters/split_output.h"
#include "timeline/track_layout.h"
#include "pftrace_decoder.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using nlohmann::json;

namespace {

constexpr uint32_t kHostPid = 4242;  // the fixture's
const uint32_t kGpuPid = gpuProcessId(kHostPid, 0);
const std::string kTrainer = "trainer \"ctx\"";

// The fixture (context 1: streams 7 and 9, a sync) plus context 2, named,
// with a kernel on its stream 21 (named "loader") and a sync of its own.
void fillTwoContexts(Trace& t) {
  testing::fillSampleTrace(t);
  t.contexts.push_back({2, 0, 20});
  t.contextNames[2] = kTrainer;
  t.streamNames[21] = "loader";
  const uint64_t b = t.meta.baseTimestampNs;
  KernelRecord k{};
  k.start = b + 50000;
  k.end = b + 52000;
  k.name = t.strings.intern("_Z4loadv");
  k.correlationId = 90;
  k.contextId = 2;
  k.streamId = 21;
  t.store.add(k);
  // Its null stream, unnamed.
  k.start = b + 53000;
  k.end = b + 54000;
  k.correlationId = 91;
  k.streamId = 20;
  t.store.add(k);
  SyncRecord s{};
  s.start = b + 52500;
  s.end = b + 53500;
  s.correlationId = 92;
  s.contextId = 2;
  s.streamId = 0xffffffff;
  s.eventId = 0xffffffff;
  s.type = static_cast<uint8_t>(SyncType::ContextSynchronize);
  t.store.add(s);
}

json exportJson(const Trace& t) {
  std::ostringstream out;
  writeChromeJson(t, out);
  return json::parse(out.str());
}

// thread_name of every (pid, tid).
std::map<std::pair<uint32_t, uint32_t>, std::string> threadNames(const json& doc) {
  std::map<std::pair<uint32_t, uint32_t>, std::string> names;
  for (const json& e : doc.at("traceEvents"))
    if (e.at("ph") == "M" && e.at("name") == "thread_name")
      names[{e.at("pid").get<uint32_t>(), e.at("tid").get<uint32_t>()}] = e.at("args").at("name");
  return names;
}

testing::perfetto::Decoded exportProto(const Trace& t) {
  std::ostringstream out;
  writePerfettoProto(t, out);
  return testing::perfetto::decodePerfetto(out.str());
}

// Names of the protobuf's tracks under the GPU process, sorted.
std::vector<std::string> gpuTrackNames(const testing::perfetto::Decoded& d) {
  std::vector<std::string> names;
  for (const auto& [uuid, t] : d.tracks)
    if (!t.process && d.pidOf(uuid) == kGpuPid) names.push_back(d.nameOf(uuid));
  std::sort(names.begin(), names.end());
  return names;
}

std::string nativeBytes(const Trace& trace) {
  std::ostringstream out;
  writeNative(trace, out);
  return out.str();
}

bool readBytes(const std::string& bytes, Trace& trace, std::string& error) {
  std::istringstream in(bytes);
  return readNative(in, trace, error);
}

// The METADATA section cut to end `drop` bytes early, its length set to match.
std::string shortenMetadata(std::string bytes, size_t drop) {
  size_t offset = 12;  // magic and version
  while (offset + 12 <= bytes.size()) {
    uint32_t tag = 0;
    uint64_t length = 0;
    std::memcpy(&tag, bytes.data() + offset, 4);
    std::memcpy(&length, bytes.data() + offset + 4, 8);
    if (tag == 2) {
      REQUIRE(drop <= length);
      bytes.erase(offset + 12 + length - drop, drop);
      length -= drop;
      std::memcpy(&bytes[offset + 4], &length, 8);
      return bytes;
    }
    offset += 12 + length;
  }
  FAIL("no METADATA section");
  return bytes;
}

}  // namespace

TEST_CASE("context names: track name functions") {
  Trace t;
  t.contexts.push_back({1, 0, 7});
  t.streamNames[9] = "copies";
  // One context: streams are named as before; a named context names its sync track.
  CHECK(streamTrackName(t, 7, 1) == "Stream 7");
  CHECK(streamTrackName(t, 9, 1) == "copies");
  CHECK(syncTrackName(t, 1) == "Synchronization (context 1)");
  t.contextNames[1] = "main";
  CHECK(streamTrackName(t, 7, 1) == "Stream 7");
  CHECK(syncTrackName(t, 1) == "Synchronization (main)");
  CHECK(contextLabel(t, 1) == "main");
  CHECK(contextLabel(t, 5) == "context 5");
  // A second context, known by its record or by its name only: streams say their context.
  t.contexts.push_back({2, 0, 20});
  CHECK(streamTrackName(t, 7, 1) == "Stream 7 (main)");
  CHECK(streamTrackName(t, 20, 2) == "Stream 20 (context 2)");
  CHECK(streamTrackName(t, 9, 2) == "copies (context 2)");
  CHECK(streamTrackName(t, 7, 0) == "Stream 7");  // context unknown: left out
  Trace named;
  named.contexts.push_back({1, 0, 7});
  named.contextNames[3] = "other";
  CHECK(streamTrackName(named, 7, 1) == "Stream 7 (context 1)");
}

TEST_CASE("context names: JSON stream and sync tracks show the context") {
  Trace t;
  fillTwoContexts(t);
  const json doc = exportJson(t);
  const auto names = threadNames(doc);
  CHECK(names.at({kGpuPid, 7}) == "Stream 7 (context 1)");
  CHECK(names.at({kGpuPid, 9}) == "copy \"stream\" (context 1)");
  CHECK(names.at({kGpuPid, 21}) == "loader (" + kTrainer + ")");
  CHECK(names.at({kGpuPid, 20}) == "Stream 20 (" + kTrainer + ")");
  CHECK(names.at({kGpuPid, syncTrackTid(1)}) == "Synchronization (context 1)");
  CHECK(names.at({kGpuPid, syncTrackTid(2)}) == "Synchronization (" + kTrainer + ")");
}

TEST_CASE("context names: JSON with one context keeps plain stream names") {
  Trace t;
  testing::fillSampleTrace(t);
  t.contextNames[1] = "only";
  const auto names = threadNames(exportJson(t));
  CHECK(names.at({kGpuPid, 7}) == "Stream 7");
  CHECK(names.at({kGpuPid, 9}) == "copy \"stream\"");
  CHECK(names.at({kGpuPid, syncTrackTid(1)}) == "Synchronization (only)");
}

TEST_CASE("context names: JSON metadata lists the contexts and their names") {
  Trace t;
  fillTwoContexts(t);
  t.contextNames[5] = "named only";  // no context record
  const json contexts = exportJson(t).at("metadata").at("contexts");
  REQUIRE(contexts.size() == 3);
  CHECK(contexts[0] == json::parse(R"({"id":1,"device":0,"null_stream":7})"));
  CHECK(contexts[1] == json{{"id", 2}, {"device", 0}, {"null_stream", 20}, {"nvtx_name", kTrainer}});
  CHECK(contexts[2] == json::parse(R"({"id":5,"nvtx_name":"named only"})"));
}

TEST_CASE("context names: protobuf tracks have the JSON's names") {
  Trace t;
  fillTwoContexts(t);
  const auto d = exportProto(t);
  CHECK(d.problemText().empty());
  std::vector<std::string> expected = {
      "Stream 7 (context 1)",   "copy \"stream\" (context 1)",       "loader (" + kTrainer + ")",
      // Its set runs inside its copy: concurrent work, on a second lane.
      "copy \"stream\" (context 1) \u00b72",
      "Stream 20 (" + kTrainer + ")", "Synchronization (context 1)", "Synchronization (" + kTrainer + ")"};
  std::sort(expected.begin(), expected.end());
  CHECK(gpuTrackNames(d) == expected);
  // The same names as the JSON's tracks of the GPU.
  std::vector<std::string> fromJson;
  for (const auto& [key, name] : threadNames(exportJson(t)))
    if (key.first == kGpuPid) fromJson.push_back(name);
  std::sort(fromJson.begin(), fromJson.end());
  CHECK(fromJson == expected);
  // The named stream's kernel is on the track so named.
  const auto* loader = d.trackNamed(kGpuPid, "loader (" + kTrainer + ")");
  REQUIRE(loader != nullptr);
  bool onLoader = false;
  for (const auto& s : d.slices)
    if (s.begin.track == loader->uuid) onLoader = true;
  CHECK(onLoader);
}

TEST_CASE("context names: saved in the native file and read back") {
  Trace t;
  fillTwoContexts(t);
  t.contextNames[5] = "r\xC3\xA9seau";
  Trace back;
  std::string error;
  REQUIRE(readBytes(nativeBytes(t), back, error));
  const std::map<uint32_t, std::string> expected{{2, kTrainer}, {5, "r\xC3\xA9seau"}};
  CHECK(back.contextNames == expected);
  CHECK(back.streamNames == t.streamNames);
  CHECK(threadNames(exportJson(back)) == threadNames(exportJson(t)));
}

TEST_CASE("context names: a native file written before they were saved still reads") {
  Trace t;
  testing::fillSampleTrace(t);
  t.devices[0].copyEngines = 5;  // the field saved just before the context names
  REQUIRE(t.contextNames.empty());
  // A writer of that time ended the metadata where the context-name count now
  // starts: before it (4 bytes), the rank saved after it (8 + 8 + 4 + 4 bytes
  // without a rank source) and the occupancy limits after that (4 + 8 x 4 bytes a device).
  const std::string old = shortenMetadata(nativeBytes(t), 4 + 24 + 4 + 32);
  Trace back;
  std::string error;
  REQUIRE(readBytes(old, back, error));
  CHECK(back.contextNames.empty());
  REQUIRE(back.devices.size() == 1);
  CHECK(back.devices[0].copyEngines == 5);
  CHECK(back.store.count(RecordKind::Kernel) == t.store.count(RecordKind::Kernel));
}

TEST_CASE("context names: a name cut short in the native metadata is an error, not a crash") {
  Trace t;
  testing::fillSampleTrace(t);
  t.contextNames[2] = "trainer";
  const std::string cut = shortenMetadata(nativeBytes(t), 24 + 3);  // past the rank, into the name's bytes
  Trace back;
  std::string error;
  CHECK_FALSE(readBytes(cut, back, error));
  CHECK_THAT(error, Catch::Contains("METADATA"));
}

TEST_CASE("context names: every part of a split timeline keeps them") {
  Trace t;
  fillTwoContexts(t);
  const StringId name = t.strings.intern("_Z4stepv");
  for (uint32_t i = 0; i < 4000; ++i) {
    KernelRecord k{};
    k.start = t.meta.baseTimestampNs + 100000 + i * 1000ull;
    k.end = k.start + 500;
    k.name = name;
    k.correlationId = 1000 + i;
    k.contextId = 1 + i % 2;
    k.streamId = i % 2 ? 21 : 7;
    t.store.add(k);
  }
  uint32_t parts = 0;
  forEachSplitPart(t, 50'000, kFormatJson, [&](const Trace& part, uint32_t, uint32_t) {
    ++parts;
    CHECK(part.contextNames == t.contextNames);
    return true;
  });
  CHECK(parts > 1);
}
