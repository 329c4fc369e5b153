#include <catch2/catch.hpp>

#include <thread>

#include "collectors/nvtx_recorder.h"

using namespace cuptitrace;

namespace {
NvtxAttributes named(StringTable& strings, const char* name, StringId domain = kNoString) {
  NvtxAttributes a;
  a.message = strings.intern(name);
  a.domain = domain;
  return a;
}
std::vector<NvtxRecord> all(const TraceStore& store) {
  std::vector<NvtxRecord> out;
  store.records<NvtxRecord>().forEach([&](const NvtxRecord& r) { out.push_back(r); });
  return out;
}
}  // namespace

TEST_CASE("nvtx: push/pop ranges nest per thread with depth") {
  Trace trace;
  NvtxRecorder rec;
  rec.push(1, 10, named(trace.strings, "outer"));
  rec.push(1, 20, named(trace.strings, "middle"));
  rec.push(2, 25, named(trace.strings, "other thread"));
  rec.push(1, 30, named(trace.strings, "inner"));
  rec.pop(1, 40, kNoString);
  rec.pop(1, 50, kNoString);
  rec.pop(2, 55, kNoString);
  rec.pop(1, 60, kNoString);
  rec.collect(trace.store, false, 0);
  const auto records = all(trace.store);
  REQUIRE(records.size() == 4);
  auto find = [&](const char* name) {
    for (const auto& r : records)
      if (trace.strings.get(r.message) == name) return r;
    FAIL("missing " << name);
    return NvtxRecord{};
  };
  const auto inner = find("inner"), middle = find("middle"), outer = find("outer"), other = find("other thread");
  CHECK(inner.start == 30);
  CHECK(inner.end == 40);
  CHECK(inner.depth == 2);
  CHECK(middle.start == 20);
  CHECK(middle.end == 50);
  CHECK(middle.depth == 1);
  CHECK(outer.end == 60);
  CHECK(outer.depth == 0);
  CHECK(other.threadId == 2);
  CHECK(other.depth == 0);
  CHECK(other.end == 55);
  for (const auto& r : records) CHECK(r.type == static_cast<uint8_t>(NvtxType::PushPop));
}

TEST_CASE("nvtx: a domain pop closes that domain's innermost range only") {
  Trace trace;
  NvtxRecorder rec;
  const StringId domain = trace.strings.intern("my domain");
  rec.push(1, 10, named(trace.strings, "in domain", domain));
  rec.push(1, 20, named(trace.strings, "default"));
  rec.pop(1, 30, domain);
  rec.pop(1, 40, kNoString);
  rec.collect(trace.store, false, 0);
  const auto records = all(trace.store);
  REQUIRE(records.size() == 2);
  CHECK(trace.strings.get(records[0].message) == "in domain");
  CHECK(records[0].end == 30);
  CHECK(records[0].domain == domain);
  CHECK(trace.strings.get(records[1].message) == "default");
  CHECK(records[1].end == 40);
}

TEST_CASE("nvtx: start/end ranges match by id across threads") {
  Trace trace;
  NvtxRecorder rec;
  rec.start(1, 100, 7, named(trace.strings, "async"));
  rec.start(1, 110, 8, named(trace.strings, "second"));
  rec.end(2, 300, 7);
  rec.end(1, 400, 8);
  rec.end(1, 500, 999);  // never started
  rec.collect(trace.store, false, 0);
  const auto records = all(trace.store);
  REQUIRE(records.size() == 2);
  CHECK(records[0].type == static_cast<uint8_t>(NvtxType::StartEnd));
  CHECK(records[0].id == 7);
  CHECK(records[0].threadId == 1);
  CHECK(records[0].endThreadId == 2);
  CHECK(records[0].end == 300);
  rec.publish(trace);
  CHECK(trace.counters.at("nvtx.unmatched_ends") == 1);
}

TEST_CASE("nvtx: marks, unmatched pops and ranges open at exit") {
  Trace trace;
  NvtxRecorder rec;
  rec.mark(3, 50, named(trace.strings, "mark"));
  rec.pop(3, 55, kNoString);  // nothing open
  rec.push(3, 60, named(trace.strings, "never closed"));
  rec.start(3, 70, 1, named(trace.strings, "never ended"));
  rec.collect(trace.store, false, 0);
  CHECK(trace.store.count(RecordKind::Nvtx) == 1);  // only the mark so far
  rec.collect(trace.store, true, 1000);
  const auto records = all(trace.store);
  REQUIRE(records.size() == 3);
  CHECK(records[0].type == static_cast<uint8_t>(NvtxType::Mark));
  CHECK(records[0].start == records[0].end);
  int open = 0;
  for (const auto& r : records) {
    if (r.flags & kNvtxOpen) {
      ++open;
      CHECK(r.end == 1000);
    }
  }
  CHECK(open == 2);
  rec.publish(trace);
  CHECK(trace.counters.at("nvtx.unmatched_pops") == 1);
}

TEST_CASE("nvtx: many threads record concurrently without losing ranges") {
  Trace trace;
  NvtxRecorder rec;
  const StringId name = trace.strings.intern("work");
  NvtxAttributes a;
  a.message = name;
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 8; ++t) {
    threads.emplace_back([&rec, a, t] {
      for (uint64_t i = 0; i < 1000; ++i) {
        rec.push(100 + t, i * 10, a);
        rec.pop(100 + t, i * 10 + 5, kNoString);
      }
    });
  }
  // Collect while they run: records move to the store, none twice, none lost.
  for (int i = 0; i < 20; ++i) rec.collect(trace.store, false, 0);
  for (auto& th : threads) th.join();
  rec.collect(trace.store, true, 0);
  CHECK(trace.store.count(RecordKind::Nvtx) == 8000);
}

TEST_CASE("nvtx: names given by the program are published") {
  Trace trace;
  NvtxRecorder rec;
  rec.nameThread(42, "main-loop");
  rec.nameStream(13, "compute");
  rec.nameDevice(0, "primary");
  rec.nameContext(2, "trainer");
  rec.publish(trace);
  CHECK(trace.threadNames.at(42) == "main-loop");
  CHECK(trace.streamNames.at(13) == "compute");
  CHECK(trace.deviceNames.at(0) == "primary");
  const std::map<uint32_t, std::string> contexts{{2, "trainer"}};
  CHECK(trace.contextNames == contexts);
}
