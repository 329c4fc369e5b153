// exportAll: the files it writes under a prefix, and what it does when it cannot.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "core/config.h"
#include "core/journal.h"
#include "exporters/csv/csv.h"
#include "exporters/export_all.h"
#include "exporters/native/native.h"
#include "exporters/pftrace/perfetto_proto.h"
#include "temp_dir.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::set<std::string> fileNames(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.insert(entry.path().filename().string());
  return names;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("exportAll writes native, JSON and every CSV table, and no partial file", "[export]") {
  Trace trace;
  testing::fillSampleTrace(trace);
  TempDir dir;
  const std::string prefix = (dir.path() / "run").string();

  const ExportResult result = exportAll(trace, kFormatCsv | kFormatNative | kFormatJson, prefix);
  CHECK(result.errors.empty());
  const std::set<std::string> expected = {"run.native",     "run.json",       "run.kernels.csv",
                                          "run.memcpy.csv", "run.memset.csv", "run.api.csv",
                                          "run.nvtx.csv",   "run.sync.csv",   "run.overhead.csv"};
  CHECK(fileNames(dir.path()) == expected);
  CHECK(result.written.size() == expected.size());
  for (const auto& name : fileNames(dir.path())) CHECK(name.find(".partial") == std::string::npos);

  // The files hold what the exporters write.
  std::ifstream in(dir.path() / "run.native", std::ios::binary);
  Trace reread;
  std::string error;
  REQUIRE(readNative(in, reread, error));
  CHECK(reread.store.count(RecordKind::Kernel) == 3);
  std::ostringstream kernels;
  writeCsvTable(trace, RecordKind::Kernel, kernels);
  CHECK(readFile(dir.path() / "run.kernels.csv") == kernels.str());
  CHECK_NOTHROW(nlohmann::json::parse(readFile(dir.path() / "run.json")));
}

TEST_CASE("exportAll writes the Perfetto protobuf file when asked", "[export]") {
  Trace trace;
  testing::fillSampleTrace(trace);
  TempDir dir;
  const std::string prefix = (dir.path() / "run").string();
  const ExportResult result = exportAll(trace, kFormatPftrace, prefix);
  CHECK(result.errors.empty());
  CHECK(fileNames(dir.path()) == std::set<std::string>{"run.pftrace"});
  std::ostringstream expected;
  writePerfettoProto(trace, expected);
  CHECK(readFile(dir.path() / "run.pftrace") == expected.str());
  CHECK(expected.str().size() > 100);
}

TEST_CASE("exportAll leaves out empty sync and overhead tables", "[export]") {
  Trace trace;  // nothing recorded
  TempDir dir;
  const ExportResult result = exportAll(trace, kFormatCsv, (dir.path() / "t").string());
  CHECK(result.errors.empty());
  CHECK(fileNames(dir.path()) == std::set<std::string>{"t.kernels.csv", "t.memcpy.csv",
                                                       "t.memset.csv", "t.api.csv", "t.nvtx.csv"});
}

TEST_CASE("exportAll into a missing directory reports the path and writes nothing", "[export]") {
  Trace trace;
  testing::fillSampleTrace(trace);
  TempDir dir;
  const fs::path missing = dir.path() / "does-not-exist";
  const std::string prefix = (missing / "run").string();

  const ExportResult result = exportAll(trace, kFormatCsv | kFormatNative | kFormatJson, prefix);
  CHECK(result.written.empty());
  // One message for the directory, not one per output file.
  REQUIRE(result.errors.size() == 1);
  CHECK_THAT(result.errors.front(), Catch::Contains("output directory " + missing.string() + " does not exist"));
  CHECK(result.errors.front().find('\n') == std::string::npos);
  CHECK_FALSE(fs::exists(missing));
  CHECK(fileNames(dir.path()).empty());
}

TEST_CASE("exportAll into a file that is not a directory reports it", "[export]") {
  Trace trace;
  testing::fillSampleTrace(trace);
  TempDir dir;
  const fs::path notDir = dir.path() / "plain-file";
  std::ofstream(notDir) << "x";
  const ExportResult result = exportAll(trace, kFormatJson, (notDir / "run").string());
  CHECK(result.written.empty());
  REQUIRE(result.errors.size() == 1);
  CHECK_THAT(result.errors.front(), Catch::Contains("is not a writable directory"));
}

TEST_CASE("outputsExist sees a trace written under the prefix, and nothing else", "[export]") {
  TempDir dir;
  const std::string prefix = (dir.path() / "run").string();
  CHECK_FALSE(outputsExist(prefix));
  // A file of another name that starts like it is not one of its outputs.
  std::ofstream(dir.path() / "run.old.txt") << "x";
  std::ofstream(dir.path() / "run.spill") << "x";
  CHECK_FALSE(outputsExist(prefix));

  Trace trace;
  testing::fillSampleTrace(trace);
  const ExportResult result = exportAll(trace, kFormatNative, prefix);
  REQUIRE(result.errors.empty());
  CHECK(outputsExist(prefix));
  CHECK_FALSE(outputsExist(prefix + ".7"));
  // Each kind of output alone counts: a split trace's first part, a gzip'd timeline.
  std::ofstream(dir.path() / "split.1.pftrace") << "x";
  CHECK(outputsExist((dir.path() / "split").string()));
  std::ofstream(dir.path() / "zipped.json.gz") << "x";
  CHECK(outputsExist((dir.path() / "zipped").string()));
}

