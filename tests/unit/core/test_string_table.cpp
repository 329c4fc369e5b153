// The string table under the trace's memory cap: strings count against it,
// full blocks go to the spill journal and read back from there, the index
// that finds ids again keeps to its budget, and a journal of spilled strings
// recovers with every id in place.
#include <stdlib.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "core/journal.h"
#include "core/trace.h"
#include "temp_dir.h"

namespace cuptitrace {
namespace {

using testing::TempDir;

// NVTX-like text with a counter in it: every one different, some long.
std::string message(uint64_t i) {
  std::string s = "step " + std::to_string(i) + " forward layer " + std::to_string(i % 97);
  if (i % 1000 == 0) s += std::string(5000 + i % 7, 'x');
  return s;
}

}  // namespace

TEST_CASE("string table: intern finds a string again, append never does, ids run on") {
  StringTable t;
  CHECK(t.size() == 1);
  CHECK(t.bytesInMemory() == 0);
  CHECK(t.intern("") == kNoString);
  const StringId a = t.intern("alpha");
  const StringId b = t.intern("beta");
  CHECK(a == 1);
  CHECK(b == 2);
  CHECK(t.intern("alpha") == a);
  CHECK(t.append("alpha") == 3);  // a saved trace's repeated text keeps its id
  CHECK(t.get(3) == "alpha");
  CHECK(t.append("") == 4);
  CHECK(t.get(4).empty());
  CHECK(t.get(kNoString).empty());
  CHECK(t.get(99).empty());
  // Long strings start blocks of their own, and short ones go on after them.
  const std::string big(600 << 10, 'z');
  const StringId c = t.intern(big);
  const StringId d = t.intern("delta");
  CHECK(t.get(c) == big);
  CHECK(t.get(d) == "delta");
  CHECK(t.get(a) == "alpha");
  CHECK(t.size() == 7);
  CHECK(t.bytesInMemory() >= big.size());
}

TEST_CASE("string table: the index keeps to its budget and recent strings are still found") {
  StringTable t;
  t.setMaxBytes(0);  // the index's floor: 64 KiB, 8192 slots
  const uint64_t n = 100000;
  for (uint64_t i = 0; i < n; ++i) REQUIRE(t.intern(message(i)) == i + 1);
  CHECK(t.forgotten() > 0);
  CHECK(t.indexBytes() <= 64 * 1024);
  CHECK(t.bytesInMemory() > t.indexBytes());
  // The newest strings are found again; every id still reads back.
  for (uint64_t i = n - 50; i < n; ++i) CHECK(t.intern(message(i)) == i + 1);
  bool all = true;
  for (uint64_t i = 0; i < n; ++i) all = all && t.get(static_cast<StringId>(i + 1)) == message(i);
  CHECK(all);
}

TEST_CASE("string table: past the cap full blocks go to the journal and read back from it") {
  TempDir dir;
  Trace t;
  const uint64_t cap = uint64_t{4} << 20;
  t.store.setMaxBytes(cap);
  const std::string path = dir.path("run.spill");
  enableSpillJournal(t, path, SpillMode::Auto);
  const uint64_t n = 400000;  // about 15 MiB of text
  uint64_t peak = 0, text = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const std::string m = message(i);
    text += 4 + m.size();
    REQUIRE(t.strings.intern(m) == i + 1);
    // What the drain thread does after each batch.
    if (i % 5000 == 0) {
      t.store.releaseMemory(0);
      peak = std::max(peak, t.strings.bytesInMemory());
    }
  }
  t.store.releaseMemory(0);
  CHECK(t.store.memoryInUse() <= cap);
  // Between two drains strings grow by one batch at most.
  CHECK(peak <= cap + (uint64_t{1} << 20));
  // All but what the cap holds went to the journal.
  CHECK(t.strings.releasedBytes() + cap >= text);
  REQUIRE(t.store.spillFile() != nullptr);
  CHECK(t.store.spillFile()->size() > t.strings.releasedBytes());
  bool all = true;
  for (uint64_t i = 0; i < n; ++i)
    all = all && t.strings.get(static_cast<StringId>(i + 1)) == message(i);
  CHECK(all);
  // A recent string is found again; an old one the index forgot under this
  // cap gets a new id, with the same text.
  CHECK(t.strings.intern(message(n - 1)) == n);
  CHECK(t.strings.forgotten() > 0);
  CHECK(t.strings.get(t.strings.intern(message(7))) == message(7));
}

TEST_CASE("string table: a journal with spilled strings and records recovers every name") {
  TempDir dir;
  const std::string path = dir.path("run.spill");
  constexpr size_t kPerChunk = ChunkedVector<KernelRecord>::kChunkRecords;
  const uint64_t kernels = 5 * kPerChunk;
  {
    Trace t;
    t.meta.pid = 77;
    // Every full chunk goes to the journal; the strings for the cap.
    t.store.setMaxBytes(uint64_t{1} << 20);
    enableSpillJournal(t, path, SpillMode::Always);
    for (uint64_t i = 0; i < kernels; ++i) {
      KernelRecord k{};
      k.start = 100 + i;
      k.end = k.start + 1;
      k.correlationId = static_cast<uint32_t>(i);
      k.name = t.strings.intern(message(i));
      REQUIRE(t.store.add(k));
      if (i % 3000 == 0) t.store.releaseMemory(0);
    }
    CHECK(t.strings.releasedBytes() > 0);
    CHECK(t.store.spilledChunks() == 5);
    // The process dies here: the journal stays.
  }
  Trace r;
  RecoveryReport report;
  std::string error;
  REQUIRE(recoverJournal(path, r, report, error));
  CHECK(report.stoppedAt.empty());
  const auto& recovered = r.store.records<KernelRecord>();
  REQUIRE(recovered.size() == kernels);
  bool names = true;
  recovered.forEach([&](const KernelRecord& k) {
    names = names && r.strings.get(k.name) == message(k.correlationId);
  });
  CHECK(names);
}

}  // namespace cuptitrace
