// The SQLite output, read back with SQLite itself: Nsight's tables and
// columns, names through StringIds, global ids, several traces in one
// database; and (tagged [python]) Nsight's documented example queries run by
// Python's sqlite3 (and pandas when installed) against what the trace holds.
#include <sqlite3.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/config.h"
#include "core/demangle.h"
#include "exporters/export_all.h"
#include "exporters/sqlite/sqlite.h"
#include "exporters/sqlite/sqlite_schema.h"
#include "exporters/sqlite/sqlite_tables.h"
#include "temp_dir.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

namespace fs = std::filesystem;
using testing::fillSampleTrace;
using testing::kSamplePid;
using testing::TempDir;

// A read-only connection and one-value queries.
class Db {
 public:
  explicit Db(const std::string& path) {
    REQUIRE(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  }
  ~Db() { sqlite3_close(db_); }
  std::vector<std::vector<std::string>> rows(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    INFO(sql);
    REQUIRE(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
    std::vector<std::vector<std::string>> out;
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int c = 0; c < sqlite3_column_count(s); ++c) {
        const auto* text = sqlite3_column_text(s, c);
        row.push_back(text ? reinterpret_cast<const char*>(text) : "NULL");
      }
      out.push_back(row);
    }
    sqlite3_finalize(s);
    return out;
  }
  std::string one(const std::string& sql) {
    const auto r = rows(sql);
    REQUIRE(r.size() == 1);
    return r[0][0];
  }
  int64_t count(const std::string& sql) { return std::stoll(one(sql)); }

 private:
  sqlite3* db_ = nullptr;
};

template <typename T>
int64_t countOf(const Trace& t) {
  return static_cast<int64_t>(t.store.records<T>().size());
}

TEST_CASE("kernel short names drop return type, namespaces, templates and parameters", "[sqlite]") {
  CHECK(kernelShortName("vectorAdd(const float*, const float*, float*, int)") == "vectorAdd");
  CHECK(kernelShortName("void at::native::elementwise_kernel<128, 4, F>(int, F)") == "elementwise_kernel");
  CHECK(kernelShortName("void gemm<cutlass::A<1>, float>(int)") == "gemm");
  CHECK(kernelShortName("ampere_sgemm_128x64_nn") == "ampere_sgemm_128x64_nn");
  CHECK(kernelShortName("_Z3addPfS_S_i") == "_Z3addPfS_S_i");
}

TEST_CASE("global ids pack the pid and tid as Nsight does", "[sqlite]") {
  constexpr uint64_t tid = sqliteGlobalTid(2, 4242, 4243);
  CHECK(tid / 0x1000000 % 0x1000000 == 4242);
  CHECK(tid % 0x1000000 == 4243);
  CHECK((tid >> 48) == 2);
  CHECK(sqliteGlobalPid(0, 4242) == uint64_t{4242} << 24);
}

