// Split output (CUPTITRACE_SPLIT): every part complete on its own, every
// record in exactly one part, arrows never cut, parts near the asked size.
#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/config.h"
#include "exporters/json/chrome_json.h"
#include "exporters/csv/csv.h"
#include "exporters/export_all.h"
#include "exporters/native/native.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "exporters/split_output.h"
#include "temp_dir.h"
#include "timeline/track_layout.h"
#include "pftrace_decoder.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::TempDir;
using testing::perfetto::Decoded;
using testing::perfetto::decodePerfetto;

constexpr uint32_t kHostPid = 4242;

// The sample trace and `pairs` launches with their kernels after it.
void fillLaunchTrace(Trace& t, size_t pairs) {
  testing::fillSampleTrace(t);
  std::mt19937 rng(11);
  const StringId launch = t.strings.intern("cudaLaunchKernel");
  std::vector<StringId> names;
  for (int i = 0; i < 12; ++i)
    names.push_back(t.strings.intern("_ZN7project6kernel" + std::to_string(i) + "IfEEvPKT_i"));
  uint64_t cpu = t.meta.baseTimestampNs + 100'000;
  uint64_t gpu = 0;
  for (size_t i = 0; i < pairs; ++i) {
    ApiRecord a{};
    a.start = cpu;
    a.end = cpu + 2'000 + rng() % 3'000;
    a.name = launch;
    a.correlationId = static_cast<uint32_t>(1000 + i);
    a.threadId = i % 3 == 0 ? 4243 : kHostPid;
    a.cbid = 211;
    t.store.add(a);
    KernelRecord k{};
    k.start = std::max(gpu + 100, a.end + 3'000 + rng() % 1'000);
    k.end = k.start + 1'000 + rng() % 5'000;
    k.name = names[rng() % names.size()];
    k.correlationId = a.correlationId;
    k.contextId = 1;
    k.streamId = i % 2 == 0 ? 7 : 9;
    k.gridX = 128;
    k.gridY = k.gridZ = 1;
    k.blockX = 256;
    k.blockY = k.blockZ = 1;
    k.registersPerThread = 32;
    t.store.add(k);
    gpu = k.end;
    cpu = a.end + 500 + rng() % 500;
  }
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::set<std::string> fileNames(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

// The drawn events (everything but metadata events), each as its text, sorted.
std::vector<std::string> drawnEvents(const json& doc) {
  std::vector<std::string> out;
  for (const json& e : doc["traceEvents"])
    if (e.value("ph", "") != "M" && !e.empty()) out.push_back(e.dump());
  std::sort(out.begin(), out.end());
  return out;
}

std::string metaName(const json& doc, const std::string& what, uint64_t pid, uint64_t tid) {
  for (const json& e : doc["traceEvents"])
    if (e.value("ph", "") == "M" && e.value("name", "") == what && e.value("pid", 0ull) == pid &&
        e.value("tid", 0ull) == tid)
      return e["args"].value("name", "");
  return "";
}

// CSV data rows (the header line left out).
std::vector<std::string> csvRows(const std::string& text, std::string* header) {
  std::vector<std::string> rows;
  std::istringstream in(text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (first) {
      if (header) *header = line;
      first = false;
    } else {
      rows.push_back(line);
    }
  }
  return rows;
}

// Counts the bytes a stream is given.
class CountingBuf : public std::streambuf {
 public:
  uint64_t bytes = 0;

 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += static_cast<uint64_t>(n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) ++bytes;
    return traits_type::not_eof(c);
  }
};

uint64_t jsonBytes(const Trace& t) {
  CountingBuf buf;
  std::ostream out(&buf);
  writeChromeJson(t, out);
  return buf.bytes;
}

}  // namespace

