// The journal's TAIL blocks: the records of chunks still filling, written now
// and then, so that a process that dies without a word (SIGKILL, the OOM
// killer, _exit) leaves every record stored before the last write, not only
// the full chunks. Each journal here is read as a killed process leaves it:
// copied as it is, never sealed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/journal.h"
#include "core/journal_format.h"
#include "core/trace.h"
#include "spill_fixture.h"

namespace cuptitrace {
namespace {

using namespace testing::spill;

NvtxRecord mark(Trace& t, uint64_t i) {
  NvtxRecord r{};
  r.start = r.end = 2000 + 10 * i;
  r.threadId = 77;
  r.message = t.strings.intern("step " + std::to_string(i));
  r.type = static_cast<uint8_t>(NvtxType::Mark);
  return r;
}

// The journal at `path` as it is now, copied aside and recovered.
struct Snapshot {
  Trace trace;
  RecoveryReport report;
};
void recoverCopy(const TempDir& dir, const std::string& path, Snapshot& s, const char* name = "copy.spill") {
  const std::string copy = dir.path(name);
  writeFile(copy, readFile(path));
  std::string error;
  REQUIRE(recoverJournal(copy, s.trace, s.report, error));
}

void checkMarks(const Trace& t, uint64_t n) {
  const auto& marks = t.store.records<NvtxRecord>();
  REQUIRE(marks.size() == n);
  bool same = true;
  for (uint64_t i = 0; i < n; ++i)
    same = same && marks[i].start == 2000 + 10 * i && t.strings.get(marks[i].message) == "step " + std::to_string(i);
  CHECK(same);
}

// Offsets of the journal's TAIL blocks, in file order.
std::vector<size_t> tailBlocks(const std::string& bytes) {
  std::vector<size_t> found;
  size_t off = journal::kFileHeaderBytes;
  while (off + journal::kBlockHeaderBytes <= bytes.size()) {
    journal::BlockHeader h;
    std::memcpy(&h, bytes.data() + off, sizeof h);
    if (h.type == static_cast<uint32_t>(journal::Block::Tail)) found.push_back(off);
    off += journal::kBlockHeaderBytes + journal::alignUp(h.length);
  }
  return found;
}

TEST_CASE("journal tails: a killed process's records of chunks still filling come back") {
  TempDir dir;
  const std::string path = dir.path("run.spill");
  Trace t;
  fillMetadata(t);
  enableSpillJournal(t, path, SpillMode::Always);
  for (uint64_t i = 0; i < 3000; ++i) t.store.add(kernel(t, i));
  for (uint64_t i = 0; i < 10; ++i) t.store.add(mark(t, i));
  // Neither kind has a full chunk: without tails the journal has no record.
  const uint64_t memoryBefore = t.store.bytesReserved();
  REQUIRE(t.store.journalTails());
  // The chunks stay in memory, filling, and cost what they did.
  CHECK(t.store.bytesReserved() == memoryBefore);
  CHECK(t.store.spilledChunks() == 0);

  Snapshot first;
  recoverCopy(dir, path, first);
  checkKernels(first.trace, iota(3000));
  checkMarks(first.trace, 10);
  CHECK(first.report.chunks == 2);
  CHECK(first.report.tails == 2);
  CHECK(first.report.missingChunks == 0);
  CHECK(first.report.ignoredBytes == 0);
  CHECK(first.report.stoppedAt.empty());
  CHECK(first.trace.meta.endTimestampNs == 1000 + 10 * 2999 + 5);  // the last kernel, read from its tail

  // More records: the kernel chunk fills and spills, the next one fills on.
  // The full chunk replaces the tails of its slot, with nothing twice.
  for (uint64_t i = 3000; i < kPerChunk + 500; ++i) t.store.add(kernel(t, i));
  CHECK(t.store.spilledChunks() == 1);
  Snapshot beforeTails;
  recoverCopy(dir, path, beforeTails, "before.spill");
  checkKernels(beforeTails.trace, iota(kPerChunk));
  REQUIRE(t.store.journalTails());
  Snapshot second;
  recoverCopy(dir, path, second, "second.spill");
  checkKernels(second.trace, iota(kPerChunk + 500));
  checkMarks(second.trace, 10);
  CHECK(second.report.chunks == 3);
  CHECK(second.report.missingChunks == 0);
  CHECK(second.report.ignoredBytes == 0);
  // The records in memory were not disturbed by being written.
  CHECK(t.store.records<KernelRecord>()[kPerChunk + 499].correlationId == kPerChunk + 499);
}

TEST_CASE("journal tails: a tail written again and again holds each time what was stored") {
  TempDir dir;
  const std::string path = dir.path("run.spill");
  Trace t;
  fillMetadata(t);
  enableSpillJournal(t, path, SpillMode::Always);
  uint64_t n = 0;
  const uint64_t kernelBytes = sizeof(KernelRecord);
  for (const uint64_t batch : {1, 700, 1, 1500, 0, 1894}) {
    for (uint64_t i = 0; i < batch; ++i) t.store.add(kernel(t, n++));
    const uint64_t sizeBefore = t.store.spillFile()->size();
    REQUIRE(t.store.journalTails());
    // Only what came since the last time is written (none: nothing).
    const uint64_t written = t.store.spillFile()->size() - sizeBefore;
    if (batch == 0) CHECK(written == 0);
    else CHECK(written <= batch * kernelBytes + 64 + 1024);  // the TAIL, and strings/info before it
    INFO("after " << n << " kernels");
    Snapshot s;
    recoverCopy(dir, path, s);
    checkKernels(s.trace, iota(n));
    CHECK(s.report.ignoredBytes == 0);
  }
  CHECK(n == kPerChunk);  // the last batch filled the chunk: a CHUNK now, no tail
  Snapshot last;
  recoverCopy(dir, path, last);
  checkKernels(last.trace, iota(kPerChunk));
  CHECK(last.report.chunks == 1);
}

TEST_CASE("journal tails: a journal cut inside a tail gives back the tail before it") {
  TempDir dir;
  const std::string path = dir.path("run.spill");
  Trace t;
  fillMetadata(t);
  enableSpillJournal(t, path, SpillMode::Always);
  for (uint64_t i = 0; i < 1000; ++i) t.store.add(kernel(t, i));
  REQUIRE(t.store.journalTails());
  for (uint64_t i = 1000; i < 2500; ++i) t.store.add(kernel(t, i));
  REQUIRE(t.store.journalTails());
  const std::string whole = readFile(path);
  const std::vector<size_t> tails = tailBlocks(whole);
  REQUIRE(tails.size() == 2);
  // Anywhere from the start of the second tail to one byte short of its end
  // (the file ends there: the process died while writing it).
  const std::string cutPath = dir.path("cut.spill");
  bool previous = true, noCrash = true;
  for (size_t cut = tails[1]; cut < whole.size(); cut += 97) {
    writeFile(cutPath, std::string_view(whole).substr(0, cut));
    Trace back;
    RecoveryReport report;
    std::string error;
    noCrash = noCrash && recoverJournal(cutPath, back, report, error);
    const auto& kernels = back.store.records<KernelRecord>();
    previous = previous && kernels.size() == 1000 && kernels[999].correlationId == 999 &&
               report.readBytes + report.ignoredBytes == cut && (cut == tails[1] || !report.stoppedAt.empty());
  }
  CHECK(noCrash);
  CHECK(previous);
  // The middle of the tail, by name.
  writeFile(cutPath, std::string_view(whole).substr(0, tails[1] + (whole.size() - tails[1]) / 2));
  Trace back;
  RecoveryReport report;
  std::string error;
  REQUIRE(recoverJournal(cutPath, back, report, error));
  checkKernels(back, iota(1000));
  CHECK(report.stoppedAt.find("TAIL block cut short") != std::string::npos);
}

TEST_CASE("journal tails: records filtered out after their tail was written stay out") {
  TempDir dir;
  const std::string path = dir.path("run.spill");
  Trace t;
  fillMetadata(t);
  enableSpillJournal(t, path, SpillMode::Always);
  const uint64_t perChunk = ChunkedVector<ApiRecord>::kChunkRecords;
  const uint64_t n = perChunk + 100;  // one spilled chunk, 100 in the tail
  for (uint64_t i = 0; i < n; ++i) t.store.add(api(t, i));
  REQUIRE(t.store.journalTails());
  // Half go: the spilled chunk comes back to memory as the one filling, its
  // copy in the journal is dead, and the old tail's slot is no more.
  t.store.retain<ApiRecord>([](const ApiRecord& a) { return a.correlationId % 2 == 0; });
  REQUIRE(t.store.count(RecordKind::Api) == n / 2);
  Snapshot s;
  recoverCopy(dir, path, s);
  const auto& calls = s.trace.store.records<ApiRecord>();
  REQUIRE(calls.size() == n / 2);
  bool even = true;
  for (uint64_t i = 0; i < calls.size(); ++i) even = even && calls[i].correlationId == 2 * i;
  CHECK(even);
  CHECK(s.report.missingChunks == 0);
  // Appended after the filtering, and written: again exactly the store's.
  for (uint64_t i = n; i < n + 10; ++i) t.store.add(api(t, 2 * i));
  REQUIRE(t.store.journalTails());
  Snapshot after;
  recoverCopy(dir, path, after, "after.spill");
  CHECK(after.trace.store.count(RecordKind::Api) == n / 2 + 10);
  CHECK(after.trace.store.records<ApiRecord>()[n / 2 + 9].correlationId == 2 * (n + 9));
}

TEST_CASE("journal tails: a process killed with SIGKILL leaves what was stored before the last write") {
  TempDir dir;
  const std::string path = dir.path("killed.spill");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    Trace t;
    fillMetadata(t);
    enableSpillJournal(t, path, SpillMode::Always);
    for (uint64_t i = 0; i < 3000; ++i) t.store.add(kernel(t, i));
    for (uint64_t i = 0; i < 10; ++i) t.store.add(mark(t, i));
    if (!t.store.journalTails()) ::_exit(4);
    for (uint64_t i = 3000; i < 3100; ++i) t.store.add(kernel(t, i));  // after the write: lost
    ::raise(SIGKILL);
    ::_exit(3);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  Trace t;
  RecoveryReport report;
  std::string error;
  REQUIRE(recoverJournal(path, t, report, error));
  checkKernels(t, iota(3000));
  checkMarks(t, 10);
}

TEST_CASE("journal tails: only with the journal written as records come") {
  TempDir dir;
  Trace off;
  CHECK_FALSE(off.store.journalTails());  // no journal at all
  Trace autoMode;
  fillMetadata(autoMode);
  enableSpillJournal(autoMode, dir.path("auto.spill"), SpillMode::Auto);
  for (uint64_t i = 0; i < 100; ++i) autoMode.store.add(kernel(autoMode, i));
  // Auto writes nothing until the cap is passed: full chunks stay in memory,
  // so tails alone would not make the journal whole.
  CHECK_FALSE(autoMode.store.journalTails());
  CHECK_FALSE(autoMode.store.spillFile()->created());
}

}  // namespace
}  // namespace cuptitrace