TEST_CASE("sqlite output holds every record in Nsight's tables", "[sqlite]") {
  TempDir dir;
  Trace t;
  fillSampleTrace(t);
  const std::string path = (dir.path() / "trace.sqlite").string();
  const SqliteResult r = writeSqlite(t, path, false);
  REQUIRE(r.error.empty());
  Db db(path);

  CHECK(db.count("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") == countOf<KernelRecord>(t));
  CHECK(db.count("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY") == countOf<MemcpyRecord>(t));
  CHECK(db.count("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMSET") == countOf<MemsetRecord>(t));
  CHECK(db.count("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME") == countOf<ApiRecord>(t));
  CHECK(db.count("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION") == countOf<SyncRecord>(t));
  CHECK(db.count("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_OVERHEAD") == countOf<OverheadRecord>(t));
  // NVTX: every record, plus one NvtxDomainCreate per named domain.
  CHECK(db.count("SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType != 75") == countOf<NvtxRecord>(t));
  CHECK(db.rows("SELECT text, domainId FROM NVTX_EVENTS WHERE eventType = 75") ==
        std::vector<std::vector<std::string>>{{"my domain", "1"}});

  // Names through StringIds: demangled, short and mangled.
  const StringId longName = t.store.records<KernelRecord>()[1].name;
  const std::string demangled = demangle(t.strings.get(longName));
  CHECK(db.one("SELECT d.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON d.id = k.demangledName "
               "WHERE k.correlationId = 12") == demangled);
  CHECK(db.one("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
               "WHERE k.correlationId = 12") == "gemm");
  CHECK(db.one("SELECT m.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds m ON m.id = k.mangledName "
               "WHERE k.correlationId = 11") == testing::kHostileKernelName);
  // Times in ns on the trace's clock, as recorded.
  const KernelRecord& k0 = t.store.records<KernelRecord>()[0];
  CHECK(db.one("SELECT start || ',' || end FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 11") ==
        std::to_string(k0.start) + "," + std::to_string(k0.end));

  // Runtime and driver calls in one table, told apart by eventClass.
  CHECK(db.count("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN ENUM_NSYS_EVENT_CLASS c "
                 "ON c.id = r.eventClass WHERE c.label = 'CUDA driver'") == 1);
  // globalPid / globalTid: the process and thread.
  CHECK(db.count("SELECT DISTINCT globalPid / 0x1000000 % 0x1000000 FROM CUPTI_ACTIVITY_KIND_KERNEL") == kSamplePid);
  CHECK(db.count("SELECT COUNT(DISTINCT globalTid % 0x1000000) FROM CUPTI_ACTIVITY_KIND_RUNTIME") == 2);
  CHECK(db.one("SELECT name FROM PROCESSES WHERE pid = " + std::to_string(kSamplePid)) == "sample_app");
  CHECK(db.one("SELECT s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId") == "worker");

  // Enum tables the columns refer to.
  CHECK(db.rows("SELECT e.label, s.label, d.label FROM CUPTI_ACTIVITY_KIND_MEMCPY m "
                "JOIN ENUM_CUDA_MEMCPY_OPER e ON e.id = m.copyKind JOIN ENUM_CUDA_MEM_KIND s ON s.id = m.srcKind "
                "JOIN ENUM_CUDA_MEM_KIND d ON d.id = m.dstKind ORDER BY m.start") ==
        std::vector<std::vector<std::string>>{{"Host-to-Device", "Pinned", "Device"},
                                              {"Device-to-Host", "Device", "Pageable"}});
  CHECK(db.one("SELECT e.label FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION y JOIN ENUM_CUPTI_SYNC_TYPE e "
               "ON e.id = y.syncType") == "Stream sync");
  // Not applicable is NULL, never CUPTI's 0xffffffff.
  CHECK(db.one("SELECT eventId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION") == "NULL");

  // NVTX: text, color, category, payload-free ranges, the start/end range's two threads, marks without end.
  CHECK(db.one("SELECT color FROM NVTX_EVENTS WHERE text = 'outer'") == std::to_string(0xFF00FF00u));
  CHECK(db.one("SELECT category FROM NVTX_EVENTS WHERE domainId = 1 AND eventType = 59") == "3");
  CHECK(db.one("SELECT text FROM NVTX_EVENTS WHERE domainId = 1 AND eventType = 59") == testing::kUtf8Message);
  CHECK(db.one("SELECT domainId FROM NVTX_EVENTS WHERE text = 'outer'") == "0");
  CHECK(db.one("SELECT rangeId || ',' || (globalTid % 0x1000000) || ',' || (endGlobalTid % 0x1000000) "
               "FROM NVTX_EVENTS WHERE eventType = 60") == "77,4242,4243");
  CHECK(db.one("SELECT end FROM NVTX_EVENTS WHERE eventType = 34") == "NULL");

  // Devices and what the trace says of itself.
  CHECK(db.one("SELECT name || ',' || smCount || ',' || computeMajor FROM TARGET_INFO_GPU") ==
        "NVIDIA H100 80GB HBM3,132,9");
  CHECK(db.one("SELECT pid FROM TARGET_INFO_CUDA_DEVICE") == std::to_string(kSamplePid));
  CHECK(db.one("SELECT value FROM CUPTITRACE_CONFIG WHERE name = 'CUPTITRACE_FORMAT'") == "json");
  CHECK(db.one("SELECT count FROM CUPTITRACE_DROPS WHERE name = 'dropped.store.kernel'") == "0");
  CHECK(db.one("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_NAME'") == "cuptitrace");
  CHECK(db.one("SELECT value FROM StringIds WHERE id = 0") == "");
  CHECK(r.rows > static_cast<uint64_t>(countOf<KernelRecord>(t) + countOf<ApiRecord>(t)));
}