TEST_CASE("split: every part is a complete JSON trace, and together they hold every event once", "[split]") {
  Trace trace;
  fillLaunchTrace(trace, 20'000);
  std::ostringstream wholeText;
  writeChromeJson(trace, wholeText);
  const json whole = json::parse(wholeText.str());

  TempDir dir;
  const std::string prefix = (dir.path() / "run").string();
  constexpr uint64_t kTarget = 1 << 20;
  const ExportResult result = exportAll(trace, kFormatJson, prefix, false, kTarget);
  CHECK(result.errors.empty());
  const size_t parts = result.written.size();
  INFO("whole JSON " << wholeText.str().size() << " bytes in " << parts << " parts");
  REQUIRE(parts >= 4);
  std::set<std::string> expected;
  for (size_t i = 1; i <= parts; ++i) expected.insert("run." + std::to_string(i) + ".json");
  CHECK(fileNames(dir.path()) == expected);

  std::vector<std::string> all;
  for (size_t i = 1; i <= parts; ++i) {
    INFO("part " << i);
    const std::string text = readFile(prefix + "." + std::to_string(i) + ".json");
    // Near the size asked for; the last part holds what is left.
    if (i < parts) {
      CHECK(text.size() > kTarget / 2);
      CHECK(text.size() < kTarget * 3 / 2);
    }
    const json doc = json::parse(text);
    // What names the processes and tracks is in every part.
    CHECK(metaName(doc, "process_name", kHostPid, kHostPid) == hostProcessName(trace));
    CHECK(metaName(doc, "thread_name", kHostPid, 4243) == "worker");
    const uint64_t gpuPid = gpuProcessId(kHostPid, 0);
    CHECK(metaName(doc, "process_name", gpuPid, gpuPid) == gpuProcessName(trace, 0));
    CHECK_THAT(gpuProcessName(trace, 0), Catch::StartsWith("GPU 0: NVIDIA H100 80GB HBM3"));
    CHECK(metaName(doc, "thread_name", gpuPid, 9) == "copy \"stream\"");
    const json& meta = doc["metadata"];
    CHECK(meta["counters"]["split.part"] == i);
    CHECK(meta["counters"]["split.parts"] == parts);
    CHECK(meta["base_timestamp_ns"] == whole["metadata"]["base_timestamp_ns"]);
    CHECK(meta["process_name"] == "sample_app");
    // Every arrow has both its ends in the part.
    std::set<uint64_t> out, in;
    for (const json& e : doc["traceEvents"]) {
      if (e.contains("flow_out")) out.insert(e["bind_id"].get<uint64_t>());
      if (e.contains("flow_in")) in.insert(e["bind_id"].get<uint64_t>());
    }
    CHECK(out == in);
    CHECK(meta["flows"].get<uint64_t>() >= in.size());
    const auto events = drawnEvents(doc);
    all.insert(all.end(), events.begin(), events.end());
  }
  std::sort(all.begin(), all.end());
  const auto wholeEvents = drawnEvents(whole);
  CHECK(all.size() == wholeEvents.size());
  CHECK(all == wholeEvents);
}

TEST_CASE("split: CSV tables and pftrace parts, each complete, together every record", "[split]") {
  Trace trace;
  fillLaunchTrace(trace, 20'000);
  TempDir dir;
  const std::string prefix = (dir.path() / "run").string();
  const ExportResult result = exportAll(trace, kFormatCsv | kFormatPftrace | kFormatNative, prefix, false, 1 << 20);
  CHECK(result.errors.empty());

  // The native trace is whole.
  std::ifstream nativeIn(prefix + ".native", std::ios::binary);
  Trace reread;
  std::string error;
  REQUIRE(readNative(nativeIn, reread, error));
  CHECK(reread.store.count(RecordKind::Kernel) == trace.store.count(RecordKind::Kernel));

  // Every part has the same tables: sync and overhead too (the whole trace
  // has them), even in the parts where none of those records fall.
  std::set<std::string> suffixes;
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    const bool mainKind = kind <= RecordKind::Nvtx;
    if (csvColumns(kind).empty() || (!mainKind && trace.store.count(kind) == 0)) continue;
    suffixes.insert(std::string(csvTableName(kind)) + ".csv");
  }
  suffixes.insert("pftrace");
  size_t parts = 0;
  while (fs::exists(prefix + "." + std::to_string(parts + 1) + ".pftrace")) ++parts;
  REQUIRE(parts >= 2);
  CHECK(result.written.size() == 1 + parts * suffixes.size());
  for (size_t i = 1; i <= parts; ++i)
    for (const auto& s : suffixes) CHECK(fs::exists(prefix + "." + std::to_string(i) + "." + s));

  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    if (!suffixes.count(std::string(csvTableName(kind)) + ".csv")) continue;
    INFO(csvTableName(kind));
    std::ostringstream wholeTable;
    writeCsvTable(trace, kind, wholeTable);
    std::string wholeHeader;
    auto want = csvRows(wholeTable.str(), &wholeHeader);
    std::vector<std::string> got;
    for (size_t i = 1; i <= parts; ++i) {
      std::string header;
      const auto rows =
          csvRows(readFile(prefix + "." + std::to_string(i) + "." + csvTableName(kind) + ".csv"), &header);
      CHECK(header == wholeHeader);
      got.insert(got.end(), rows.begin(), rows.end());
    }
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    CHECK(got == want);
  }

  std::ostringstream wholeProto;
  writePerfettoProto(trace, wholeProto);
  const Decoded wholeDecoded = decodePerfetto(wholeProto.str());
  // Events every file has, records or not (a marker of the tool).
  Trace none;
  none.meta = trace.meta;
  std::ostringstream noneProto;
  writePerfettoProto(none, noneProto);
  const size_t perFile = decodePerfetto(noneProto.str()).events.size();
  size_t events = perFile, arrows = 0;
  for (size_t i = 1; i <= parts; ++i) {
    INFO("part " << i);
    const Decoded d = decodePerfetto(readFile(prefix + "." + std::to_string(i) + ".pftrace"));
    INFO(d.problemText());
    CHECK(d.problems.empty());
    events += d.events.size() - perFile;
    arrows += d.arrows.size();
  }
  CHECK(events == wholeDecoded.events.size());
  CHECK(arrows == wholeDecoded.arrows.size());
}

