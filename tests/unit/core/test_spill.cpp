// The store past its memory cap: chunks spill to a journal and read back as if
// in memory; filtering in place across spilled chunks; where the journal goes.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/journal.h"
#include "core/trace.h"
#include "spill_fixture.h"

namespace cuptitrace {
namespace {

using namespace testing::spill;

constexpr uint64_t kKernelChunk = ChunkedVector<KernelRecord>::kChunkBytes;

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The memory the kernels' names take: the cap covers strings as well as
// records, so a cap of N chunks of records is N chunks plus this.
uint64_t namesBytes(Trace& t) {
  for (uint64_t i = 0; i < 7; ++i) kernel(t, i);
  return t.strings.bytesInMemory();
}

TEST_CASE("spill: past the cap chunks go to the journal and read back in order, nothing dropped") {
  TempDir dir;
  Trace t;
  fillMetadata(t);
  t.store.setMaxBytes(3 * kKernelChunk);
  const std::string path = dir.path("run.spill");
  enableSpillJournal(t, path, SpillMode::Auto);
  CHECK_FALSE(exists(path));  // auto: made on the first spill only

  const uint64_t n = 10 * kPerChunk + 123;
  for (uint64_t i = 0; i < n; ++i) {
    REQUIRE(t.store.add(kernel(t, i)));
    if (i % 4 == 0) REQUIRE(t.store.add(api(t, i)));
  }
  CHECK(exists(path));
  CHECK(t.store.totalDropped() == 0);
  CHECK(t.store.count(RecordKind::Kernel) == n);
  CHECK(t.store.count(RecordKind::Api) == (n + 3) / 4);
  CHECK(t.store.bytesReserved() <= t.store.maxBytes());
  CHECK(t.store.spilledChunks() >= 8);
  checkKernels(t, iota(n));
  bool apiOk = true;
  uint64_t j = 0;
  t.store.records<ApiRecord>().forEach([&](const ApiRecord& a) {
    apiOk = apiOk && a.correlationId == j && t.strings.get(a.name) == (j % 2 ? "cudaLaunchKernel" : "cudaMemcpyAsync");
    j += 4;
  });
  CHECK(apiOk);

  publishSpillCounters(t);
  CHECK(t.counters.at("spill.chunks") == t.store.spilledChunks());
  CHECK(t.counters.count("spill.failed") == 0);
  CHECK(removeSpillJournal(t) == path);
  CHECK_FALSE(exists(path));
  // Unlinked, still readable.
  checkKernels(t, iota(n));
}

TEST_CASE("spill: scan reads spilled chunks into a buffer, the same records as forEach") {
  TempDir dir;
  Trace t;
  fillMetadata(t);
  t.store.setMaxBytes(3 * kKernelChunk);
  enableSpillJournal(t, dir.path("run.spill"), SpillMode::Auto);
  const uint64_t n = 9 * kPerChunk + 77;
  for (uint64_t i = 0; i < n; ++i) REQUIRE(t.store.add(kernel(t, i)));
  REQUIRE(t.store.spilledChunks() >= 5);
  const auto& kernels = t.store.records<KernelRecord>();
  std::vector<uint64_t> mapped, read;
  kernels.forEach([&](const KernelRecord& k) { mapped.push_back(k.correlationId); });
  // A spilled record comes from the pass's own buffer, not the mapping.
  size_t outside = 0;
  kernels.scan([&](const KernelRecord& k) {
    read.push_back(k.correlationId);
    const size_t i = read.size() - 1;
    outside += &k != &kernels[i];
  });
  CHECK(read == mapped);
  CHECK(read == iota(n));
  CHECK(outside >= 5 * kPerChunk);
  // The file unlinked: still read (its descriptor is open), the same records.
  REQUIRE(removeSpillJournal(t) == dir.path("run.spill"));
  read.clear();
  kernels.scan([&](const KernelRecord& k) { read.push_back(k.correlationId); });
  CHECK(read == mapped);
}

TEST_CASE("spill: a reference stays valid while other spilled chunks are read") {
  TempDir dir;
  Trace t;
  t.store.setMaxBytes(2 * kKernelChunk);
  enableSpillJournal(t, dir.path("run.spill"), SpillMode::Auto);
  const uint64_t n = 40 * kPerChunk;
  for (uint64_t i = 0; i < n; ++i) REQUIRE(t.store.add(kernel(t, i)));
  t.store.spillFile()->setResidentLimit(4 * kKernelChunk);
  const auto& kernels = t.store.records<KernelRecord>();
  const KernelRecord& first = kernels[5];
  // Touch every chunk: the first one's pages are dropped and come back.
  uint64_t sum = 0;
  kernels.forEach([&](const KernelRecord& k) { sum += k.correlationId; });
  CHECK(sum == n * (n - 1) / 2);
  CHECK(first.correlationId == 5);
  CHECK(&first == &kernels[5]);
}

TEST_CASE("spill: retain compacts in place across spilled chunks, and appending goes on") {
  TempDir dir;
  const SpillMode mode = GENERATE(SpillMode::Auto, SpillMode::Always);
  Trace t;
  fillMetadata(t);
  t.store.setMaxBytes(3 * kKernelChunk);
  const std::string path = dir.path("run.spill");
  enableSpillJournal(t, path, mode);
  const uint64_t n = 9 * kPerChunk + 77;
  for (uint64_t i = 0; i < n; ++i) REQUIRE(t.store.add(kernel(t, i)));
  REQUIRE(t.store.spilledChunks() > 0);

  t.store.retain<KernelRecord>([](const KernelRecord& k) { return k.correlationId % 3 != 1; });
  std::vector<uint64_t> expected;
  for (uint64_t i = 0; i < n; ++i)
    if (i % 3 != 1) expected.push_back(i);
  checkKernels(t, expected);
  CHECK(t.store.totalDropped() == 0);
  CHECK(t.store.bytesReserved() <= t.store.maxBytes() + kKernelChunk);

  // Appending after filtering: the last chunk took appends again.
  for (uint64_t i = n; i < n + 3 * kPerChunk; ++i) {
    REQUIRE(t.store.add(kernel(t, i)));
    expected.push_back(i);
  }
  checkKernels(t, expected);

  Trace recovered;
  RecoveryReport report;
  std::string error;
  REQUIRE(recoverJournal(path, recovered, report, error));
  // What reached the journal is the store's own full chunks, in their filtered form.
  const auto& got = recovered.store.records<KernelRecord>();
  REQUIRE(got.size() % kPerChunk == 0);
  REQUIRE(got.size() <= expected.size());
  if (mode == SpillMode::Always) CHECK(got.size() == expected.size() / kPerChunk * kPerChunk);
  bool same = true;
  for (size_t i = 0; i < got.size(); ++i) same = same && got[i].correlationId == expected[i];
  CHECK(same);
  CHECK(report.skippedChunks == 0);

  // Filtering everything out leaves nothing, in memory or in the file.
  t.store.retain<KernelRecord>([](const KernelRecord&) { return false; });
  CHECK(t.store.count(RecordKind::Kernel) == 0);
  Trace empty;
  REQUIRE(recoverJournal(path, empty, report, error));
  CHECK(empty.store.count(RecordKind::Kernel) == 0);
  CHECK(report.deadChunks > 0);
}

TEST_CASE("spill: with always, every full chunk is on disk and memory holds only partial ones") {
  TempDir dir;
  Trace t;
  fillMetadata(t);
  const std::string path = dir.path("run.spill");
  enableSpillJournal(t, path, SpillMode::Always);
  CHECK(exists(path));  // made at once, metadata first
  const uint64_t n = 5 * kPerChunk + 10;
  for (uint64_t i = 0; i < n; ++i) {
    t.store.add(kernel(t, i));
    t.store.add(api(t, i));
  }
  CHECK(t.store.spilledChunks() == 5 + n / ChunkedVector<ApiRecord>::kChunkRecords);
  CHECK(t.store.bytesReserved() == kKernelChunk + ChunkedVector<ApiRecord>::kChunkBytes);
  checkKernels(t, iota(n));
}

TEST_CASE("spill: a journal that cannot be written falls back to counting drops") {
  Trace t;
  t.store.setMaxBytes(2 * kKernelChunk + namesBytes(t));
  enableSpillJournal(t, "/nonexistent-dir/cuptitrace/run.spill", SpillMode::Auto);
  const uint64_t n = 3 * kPerChunk;
  uint64_t stored = 0;
  for (uint64_t i = 0; i < n; ++i) stored += t.store.add(kernel(t, i)) ? 1 : 0;
  CHECK(stored == 2 * kPerChunk);
  CHECK(t.store.dropped(RecordKind::Kernel) == kPerChunk);
  publishSpillCounters(t);
  CHECK(t.counters.at("spill.failed") == 1);
  checkKernels(t, iota(2 * kPerChunk));
}

TEST_CASE("spill: a store with no journal drops past the cap, as before") {
  Trace t;
  t.store.setMaxBytes(kKernelChunk + namesBytes(t));
  for (uint64_t i = 0; i < kPerChunk + 10; ++i) t.store.add(kernel(t, i));
  CHECK(t.store.count(RecordKind::Kernel) == kPerChunk);
  CHECK(t.store.dropped(RecordKind::Kernel) == 10);
  t.store.retain<KernelRecord>([](const KernelRecord& k) { return k.correlationId < 100; });
  checkKernels(t, iota(100));
}

TEST_CASE("store: records added many at once are kept and dropped as one at a time") {
  // Batches of uneven sizes, crossing chunks or not, into a store whose cap
  // ends its room part-way; without a journal (drops past the cap) and
  // with one that takes every full chunk (spills).
  const uint64_t n = 3 * kPerChunk + 5;
  const size_t batches[] = {1000, kPerChunk, 7, 1, 2 * kPerChunk};
  for (const bool journal : {false, true}) {
    TempDir dir;
    Trace one, many;
    for (Trace* t : {&one, &many}) {
      fillMetadata(*t);
      t->store.setMaxBytes(2 * kKernelChunk + namesBytes(*t));
      if (journal) enableSpillJournal(*t, dir.path(t == &one ? "one.spill" : "many.spill"), SpillMode::Always);
    }
    for (uint64_t i = 0; i < n; ++i) one.store.add(kernel(one, i));
    std::vector<KernelRecord> records;
    for (uint64_t i = 0; i < n; ++i) records.push_back(kernel(many, i));
    size_t at = 0, kept = 0;
    for (size_t b = 0; at < n; b = (b + 1) % std::size(batches)) {
      const size_t k = std::min<size_t>(batches[b], n - at);
      kept += many.store.addMany(records.data() + at, k);
      at += k;
    }
    INFO("journal " << journal);
    CHECK(kept == many.store.count(RecordKind::Kernel));
    CHECK(many.store.count(RecordKind::Kernel) == one.store.count(RecordKind::Kernel));
    CHECK(many.store.dropped(RecordKind::Kernel) == one.store.dropped(RecordKind::Kernel));
    CHECK(many.store.spilledChunks() == one.store.spilledChunks());
    CHECK(many.store.bytesReserved() == one.store.bytesReserved());
    CHECK((journal ? many.store.dropped(RecordKind::Kernel) == 0 : many.store.spilledChunks() == 0));
    checkKernels(many, iota(one.store.count(RecordKind::Kernel)));
    if (journal) removeSpillJournal(one), removeSpillJournal(many);
  }
}

TEST_CASE("spill path: PREFIX.spill next to the outputs; with %n a name no prefix claims") {
  OutputNameInputs in;
  in.pid = 77;
  in.host = "node/7";
  CHECK(spillPathFor("out/trace-%h-%p", in) == "out/trace-node/7-77.spill");
  CHECK(spillPathFor("out/run-%n", in) == "out/cuptitrace-node_7-77.spill");
  CHECK(spillPathFor("run%n", in) == "cuptitrace-node_7-77.spill");
}

TEST_CASE("spill: an existing journal is never replaced") {
  TempDir dir;
  const std::string path = dir.path("run.spill");
  writeFile(path, "someone's trace");
  Trace t;
  enableSpillJournal(t, path, SpillMode::Always);
  CHECK(t.store.spillFile()->path() == path + ".2");
  CHECK(readFile(path) == "someone's trace");
}

TEST_CASE("spill: with spilling off there is nothing to seal") {
  Trace t;
  fillMetadata(t);
  t.store.add(kernel(t, 1));
  CHECK_FALSE(sealSpillJournal(t));
}

}  // namespace
}  // namespace cuptitrace