TEST_CASE("sqlite output keeps unusual launches and drops", "[sqlite]") {
  TempDir dir;
  Trace t;
  testing::initTrace(t);
  testing::addUsualAndUnusualLaunch(t);
  t.store.addDropped(RecordKind::Kernel, 5);
  const std::string path = (dir.path() / "t.sqlite").string();
  REQUIRE(writeSqlite(t, path, false).error.empty());
  Db db(path);
  CHECK(db.one("SELECT graphId || ',' || graphNodeId || ',' || launchType FROM CUPTI_ACTIVITY_KIND_KERNEL "
               "WHERE correlationId = 2") == "3,44,2");  // Nsight's Coop Single Device
  CHECK(db.one("SELECT e.label FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN ENUM_CUDA_KERNEL_LAUNCH_TYPE e "
               "ON e.id = k.launchType WHERE correlationId = 1") == "Regular");
  CHECK(db.one("SELECT graphId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 1") == "NULL");
  CHECK(db.one("SELECT returnValue FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId = 2") == "719");
  CHECK(db.one("SELECT graphNodeId FROM CUPTITRACE_GRAPH_NODES") == "44");
  CHECK(db.one("SELECT count FROM CUPTITRACE_DROPS WHERE name = 'dropped.store.kernel'") == "5");
}

