// Recovery of a journal that a killed process left, torn or not, and the
// journal's info block (names, contexts) it is read back from.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/journal.h"
#include "core/journal_blocks.h"
#include "core/journal_format.h"
#include "core/trace.h"
#include "spill_fixture.h"

namespace cuptitrace {
namespace {

using namespace testing::spill;

// A journal with metadata, strings, devices and kernels and API calls, left as a killed process
// leaves it.
std::string writeJournal(const TempDir& dir, uint64_t kernels) {
  const std::string path = dir.path("run.spill");
  Trace t;
  fillMetadata(t);
  enableSpillJournal(t, path, SpillMode::Always);
  for (uint64_t i = 0; i < kernels; ++i) {
    t.store.add(kernel(t, i));
    t.store.add(api(t, i));
  }
  return path;
}

TEST_CASE("recover: a journal gives back metadata, devices, strings and every full chunk") {
  TempDir dir;
  const uint64_t n = 3 * kPerChunk + 5;
  const std::string path = writeJournal(dir, n);
  Trace t;
  RecoveryReport report;
  std::string error;
  REQUIRE(recoverJournal(path, t, report, error));
  CHECK(report.metadata);
  CHECK(report.stoppedAt.empty());
  CHECK(report.ignoredBytes == 0);
  CHECK(report.readBytes == report.fileBytes);
  CHECK(t.meta.pid == 4242);
  CHECK(t.meta.commandLine == "./app --steps 3");
  CHECK(t.meta.config.at(0).second == "always");
  REQUIRE(t.devices.size() == 1);
  CHECK(t.devices[0].name == "NVIDIA H100 80GB HBM3");
  checkKernels(t, iota(3 * kPerChunk));
  CHECK(t.store.count(RecordKind::Api) == n / ChunkedVector<ApiRecord>::kChunkRecords * ChunkedVector<ApiRecord>::kChunkRecords);
  CHECK(t.counters.at("recovered") == 1);
  CHECK(t.counters.at("recovered.bytes_ignored") == 0);
  CHECK(t.meta.endTimestampNs == 1000 + 10 * (3 * kPerChunk - 1) + 5);
}

TEST_CASE("recover: not a journal is an error, not a crash") {
  TempDir dir;
  Trace t;
  RecoveryReport report;
  std::string error;
  CHECK_FALSE(recoverJournal(dir.path("missing.spill"), t, report, error));
  CHECK(error.find("cannot open") != std::string::npos);
  writeFile(dir.path("text.spill"), "hello, this is not a journal at all");
  CHECK_FALSE(recoverJournal(dir.path("text.spill"), t, report, error));
  CHECK(error.find("not a cuptitrace spill journal") != std::string::npos);
  writeFile(dir.path("empty.spill"), "");
  Trace t2;
  CHECK_FALSE(recoverJournal(dir.path("empty.spill"), t2, report, error));
}

TEST_CASE("recover: a journal cut at any byte gives back a prefix, never a crash") {
  TempDir dir;
  const std::string path = writeJournal(dir, 2 * kPerChunk + 1);
  const std::string whole = readFile(path);
  // Where the chunks end: a cut before that loses the chunk, at or after keeps it.
  std::vector<size_t> cuts;
  for (size_t i = 0; i < 600 && i < whole.size(); ++i) cuts.push_back(i);
  for (size_t i = 600; i < whole.size(); i += 4099) cuts.push_back(i);
  for (size_t i = whole.size() > 600 ? whole.size() - 600 : 0; i <= whole.size(); ++i) cuts.push_back(i);
  const std::string cutPath = dir.path("cut.spill");
  size_t recovered = 0, lastKernels = 0;
  bool prefix = true, monotonic = true;
  for (const size_t cut : cuts) {
    writeFile(cutPath, std::string_view(whole).substr(0, cut));
    Trace t;
    RecoveryReport report;
    std::string error;
    if (!recoverJournal(cutPath, t, report, error)) {
      CHECK(cut < journal::kFileHeaderBytes);
      continue;
    }
    ++recovered;
    const auto& kernels = t.store.records<KernelRecord>();
    for (size_t i = 0; i < kernels.size(); ++i) prefix = prefix && kernels[i].correlationId == i;
    t.store.records<ApiRecord>().forEach([&](const ApiRecord& a) {
      prefix = prefix && t.strings.get(a.name) == (a.correlationId % 2 ? "cudaLaunchKernel" : "cudaMemcpyAsync");
    });
    monotonic = monotonic && kernels.size() >= lastKernels;
    lastKernels = kernels.size();
    CHECK(report.readBytes + report.ignoredBytes == cut);
  }
  CHECK(prefix);
  CHECK(monotonic);
  CHECK(recovered > 0);
  CHECK(lastKernels == 2 * kPerChunk);
}

TEST_CASE("recover: a damaged chunk in the middle is skipped, the rest is kept") {
  TempDir dir;
  const std::string path = writeJournal(dir, 3 * kPerChunk);
  std::string bytes = readFile(path);
  // The second kernel chunk: find CHUNK blocks by walking the headers.
  size_t off = journal::kFileHeaderBytes;
  int kernelChunks = 0;
  size_t target = 0;
  while (off + journal::kBlockHeaderBytes <= bytes.size()) {
    journal::BlockHeader h;
    std::memcpy(&h, bytes.data() + off, sizeof h);
    if (h.type == static_cast<uint32_t>(journal::Block::Chunk) &&
        static_cast<uint8_t>(bytes[off + journal::kBlockHeaderBytes]) == static_cast<uint8_t>(RecordKind::Kernel) &&
        ++kernelChunks == 2)
      target = off;
    off += journal::kBlockHeaderBytes + journal::alignUp(h.length);
  }
  REQUIRE(target != 0);
  bytes[target + journal::kBlockHeaderBytes + journal::kChunkHeaderBytes + 100] ^= 0x5a;
  writeFile(path, bytes);
  Trace t;
  RecoveryReport report;
  std::string error;
  REQUIRE(recoverJournal(path, t, report, error));
  CHECK(report.skippedChunks == 1);
  CHECK(report.missingChunks == 1);
  CHECK(t.store.count(RecordKind::Kernel) == 2 * kPerChunk);
  CHECK(t.counters.at("recovered.chunks_skipped") == 1);
  CHECK(t.store.records<KernelRecord>()[kPerChunk].correlationId == 2 * kPerChunk);
}

TEST_CASE("recover: a process killed with SIGKILL leaves every full chunk it wrote") {
  TempDir dir;
  const std::string path = dir.path("killed.spill");
  const uint64_t n = 4 * kPerChunk + 100;
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    Trace t;
    fillMetadata(t);
    enableSpillJournal(t, path, SpillMode::Always);
    for (uint64_t i = 0; i < n; ++i) {
      t.store.add(kernel(t, i));
      t.store.add(api(t, i));
    }
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
  checkKernels(t, iota(4 * kPerChunk));
  CHECK(t.store.count(RecordKind::Api) == n / ChunkedVector<ApiRecord>::kChunkRecords * ChunkedVector<ApiRecord>::kChunkRecords);
  CHECK(t.meta.processName == "app");
}


TEST_CASE("recover: a sealed journal holds every record, the partial chunks too, after SIGKILL") {
  TempDir dir;
  const std::string path = dir.path("sealed.spill");
  const uint64_t n = 2 * kPerChunk + 123;  // ends in a partial chunk of each kind
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    Trace t;
    fillMetadata(t);
    // auto: below the cap nothing spills until the seal (the signal's path)
    enableSpillJournal(t, path, SpillMode::Auto);
    for (uint64_t i = 0; i < n; ++i) {
      t.store.add(kernel(t, i));
      t.store.add(api(t, i));
    }
    const bool sealed = sealSpillJournal(t);
    // Records still read from memory as before: the export goes on from here.
    const bool readable = t.store.records<KernelRecord>().size() == n &&
                          t.store.records<KernelRecord>()[n - 1].correlationId == n - 1;
    if (!sealed || !readable) ::_exit(4);
    ::raise(SIGKILL);  // killed while writing the outputs
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
  checkKernels(t, iota(n));
  CHECK(t.store.count(RecordKind::Api) == n);
  CHECK(std::string(t.strings.get(t.store.records<KernelRecord>()[n - 1].name)) == "kernel_" + std::to_string((n - 1) % 7));
}

TEST_CASE("journal info: context names round-trip with the other names") {
  Trace t;
  fillMetadata(t);
  t.contexts.push_back({2, 0, 20});
  t.streamNames[21] = "loader";
  t.contextNames[2] = "trainer \"ctx\"";
  t.contextNames[5] = "r\xC3\xA9seau";
  Trace back;
  back.contextNames[9] = "stale";  // replaced, not merged
  REQUIRE(journal::decodeInfo(journal::encodeInfo(t), back));
  CHECK(back.contextNames == t.contextNames);
  CHECK(back.streamNames == t.streamNames);
  REQUIRE(back.contexts.size() == 1);
  CHECK(back.contexts[0].nullStreamId == 20);
}

TEST_CASE("journal info: a block written before context names still reads; a cut one does not") {
  Trace t;
  fillMetadata(t);
  t.streamNames[21] = "loader";
  t.deviceNames[0] = "main";
  std::string old = journal::encodeInfo(t);
  REQUIRE(old.size() >= 4);
  old.resize(old.size() - 4);  // the empty context-name count, which older writers did not write
  Trace back;
  back.contextNames[9] = "stale";
  REQUIRE(journal::decodeInfo(old, back));
  CHECK(back.contextNames.empty());
  CHECK(back.streamNames == t.streamNames);
  CHECK(back.deviceNames == t.deviceNames);

  t.contextNames[2] = "trainer";
  std::string cut = journal::encodeInfo(t);
  cut.resize(cut.size() - 3);  // into the name
  Trace unchanged;
  CHECK_FALSE(journal::decodeInfo(cut, unchanged));
  CHECK(unchanged.streamNames.empty());
}

TEST_CASE("recover: context names given after the first spill reach the journal") {
  TempDir dir;
  const std::string path = dir.path("names.spill");
  Trace t;
  fillMetadata(t);
  enableSpillJournal(t, path, SpillMode::Always);
  uint64_t i = 0;
  for (; i < kPerChunk + 1; ++i) t.store.add(kernel(t, i));  // one chunk, and its INFO, on disk
  t.contextNames[3] = "late";
  for (; i < 2 * kPerChunk + 1; ++i) t.store.add(kernel(t, i));  // another chunk after the name
  Trace back;
  RecoveryReport report;
  std::string error;
  REQUIRE(recoverJournal(path, back, report, error));
  checkKernels(back, iota(2 * kPerChunk));
  const std::map<uint32_t, std::string> expected{{3, "late"}};
  CHECK(back.contextNames == expected);
}

}  // namespace
}  // namespace cuptitrace
