// OpenACC records in the SQLite output: Nsight's table names, and the query
// Nsight users run to name events as nvprof does (event@file:line).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "exporters/sqlite/sqlite.h"
#include "openacc_fixture.h"
#include "sqlite_query.h"
#include "temp_dir.h"

namespace cuptitrace {
namespace {

using testing::TempDir;
using testing::sqlite::query;
using testing::sqlite::Rows;

}  // namespace

TEST_CASE("sqlite output of OpenACC events, in Nsight's tables", "[sqlite]") {
  const TempDir dir;
  Trace t;
  testing::openAccTrace(t);
  const std::string path = dir.path("acc.sqlite");
  const SqliteResult result = writeSqlite(t, path, false);
  INFO(result.error);
  REQUIRE(result.error.empty());
  CHECK(query(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_OPENACC_DATA")[0][0] == "4");
  CHECK(query(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH")[0][0] == "1");
  CHECK(query(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_OPENACC_OTHER")[0][0] == "4");
  // Names as nvprof gives them, from the columns Nsight's OpenACC queries read.
  const Rows named = query(path,
                           "SELECT n.value || '@' || f.value || ':' || lineNo, e.label, "
                           "globalTid / 0x1000000 % 0x1000000, globalTid % 0x1000000, k.value, numGangs "
                           "FROM CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH "
                           "JOIN StringIds n ON n.id = nameId JOIN StringIds f ON f.id = srcFile "
                           "JOIN StringIds k ON k.id = kernelName "
                           "JOIN ENUM_OPENACC_EVENT_KIND e ON e.id = eventKind");
  REQUIRE(named.size() == 1);
  CHECK(named[0] == std::vector<std::string>{"acc_enqueue_launch@/home/me/src/layers_acc.c:53", "Enqueue launch",
                                             std::to_string(testing::kAccPid), std::to_string(testing::kAccTid),
                                             "saxpy$_omp_fn$0", "0"});
  const Rows vars = query(path,
                          "SELECT v.value, externalId FROM CUPTI_ACTIVITY_KIND_OPENACC_DATA "
                          "JOIN StringIds v ON v.id = varName WHERE eventKind = 5 ORDER BY start");
  CHECK(vars == Rows{{"x[:n]", "1"}, {"y[:n]", "2"}});
  const Rows implicitWait = query(path, "SELECT implicit FROM CUPTI_ACTIVITY_KIND_OPENACC_OTHER WHERE eventKind = 7");
  CHECK(implicitWait == Rows{{"1"}});
}

}  // namespace cuptitrace