TEST_CASE("several traces in one database keep their processes apart", "[sqlite]") {
  TempDir dir;
  Trace a, b;
  fillSampleTrace(a);
  fillSampleTrace(b);  // the same pid: another host, or a reused pid
  b.meta.hostName = "otherhost";
  a.meta.realtimeOffsetNs = 1000;
  b.meta.realtimeOffsetNs = 5000;
  const std::string path = (dir.path() / "merged.sqlite").string();
  REQUIRE(writeSqlite({{&a, "a.native"}, {&b, "b.native"}}, path, false).error.empty());
  Db db(path);
  CHECK(db.count("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") == 2 * countOf<KernelRecord>(a));
  CHECK(db.count("SELECT COUNT(DISTINCT globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL") == 2);
  CHECK(db.count("SELECT COUNT(DISTINCT globalPid / 0x1000000 % 0x1000000) FROM CUPTI_ACTIVITY_KIND_KERNEL") == 1);
  CHECK(db.count("SELECT COUNT(*) FROM PROCESSES") == 2);
  // Names are shared: each string once.
  CHECK(db.count("SELECT COUNT(*) FROM StringIds WHERE value = 'cudaLaunchKernel'") == 1);
  // Each trace on wall-clock time by its own offset.
  const uint64_t start = a.store.records<KernelRecord>()[0].start;
  CHECK(db.rows("SELECT start, file FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTITRACE_TRACES t "
                "ON t.globalPid = k.globalPid WHERE correlationId = 11 ORDER BY start") ==
        std::vector<std::vector<std::string>>{{std::to_string(start + 1000), "a.native"},
                                              {std::to_string(start + 5000), "b.native"}});
  // A launch joins only its own process's call.
  CHECK(db.count("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                 "ON k.correlationId = r.correlationId AND k.globalPid = (r.globalTid & ~0xFFFFFF)") ==
        2 * 4);  // per trace: kernel 11 has a runtime and a driver call, 12 and 13 one each
  // One GPU per host.
  CHECK(db.count("SELECT COUNT(*) FROM TARGET_INFO_GPU") == 2);
}

TEST_CASE("sqlite: the documented join of kernels and calls finds each call by an index", "[sqlite]") {
  // The example query of docs/sqlite.md ("each kernel with the API call that
  // launched it"): it scans the kernels and looks up each one's call by its
  // correlation id, through the index the writer builds when asked
  // (CUPTITRACE_SQLITE_INDEXES=1), not through one that SQLite would build
  // for every run of the query (AUTOMATIC); without it, through SQLite's.
  TempDir dir;
  Trace t;
  fillSampleTrace(t);
  const std::string join =
      "SELECT kn.value AS kernel, an.value AS api, r.start, k.start, "
      "k.globalPid / 0x1000000 % 0x1000000 AS pid, r.globalTid % 0x1000000 AS tid "
      "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r "
      "ON k.correlationId = r.correlationId "
      "AND k.globalPid / 0x1000000 % 0x1000000 = r.globalTid / 0x1000000 % 0x1000000 "
      "JOIN StringIds AS kn ON kn.id = k.demangledName JOIN StringIds AS an ON an.id = r.nameId";
  for (const bool indexes : {true, false}) {
    const std::string path = (dir.path() / (indexes ? "indexed.sqlite" : "plain.sqlite")).string();
    REQUIRE(writeSqlite(t, path, false, 1, indexes).error.empty());
    Db db(path);
    std::string plan;
    for (const auto& step : db.rows("EXPLAIN QUERY PLAN " + join)) plan += step.back() + "; ";
    INFO(plan);
    CHECK(db.count("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'") == (indexes ? 3 : 0));
    CHECK((plan.find("USING INDEX CUPTITRACE_RUNTIME_CORRELATION") != std::string::npos) == indexes);
    CHECK((plan.find("AUTOMATIC") != std::string::npos) == !indexes);
    // Every kernel of the sample was launched by a call it finds (kernel 11
    // by a runtime and a driver call).
    CHECK(db.rows(join).size() == static_cast<size_t>(countOf<KernelRecord>(t)) + 1);
  }
}

TEST_CASE("sqlite: indexes only when CUPTITRACE_SQLITE_INDEXES says so", "[sqlite]") {
  ::unsetenv("CUPTITRACE_SQLITE_INDEXES");
  CHECK_FALSE(sqliteIndexesSetting());
  for (const char* on : {"1", "yes", "on", "true"}) {
    ::setenv("CUPTITRACE_SQLITE_INDEXES", on, 1);
    CHECK(sqliteIndexesSetting());
  }
  for (const char* off : {"0", "no", "off", "sometimes"}) {
    ::setenv("CUPTITRACE_SQLITE_INDEXES", off, 1);
    CHECK_FALSE(sqliteIndexesSetting());
  }
  // The setting is the default of every writer: at exit, convert and merge.
  TempDir dir;
  Trace t;
  fillSampleTrace(t);
  ::setenv("CUPTITRACE_SQLITE_INDEXES", "1", 1);
  const std::string path = (dir.path() / "t.sqlite").string();
  REQUIRE(writeSqlite(t, path, false).error.empty());
  ::unsetenv("CUPTITRACE_SQLITE_INDEXES");
  CHECK(Db(path).count("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'") == 3);
}

TEST_CASE("sqlite output is written safely and selected by the format list", "[sqlite]") {
  TempDir dir;
  Trace t;
  fillSampleTrace(t);
  const std::string prefix = (dir.path() / "run").string();
  const ExportResult first = exportAll(t, kFormatSqlite, prefix);
  REQUIRE(first.errors.empty());
  REQUIRE(first.written == std::vector<std::string>{prefix + ".sqlite"});
  const ExportResult again = exportAll(t, kFormatSqlite, prefix);
  REQUIRE(again.errors.size() == 1);
  CHECK(again.errors[0].find("already exists") != std::string::npos);
  CHECK(exportAll(t, kFormatSqlite, prefix, true).errors.empty());
  // No temporary file is left beside it.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) files += e.is_regular_file() ? 1 : 0;
  CHECK(files == 1);
  std::vector<std::string> messages;
  const Config c = parseConfig(
      [](const char* n) { return std::string(n) == "CUPTITRACE_FORMAT" ? "sqlite,json" : nullptr; }, messages);
  CHECK(messages.empty());
  CHECK(c.formats == (kFormatSqlite | kFormatJson));
}

// What the trace holds, as check_sqlite.py compares it.
nlohmann::json expectations(const Trace& t) {
  DemangleCache demangler;
  std::map<std::string, int> kernels, pairs, ranges, marks;
  std::multimap<uint32_t, std::string> apis;
  t.store.records<ApiRecord>().forEach([&](const ApiRecord& a) {
    if (a.domain != static_cast<uint8_t>(ApiDomain::Osrt)) apis.emplace(a.correlationId, std::string(t.strings.get(a.name)));
  });
  t.store.records<KernelRecord>().forEach([&](const KernelRecord& k) {
    const std::string name = demangler.get(t.strings.get(k.name));
    ++kernels[name];
    for (auto [it, end] = apis.equal_range(k.correlationId); it != end; ++it) ++pairs[name + "|" + it->second];
  });
  t.store.records<NvtxRecord>().forEach([&](const NvtxRecord& n) {
    auto& into = n.type == static_cast<uint8_t>(NvtxType::Mark) ? marks : ranges;
    ++into[std::string(t.strings.get(n.message))];
  });
  return {{"pid", t.meta.pid}, {"kernels", kernels}, {"launch_pairs", pairs}, {"nvtx_ranges", ranges},
          {"nvtx_marks", marks}};
}

// Run by CTest with CUPTITRACE_PYTHON set (tests/unit/CMakeLists.txt).
TEST_CASE("Nsight's example queries on the sqlite output, run by python3", "[.sqlite-python]") {
  const char* python = std::getenv("CUPTITRACE_PYTHON");
  REQUIRE(python != nullptr);
  TempDir dir;
  Trace t;
  fillSampleTrace(t);
  // More than one of each, so counts are tested, not just presence.
  for (uint32_t i = 0; i < 50; ++i) {
    const uint64_t s = t.meta.baseTimestampNs + 100'000 + i * 1000;
    testing::addApi(t, s, s + 100, 1000 + i);
    testing::addKernel(t, s + 200, s + 700, 1000 + i, 7, i % 2 ? "_Z3addPfS_S_i" : "_Z5scaleIfEvPT_i");
  }
  const std::string db = (dir.path() / "t.sqlite").string();
  REQUIRE(writeSqlite(t, db, false).error.empty());
  const std::string expect = (dir.path() / "expect.json").string();
  std::ofstream(expect) << expectations(t).dump();
  const std::string command = std::string(python) + " " + CUPTITRACE_SOURCE_DIR "/tests/gpu/check_sqlite.py " +
                              db + " " + expect;
  INFO(command);
  CHECK(std::system(command.c_str()) == 0);
  // The GPU test's way: expectations from the same trace's CSV tables.
  const std::string prefix = (dir.path() / "t").string();
  REQUIRE(exportAll(t, kFormatCsv, prefix).errors.empty());
  const std::string fromCsv = std::string(python) + " " + CUPTITRACE_SOURCE_DIR "/tests/gpu/check_sqlite.py " +
                              db + " --csv " + prefix;
  INFO(fromCsv);
  CHECK(std::system(fromCsv.c_str()) == 0);
  // And a check that can fail does: one kernel fewer in the database.
  const std::string broken = (dir.path() / "broken.sqlite").string();
  t.store.mutableRecords<KernelRecord>().truncate(t.store.records<KernelRecord>().size() - 1);
  REQUIRE(writeSqlite(t, broken, false).error.empty());
  const std::string mismatch = std::string(python) + " " + CUPTITRACE_SOURCE_DIR "/tests/gpu/check_sqlite.py " +
                               broken + " " + expect + " > /dev/null";
  CHECK(std::system(mismatch.c_str()) != 0);
}

}  // namespace
}  // namespace cuptitrace
