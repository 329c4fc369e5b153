// The native trace file: write -> read gives back the same Trace, and every
// kind of damage to a file is a clear error, never a crash.
#include <catch2/catch.hpp>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "exporters/json/chrome_json.h"
#include "exporters/csv/csv.h"
#include "exporters/native/native.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

std::string nativeBytes(const Trace& trace) {
  std::ostringstream out;
  writeNative(trace, out);
  return out.str();
}

bool readBytes(const std::string& bytes, Trace& trace, std::string& error) {
  std::istringstream in(bytes);
  return readNative(in, trace, error);
}

// The fixture plus what it leaves at defaults: dropped counts, device names,
// payloads, graph ids, and enough records to fill several store chunks.
void fillRichTrace(Trace& t) {
  testing::fillSampleTrace(t);
  t.meta.startRealtimeNs = 1'700'000'000'000'000'000ull;
  t.meta.clock = "cupti-raw";
  t.deviceNames[0] = "main \"GPU\"";
  t.counters["dropped.cupti"] = 12;
  t.counters["unknown_records"] = 3;
  t.store.addDropped(RecordKind::Kernel, 5);
  t.store.addDropped(RecordKind::Overhead, 1);
  t.devices.push_back({1, "second", 8, 0, 108, 40ull << 30, 1410000, ""});
  t.contexts.push_back({2, 1, 0});
  t.contextNames[2] = "trainer \"ctx\"";
  const StringId name = t.strings.intern("_Z4tinyv");
  for (uint32_t i = 0; i < 9000; ++i) {
    KernelRecord k{};
    k.start = 2'000'000'000ull + i * 100ull;
    k.end = k.start + 50 + i % 7;
    k.name = name;
    k.correlationId = 1000 + i;
    k.streamId = 13 + i % 3;
    k.graphId = i % 5;
    k.graphNodeId = i % 5 ? 0x1234500000ull + i : 0;
    k.gridX = static_cast<int32_t>(i);
    k.blockX = 32;
    k.launchType = static_cast<uint8_t>(i % 4);
    k.isDeviceLaunched = i % 2;
    t.store.add(k);
  }
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::PushPop);
  n.start = 5;
  n.end = 6;
  n.payloadType = static_cast<uint8_t>(NvtxPayload::Double);
  double d = -1.5;
  std::memcpy(&n.payload, &d, sizeof d);
  n.flags = kNvtxOpen | kNvtxHasColor;
  n.color = 0x80123456;
  n.message = t.strings.intern("open range");
  t.store.add(n);
}

template <typename Seq>
void checkSameRecords(const Seq& a, const Seq& b) {
  using T = std::decay_t<decltype(a[0])>;
  INFO(recordKindName(RecordKindOf<T>::value) << " records");
  REQUIRE(a.size() == b.size());
  size_t differing = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) ++differing;
  CHECK(differing == 0);
}