TEST_CASE("untakenPrefix moves a trace whose name is taken to PREFIX.PID, and says so", "[export]") {
  TempDir dir;
  const std::string prefix = (dir.path() / "run").string();
  std::string message;
  CHECK(untakenPrefix(prefix, 42, &message) == prefix);
  CHECK(message.empty());
  std::ofstream(dir.path() / "run.json") << "x";
  CHECK(untakenPrefix(prefix, 42, &message) == prefix + ".42");
  CHECK_THAT(message, Catch::Contains("run.42.*") && Catch::Contains("exists already"));
  // Both taken: the name stays, and writing it says the file is kept.
  std::ofstream(dir.path() / "run.42.native") << "x";
  message.clear();
  CHECK(untakenPrefix(prefix, 42, &message) == prefix);
  CHECK(message.empty());
}

}  // namespace cuptitrace

namespace cuptitrace {

TEST_CASE("room for the outputs: what each holds, none for the native trace", "[export][spill]") {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  // The native trace is written from the records where they are.
  CHECK(exportRoomBytes(kFormatNative, false, 10'000'000, 16) == 0);
  // The timeline writers hold more with more threads, not with more records.
  CHECK(exportRoomBytes(kFormatJson, false, 1000, 16) > exportRoomBytes(kFormatJson, false, 1000, 2));
  CHECK(exportRoomBytes(kFormatJson, false, 10'000'000, 4) == exportRoomBytes(kFormatJson, false, 1000, 4));
  CHECK(exportRoomBytes(kFormatJson, false, 1000, 16) >= 300 * kMiB);  // spill_bench: +306 MiB
  CHECK(exportRoomBytes(kFormatPftrace, false, 1000, 16) >= 148 * kMiB);
  // SQLite, spill_bench: +40, +50, +71 MiB with 1, 4, 16 threads; with its indexes +56, +128, +214.
  ::unsetenv("CUPTITRACE_SQLITE_INDEXES");
  CHECK(exportRoomBytes(kFormatSqlite, false, 1000, 1) >= 40 * kMiB);
  CHECK(exportRoomBytes(kFormatSqlite, false, 1000, 4) >= 50 * kMiB);
  CHECK(exportRoomBytes(kFormatSqlite, false, 1000, 16) >= 71 * kMiB);
  const uint64_t plain = exportRoomBytes(kFormatSqlite, false, 1000, 16);
  ::setenv("CUPTITRACE_SQLITE_INDEXES", "1", 1);
  CHECK(exportRoomBytes(kFormatSqlite, false, 1000, 1) >= 56 * kMiB);
  CHECK(exportRoomBytes(kFormatSqlite, false, 1000, 4) >= 128 * kMiB);
  CHECK(exportRoomBytes(kFormatSqlite, false, 1000, 16) >= 214 * kMiB);
  CHECK(exportRoomBytes(kFormatSqlite, false, 1000, 16) > plain);
  ::unsetenv("CUPTITRACE_SQLITE_INDEXES");
  // Formats written at once add up; the reports take 8 bytes a record.
  const uint64_t both = exportRoomBytes(kFormatJson | kFormatPftrace, false, 1000, 4);
  CHECK(both == exportRoomBytes(kFormatJson, false, 1000, 4) + exportRoomBytes(kFormatPftrace, false, 1000, 4));
  CHECK(exportRoomBytes(kFormatNative, true, 10'000'000, 4) - exportRoomBytes(kFormatNative, true, 0, 4) ==
        80'000'000);
  // The HTML page is made of the reports.
  CHECK(exportRoomBytes(kFormatHtml, false, 10'000'000, 4) > exportRoomBytes(kFormatPftrace, false, 10'000'000, 4));
}

TEST_CASE("room for the outputs: records in memory go to the spill file, as much as asked", "[export][spill]") {
  TempDir dir;
  for (const uint64_t room : {uint64_t{0}, uint64_t{2} << 20}) {
    Trace t;
    t.store.setMaxBytes(uint64_t{4} << 20);
    enableSpillJournal(t, dir.path("room-" + std::to_string(room) + ".spill"), SpillMode::Auto);
    testing::initTrace(t);
    for (uint32_t corr = 1; corr <= 20000; ++corr) {
      testing::addApi(t, 1000 + 10 * corr, 1005 + 10 * corr, corr);
      testing::addKernel(t, 1006 + 10 * corr, 1009 + 10 * corr, corr);
    }
    const uint64_t before = t.store.spilledChunks();
    const uint64_t used = t.store.memoryInUse();
    makeRoomForExport(t, room);
    INFO("room " << room);
    if (room == 0) {
      CHECK(t.store.spilledChunks() == before);
    } else {
      CHECK(t.store.spilledChunks() > before);
      CHECK(t.store.memoryInUse() + room <= t.store.maxBytes());
      CHECK(t.store.memoryInUse() < used);
    }
  }
}

}  // namespace cuptitrace