TEST_CASE("split: GPU work goes with the call that launched it", "[split]") {
  // Launches every microsecond, each kernel queued far behind its launch.
  Trace trace;
  trace.meta.pid = kHostPid;
  trace.meta.baseTimestampNs = 1'000'000;
  const StringId launch = trace.strings.intern("cudaLaunchKernel");
  const StringId kernel = trace.strings.intern("k");
  constexpr uint32_t kLaunches = 2'000;
  for (uint32_t i = 0; i < kLaunches; ++i) {
    ApiRecord a{};
    a.start = 1'000'000 + i * 1'000ull;
    a.end = a.start + 500;
    a.name = launch;
    a.correlationId = i + 1;
    a.threadId = kHostPid;
    trace.store.add(a);
    KernelRecord k{};
    k.start = 2'000'000 + i * 5'000ull;
    k.end = k.start + 4'000;
    k.name = kernel;
    k.correlationId = i + 1;
    k.streamId = 7;
    trace.store.add(k);
  }
  uint32_t calls = 0;
  uint64_t seen = 0;
  const SplitStats stats = forEachSplitPart(trace, 50'000, kFormatJson, [&](const Trace& part, uint32_t number, uint32_t count) {
    ++calls;
    CHECK(number == calls);
    CHECK(count >= 10);
    std::set<uint32_t> launched;
    part.store.records<ApiRecord>().forEach([&](const ApiRecord& a) { launched.insert(a.correlationId); });
    part.store.records<KernelRecord>().forEach([&](const KernelRecord& k) { CHECK(launched.count(k.correlationId) == 1); });
    CHECK(part.store.count(RecordKind::Kernel) == launched.size());
    seen += part.store.count(RecordKind::Api) + part.store.count(RecordKind::Kernel);
    CHECK(part.strings.get(kernel) == "k");
    CHECK(part.counters.at("split.part") == number);
    return true;
  });
  CHECK(calls == stats.parts);
  CHECK(seen == 2 * kLaunches);
  CHECK(stats.records == 2 * kLaunches);
  CHECK(stats.withLaunch > 0);  // kernels that started in a later window than their call

  // Stopping early.
  uint32_t stoppedAfter = 0;
  forEachSplitPart(trace, 50'000, kFormatJson, [&](const Trace&, uint32_t number, uint32_t) {
    stoppedAfter = number;
    return number < 2;
  });
  CHECK(stoppedAfter == 2);
}