void checkSameTrace(const Trace& a, const Trace& b) {
  REQUIRE(a.strings.size() == b.strings.size());
  for (size_t id = 0; id < a.strings.size(); ++id)
    CHECK(a.strings.get(static_cast<StringId>(id)) == b.strings.get(static_cast<StringId>(id)));

  checkSameRecords(a.store.records<KernelRecord>(), b.store.records<KernelRecord>());
  checkSameRecords(a.store.records<MemcpyRecord>(), b.store.records<MemcpyRecord>());
  checkSameRecords(a.store.records<MemsetRecord>(), b.store.records<MemsetRecord>());
  checkSameRecords(a.store.records<ApiRecord>(), b.store.records<ApiRecord>());
  checkSameRecords(a.store.records<NvtxRecord>(), b.store.records<NvtxRecord>());
  checkSameRecords(a.store.records<SyncRecord>(), b.store.records<SyncRecord>());
  checkSameRecords(a.store.records<OverheadRecord>(), b.store.records<OverheadRecord>());
  for (int k = 0; k < kRecordKindCount; ++k)
    CHECK(a.store.dropped(static_cast<RecordKind>(k)) ==
          b.store.dropped(static_cast<RecordKind>(k)));

  const TraceMetadata& x = a.meta;
  const TraceMetadata& y = b.meta;
  CHECK(x.toolVersion == y.toolVersion);
  CHECK(x.hostName == y.hostName);
  CHECK(x.pid == y.pid);
  CHECK(x.processName == y.processName);
  CHECK(x.commandLine == y.commandLine);
  CHECK(x.clock == y.clock);
  CHECK(x.baseTimestampNs == y.baseTimestampNs);
  CHECK(x.startRealtimeNs == y.startRealtimeNs);
  CHECK(x.startTimestampNs == y.startTimestampNs);
  CHECK(x.endTimestampNs == y.endTimestampNs);
  CHECK(x.cuptiVersion == y.cuptiVersion);
  CHECK(x.driverVersion == y.driverVersion);
  CHECK(x.config == y.config);

  REQUIRE(a.devices.size() == b.devices.size());
  for (size_t i = 0; i < a.devices.size(); ++i) {
    const DeviceInfo& p = a.devices[i];
    const DeviceInfo& q = b.devices[i];
    CHECK(p.id == q.id);
    CHECK(p.name == q.name);
    CHECK(p.computeMajor == q.computeMajor);
    CHECK(p.computeMinor == q.computeMinor);
    CHECK(p.multiprocessors == q.multiprocessors);
    CHECK(p.globalMemoryBytes == q.globalMemoryBytes);
    CHECK(p.coreClockKHz == q.coreClockKHz);
    CHECK(p.uuid == q.uuid);
  }
  REQUIRE(a.contexts.size() == b.contexts.size());
  for (size_t i = 0; i < a.contexts.size(); ++i) {
    CHECK(a.contexts[i].contextId == b.contexts[i].contextId);
    CHECK(a.contexts[i].deviceId == b.contexts[i].deviceId);
    CHECK(a.contexts[i].nullStreamId == b.contexts[i].nullStreamId);
  }
  CHECK(a.streamNames == b.streamNames);
  CHECK(a.threadNames == b.threadNames);
  CHECK(a.deviceNames == b.deviceNames);
  CHECK(a.contextNames == b.contextNames);
  CHECK(a.counters == b.counters);
}

// Byte offsets of the sections of a native file: {tag, offset of the tag}.
std::vector<std::pair<uint32_t, size_t>> sections(const std::string& bytes) {
  std::vector<std::pair<uint32_t, size_t>> result;
  size_t pos = 12;  // magic + version
  while (pos + 12 <= bytes.size()) {
    uint32_t tag = 0;
    uint64_t length = 0;
    std::memcpy(&tag, bytes.data() + pos, 4);
    std::memcpy(&length, bytes.data() + pos + 4, 8);
    result.emplace_back(tag, pos);
    pos += 12 + length;
  }
  return result;
}

// Offset of the RECORDS section (tag 3) holding `kind`.
size_t recordsSection(const std::string& bytes, RecordKind kind) {
  for (const auto& [tag, pos] : sections(bytes))
    if (tag == 3 && static_cast<uint8_t>(bytes[pos + 12]) == static_cast<uint8_t>(kind)) return pos;
  FAIL("no RECORDS section for " << recordKindName(kind));
  return 0;
}

template <typename T>
void poke(std::string& bytes, size_t pos, T value) {
  std::memcpy(bytes.data() + pos, &value, sizeof value);
}

}  // namespace

TEST_CASE("native round trip restores every record, string and metadata", "[native]") {
  Trace original;
  fillRichTrace(original);
  const std::string bytes = nativeBytes(original);
  CHECK(bytes.compare(0, 8, "CUPTITRC") == 0);

  Trace reread;
  std::string error;
  REQUIRE(readBytes(bytes, reread, error));
  CHECK(error.empty());
  CHECK(reread.store.count(RecordKind::Kernel) == 9003);
  checkSameTrace(original, reread);

  // Writing the re-read trace gives the same file again.
  CHECK(nativeBytes(reread) == bytes);
}

TEST_CASE("native round trip of an empty trace", "[native]") {
  Trace original;
  Trace reread;
  std::string error;
  REQUIRE(readBytes(nativeBytes(original), reread, error));
  checkSameTrace(original, reread);
}

