// The store past its memory cap: chunks spill to a journal and read back as if
// in memory; filtering in place across spilled chunks; recovery of a journal
// that a killed process left, torn or not.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/journal.h"
#include "core/journal_blocks.h"
#include "core/journal_format.h"
#include "core/trace.h"

namespace cuptitrace {
namespace {

constexpr size_t kPerChunk = ChunkedVector<KernelRecord>::kChunkRecords;
constexpr uint64_t kKernelChunk = ChunkedVector<KernelRecord>::kChunkBytes;

// A fresh directory, removed with what is in it at scope exit.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/cuptitrace-spill-XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    dir_ = pattern;
  }
  ~TempDir() {
    const std::string cmd = "rm -rf '" + dir_ + "'";
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", dir_.c_str());
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

KernelRecord kernel(Trace& t, uint64_t i) {
  KernelRecord k{};
  k.start = 1000 + 10 * i;
  k.end = k.start + 5;
  k.correlationId = static_cast<uint32_t>(i);
  k.name = t.strings.intern("kernel_" + std::to_string(i % 7));
  k.streamId = static_cast<uint32_t>(i % 3);
  return k;
}

ApiRecord api(Trace& t, uint64_t i) {
  ApiRecord a{};
  a.start = 995 + 10 * i;
  a.end = a.start + 3;
  a.correlationId = static_cast<uint32_t>(i);
  a.name = t.strings.intern(i % 2 ? "cudaLaunchKernel" : "cudaMemcpyAsync");
  return a;
}

void fillMetadata(Trace& t) {
  t.meta.toolVersion = "test";
  t.meta.hostName = "node7";
  t.meta.pid = 4242;
  t.meta.processName = "app";
  t.meta.commandLine = "./app --steps 3";
  t.meta.startTimestampNs = 1000;
  t.meta.config = {{"CUPTITRACE_SPILL", "always"}};
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85ull << 30, 1980000, "GPU-1"});
}

// Every kernel i in [0, n) was added in order; checks the store holds exactly them.
void checkKernels(const Trace& t, const std::vector<uint64_t>& expected) {
  const auto& kernels = t.store.records<KernelRecord>();
  REQUIRE(kernels.size() == expected.size());
  size_t i = 0;
  bool inOrder = true;
  kernels.forEach([&](const KernelRecord& k) { inOrder = inOrder && k.correlationId == expected[i++]; });
  CHECK(inOrder);
  // Random access, from the back and scattered.
  bool random = true;
  for (size_t j = expected.size(); j-- > 0;) random = random && kernels[j].correlationId == expected[j];
  for (size_t j = 0; j < expected.size(); j += 997) {
    const KernelRecord& k = kernels[j];
    random = random && k.start == 1000 + 10 * expected[j] &&
             t.strings.get(k.name) == "kernel_" + std::to_string(expected[j] % 7);
  }
  CHECK(random);
}

// The memory the kernels' names take: the cap covers strings as well as
// records, so a cap of N chunks of records is N chunks plus this.
uint64_t namesBytes(Trace& t) {
  for (uint64_t i = 0; i < 7; ++i) kernel(t, i);
  return t.strings.bytesInMemory();
}

std::vector<uint64_t> iota(uint64_t n) {
  std::vector<uint64_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = i;
  return v;
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

// A journal with metadata, strings, devices and kernels and API calls, left as a killed process leaves it.
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

TEST_CASE("spill: with spilling off there is nothing to seal") {
  Trace t;
  fillMetadata(t);
  t.store.add(kernel(t, 1));
  CHECK_FALSE(sealSpillJournal(t));
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