TEST_CASE("split: parts stay near the target when records bunch up in time", "[split]") {
  // One call at the start, a burst of 60000 calls a nanosecond apart after a
  // long quiet time, one call at the end: the burst falls in one bin of the
  // coarse histogram and must be cut finer.
  Trace trace;
  trace.meta.pid = kHostPid;
  trace.meta.baseTimestampNs = 1'000;
  const StringId name = trace.strings.intern("cudaStreamQuery");
  auto call = [&](uint64_t start, uint32_t corr) {
    ApiRecord a{};
    a.start = a.end = start;
    a.name = name;
    a.correlationId = corr;
    a.threadId = kHostPid;
    trace.store.add(a);
  };
  call(1'000, 1);
  for (uint32_t i = 0; i < 60'000; ++i) call(1'000'000'000'000ull + i, i + 2);
  call(2'000'000'000'000ull, 70'000);
  const uint64_t total = jsonBytes(trace);
  constexpr uint64_t kTarget = 1 << 20;
  std::vector<uint64_t> sizes;
  forEachSplitPart(trace, kTarget, kFormatJson, [&](const Trace& part, uint32_t, uint32_t) {
    sizes.push_back(jsonBytes(part));
    return true;
  });
  INFO("whole " << total << " bytes");
  REQUIRE(sizes.size() >= total / kTarget);
  REQUIRE(sizes.size() <= total / kTarget + 2);
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    INFO("part " << i + 1 << ": " << sizes[i] << " bytes");
    CHECK(sizes[i] > kTarget * 6 / 10);
    CHECK(sizes[i] < kTarget * 14 / 10);
  }
  const auto points = splitPoints(trace, kTarget, kFormatJson);
  CHECK(points.size() + 1 == sizes.size());
  CHECK(std::is_sorted(points.begin(), points.end()));
}

TEST_CASE("split: records at one instant stay together, and an empty trace is one part", "[split]") {
  Trace trace;
  trace.meta.pid = kHostPid;
  const StringId name = trace.strings.intern("cudaLaunchKernel");
  for (uint32_t i = 0; i < 20'000; ++i) {
    ApiRecord a{};
    a.start = 5'000;
    a.end = 6'000;
    a.name = name;
    a.correlationId = i + 1;
    trace.store.add(a);
  }
  CHECK(splitPoints(trace, 1 << 20, kFormatJson).empty());

  Trace empty;
  empty.meta.pid = kHostPid;
  empty.meta.processName = "nothing";
  TempDir dir;
  const std::string prefix = (dir.path() / "run").string();
  const ExportResult result = exportAll(empty, kFormatJson | kFormatJsonGz, prefix, false, 1 << 20);
  CHECK(result.errors.empty());
  CHECK(fileNames(dir.path()) == std::set<std::string>{"run.1.json", "run.1.json.gz"});
  const json doc = json::parse(readFile(prefix + ".1.json"));
  CHECK(metaName(doc, "process_name", kHostPid, kHostPid) == "nothing");
  CHECK(doc["metadata"]["counters"]["split.parts"] == 1);
}

TEST_CASE("split: a part that cannot be written stops the rest, and says which", "[split]") {
  Trace trace;
  fillLaunchTrace(trace, 20'000);
  TempDir dir;
  const std::string prefix = (dir.path() / "run").string();
  std::ofstream(prefix + ".2.json") << "kept";
  const ExportResult result = exportAll(trace, kFormatJson, prefix, false, 1 << 20);
  REQUIRE(result.errors.size() == 2);
  CHECK_THAT(result.errors[0], Catch::Contains("run.2.json already exists"));
  CHECK_THAT(result.errors[1], Catch::Contains("parts 3 to") && Catch::Contains("run.3.*"));
  CHECK(result.written == std::vector<std::string>{prefix + ".1.json"});
  CHECK(readFile(prefix + ".2.json") == "kept");
  CHECK_FALSE(fs::exists(prefix + ".3.json"));
}

}  // namespace cuptitrace