TEST_CASE("csv from a re-read native trace is byte-identical", "[native][csv]") {
  Trace original;
  fillRichTrace(original);
  Trace reread;
  std::string error;
  REQUIRE(readBytes(nativeBytes(original), reread, error));
  for (int k = 0; k < kRecordKindCount; ++k) {
    const auto kind = static_cast<RecordKind>(k);
    INFO("table " << csvTableName(kind));
    std::ostringstream a, b;
    writeCsvTable(original, kind, a);
    writeCsvTable(reread, kind, b);
    CHECK(a.str().size() > csvColumns(kind).size());  // not trivially empty
    CHECK(a.str() == b.str());
  }
}

TEST_CASE("json from a re-read native trace is byte-identical", "[native][json]") {
  Trace original;
  fillRichTrace(original);
  Trace reread;
  std::string error;
  REQUIRE(readBytes(nativeBytes(original), reread, error));
  std::ostringstream a, b;
  writeChromeJson(original, a);
  writeChromeJson(reread, b);
  CHECK(a.str().find("traceEvents") != std::string::npos);
  CHECK(a.str() == b.str());
}

TEST_CASE("native reader rejects an empty stream, bad magic and future versions", "[native]") {
  Trace sample;
  testing::fillSampleTrace(sample);
  const std::string good = nativeBytes(sample);

  {
    Trace t;
    std::string error;
    CHECK_FALSE(readBytes("", t, error));
    CHECK_THAT(error, Catch::Contains("empty"));
  }
  {
    std::string bad = good;
    bad[0] = 'X';
    Trace t;
    std::string error;
    CHECK_FALSE(readBytes(bad, t, error));
    CHECK_THAT(error, Catch::Contains("magic"));
  }
  {
    Trace t;
    std::string error;
    CHECK_FALSE(readBytes("{\"traceEvents\": []}", t, error));
    CHECK_THAT(error, Catch::Contains("not a cuptitrace native trace"));
  }
  {
    std::string future = good;
    poke<uint32_t>(future, 8, 2);
    Trace t;
    std::string error;
    CHECK_FALSE(readBytes(future, t, error));
    CHECK_THAT(error, Catch::Contains("version 2"));
  }
}

TEST_CASE("native reader rejects every truncation of a file", "[native]") {
  Trace sample;
  testing::fillSampleTrace(sample);
  const std::string good = nativeBytes(sample);
  {
    Trace t;
    std::string error;
    REQUIRE(readBytes(good, t, error));
  }
  std::vector<size_t> accepted;  // prefix lengths wrongly read as a whole trace
  std::vector<size_t> silent;    // rejected without a message
  for (size_t n = 0; n < good.size(); ++n) {
    Trace t;
    std::string error;
    if (readBytes(good.substr(0, n), t, error))
      accepted.push_back(n);
    else if (error.empty())
      silent.push_back(n);
  }
  CHECK(accepted.empty());
  CHECK(silent.empty());

  Trace t;
  std::string error;
  CHECK_FALSE(readBytes(good.substr(0, good.size() - 12), t, error));  // END section cut off
  CHECK_THAT(error, Catch::Contains("truncated"));
}

TEST_CASE("native reader rejects records of another size", "[native]") {
  Trace sample;
  testing::fillSampleTrace(sample);
  std::string bytes = nativeBytes(sample);
  const size_t pos = recordsSection(bytes, RecordKind::Kernel);
  uint32_t size = 0;
  std::memcpy(&size, bytes.data() + pos + 13, 4);
  REQUIRE(size == sizeof(KernelRecord));
  // The same payload as 6 records of 40 bytes: a layout this build does not have.
  poke<uint32_t>(bytes, pos + 13, sizeof(KernelRecord) / 2);
  poke<uint64_t>(bytes, pos + 17, 6);
  Trace t;
  std::string error;
  CHECK_FALSE(readBytes(bytes, t, error));
  CHECK_THAT(error, Catch::Contains("record size mismatch") && Catch::Contains("kernel"));
}

TEST_CASE("native reader rejects lengths and counts beyond the data", "[native]") {
  Trace sample;
  testing::fillSampleTrace(sample);
  const std::string good = nativeBytes(sample);
  const auto secs = sections(good);
  REQUIRE(secs.size() >= 4);
  REQUIRE(secs[0].first == 1);  // STRINGS first

  SECTION("a section length of an exabyte") {
    std::string bad = good;
    poke<uint64_t>(bad, secs[0].second + 4, uint64_t{1} << 60);
    Trace t;
    std::string error;
    CHECK_FALSE(readBytes(bad, t, error));
    CHECK_THAT(error, Catch::Contains("truncated"));
  }
  SECTION("a record count of a trillion, consistent with its section length") {
    std::string bad = good;
    const size_t pos = recordsSection(bad, RecordKind::Api);
    const uint64_t count = uint64_t{1} << 40;
    poke<uint64_t>(bad, pos + 4, 13 + count * sizeof(ApiRecord));
    poke<uint64_t>(bad, pos + 17, count);
    Trace t;
    std::string error;
    CHECK_FALSE(readBytes(bad, t, error));
    CHECK_THAT(error, Catch::Contains("truncated"));
  }
  SECTION("a record count that does not match the section length") {
    std::string bad = good;
    const size_t pos = recordsSection(bad, RecordKind::Api);
    poke<uint64_t>(bad, pos + 17, 1000);
    Trace t;
    std::string error;
    CHECK_FALSE(readBytes(bad, t, error));
    CHECK_THAT(error, Catch::Contains("malformed RECORDS"));
  }
  SECTION("a string count larger than the section") {
    std::string bad = good;
    poke<uint32_t>(bad, secs[0].second + 12, 0xffffffffu);
    Trace t;
    std::string error;
    CHECK_FALSE(readBytes(bad, t, error));
    CHECK_THAT(error, Catch::Contains("STRINGS"));
  }
  SECTION("a string length larger than the section") {
    std::string bad = good;
    poke<uint32_t>(bad, secs[0].second + 16, 0x7fffffffu);
    Trace t;
    std::string error;
    CHECK_FALSE(readBytes(bad, t, error));
    CHECK_THAT(error, Catch::Contains("STRINGS"));
  }
  SECTION("a record naming a string past the table") {
    std::string bad = good;
    const size_t pos = recordsSection(bad, RecordKind::Kernel);
    // KernelRecord::name follows three uint64 fields.
    poke<uint32_t>(bad, pos + 12 + 13 + 24, 999999);
    Trace t;
    std::string error;
    CHECK_FALSE(readBytes(bad, t, error));
    CHECK_THAT(error, Catch::Contains("string id 999999"));
  }
}

TEST_CASE("native reader survives every single-byte corruption", "[native]") {
  Trace sample;
  testing::fillSampleTrace(sample);
  const std::string good = nativeBytes(sample);
  // Flipping each byte in turn: a flipped length, count or tag must give an
  // error or a (different) trace, never a crash, a throw or a huge allocation.
  size_t threw = 0;
  size_t rejectedSilently = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0xff);
    Trace t;
    std::string error;
    try {
      if (!readBytes(bad, t, error) && error.empty()) ++rejectedSilently;
    } catch (...) {
      ++threw;
    }
  }
  CHECK(threw == 0);
  CHECK(rejectedSilently == 0);
}

TEST_CASE("native reader skips sections it does not know", "[native]") {
  Trace sample;
  testing::fillSampleTrace(sample);
  std::string bytes = nativeBytes(sample);
  // A section of a newer writer, placed before END.
  std::string extra(12 + 5, '\0');
  poke<uint32_t>(extra, 0, 99);
  poke<uint64_t>(extra, 4, 5);
  bytes.insert(bytes.size() - 12, extra);
  Trace t;
  std::string error;
  REQUIRE(readBytes(bytes, t, error));
  checkSameTrace(sample, t);
}

TEST_CASE("native reader wants an empty trace to fill", "[native]") {
  Trace sample;
  testing::fillSampleTrace(sample);
  const std::string bytes = nativeBytes(sample);
  Trace used;
  used.strings.intern("already here");
  std::string error;
  CHECK_FALSE(readBytes(bytes, used, error));
  CHECK_THAT(error, Catch::Contains("empty Trace"));
}

}  // namespace cuptitrace
