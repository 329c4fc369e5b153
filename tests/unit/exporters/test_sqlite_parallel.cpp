// The SQLite output written by several threads (sqlite_parts.h) holds the
// rows one thread writes: every table's rows with their rowids, the same
// string ids, the same schema; its parts are copied by SQLite's transfer
// optimization, and no part file is left behind.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/file_output.h"
#include "exporters/sqlite/sqlite.h"
#include "exporters/sqlite/sqlite_parts.h"
#include "exporters/sqlite/sqlite_schema.h"
#include "every_kind_fixture.h"
#include "sqlite_query.h"
#include "temp_dir.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

using testing::TempDir;
using testing::sqlite::query;
using testing::sqlite::contents;
using testing::sqlite::Rows;

size_t rowCount(const std::vector<Rows>& c) {
  size_t n = 0;
  for (const Rows& r : c) n += r.size();
  return n;
}

// Writes `sources` with `threads` threads, the tables cut as `sizes` says.
std::string writeParts(const std::vector<SqliteSource>& sources, const std::string& path, unsigned threads,
                       bool indexes, const SqlitePieceSizes& sizes) {
  uint64_t rows = 0;
  return writeFileSafelyAt(
      path,
      [&](const std::string& tmp) { return writeSqliteParts(sources, tmp, path, threads, indexes, rows, sizes); },
      true);
}

size_t filesIn(const TempDir& dir) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) n += entry.is_regular_file();
  return n;
}

}  // namespace

TEST_CASE("sqlite output by several threads holds the rows one thread writes", "[sqlite][parallel]") {
  const TempDir dir;
  Trace a, b, c;
  testing::fillEveryKind(a, 5000);
  testing::fillEveryKind(b, 500, 7'000'000);
  b.meta.pid = 5151;
  // Kernels and their calls alone: most tables (some indexed) empty.
  testing::initTrace(c);
  for (uint32_t i = 0; i < 3000; ++i) {
    testing::addApi(c, 2000 + i * 100ull, 2050 + i * 100ull, i + 1);
    testing::addKernel(c, 2060 + i * 100ull, 2090 + i * 100ull, i + 1);
  }
  // With the indexes and without (the default).
  bool indexes = false;
  for (const std::vector<SqliteSource>& sources :
       {std::vector<SqliteSource>{{&a, ""}}, std::vector<SqliteSource>{{&a, "a.native"}, {&b, "b.native"}},
        std::vector<SqliteSource>{{&c, ""}}, std::vector<SqliteSource>{{&a, ""}}}) {
    indexes = !indexes;
    const std::string one = dir.path("one.sqlite");
    const SqliteResult serial = writeSqlite(sources, one, true, 1, indexes);
    REQUIRE(serial.error.empty());
    const std::vector<Rows> expected = contents(one);
    REQUIRE(rowCount(expected) > 6000);
    for (const unsigned threads : {2u, 3u, 8u}) {
      // Every table apart, in pieces that cross the store's chunks or not;
      // the large ones only; none (the default sizes, for this trace).
      for (const SqlitePieceSizes sizes : {SqlitePieceSizes{1, 97}, SqlitePieceSizes{1, 1000},
                                           SqlitePieceSizes{1000, 4096}, SqlitePieceSizes{}}) {
        const std::string many = dir.path("many.sqlite");
        const std::string error = writeParts(sources, many, threads, indexes, sizes);
        INFO(error);
        REQUIRE(error.empty());
        INFO(sources.size() << " traces, " << threads << " threads, indexes " << indexes << ", tables of " << sizes.partRows
                            << " rows apart in pieces of " << sizes.pieceRecords);
        CHECK(contents(many) == expected);
        std::remove(many.c_str());
      }
    }
    // Through the public entry, which counts the same rows.
    const std::string many = dir.path("many.sqlite");
    const SqliteResult parallel = writeSqlite(sources, many, true, 4, indexes);
    REQUIRE(parallel.error.empty());
    CHECK(parallel.rows == serial.rows);
    CHECK(contents(many) == expected);
    std::printf("sqlite: %zu traces, %zu rows of %zu tables the same by 1, 2, 3, 8 threads\n", sources.size(),
                rowCount(expected), expected.size() / 2);
  }
  // Only the outputs are left: every part's file was removed.
  CHECK(filesIn(dir) == 2);
}

TEST_CASE("sqlite pieces are copied by SQLite's transfer optimization", "[sqlite][parallel]") {
  // An output and a piece database with every table, as the writers make
  // them (the indexes come after the pieces); the copy of each table must
  // move the records as they are (OP_RowData), never decode columns
  // (OP_Column), into a table that holds rows already.
  const TempDir dir;
  const std::string main = dir.path("main.sqlite"), part = dir.path("part.sqlite");
  for (const std::string& file : {main, part}) {
    SqliteDb db;
    REQUIRE(db.create(file));
    REQUIRE(createSqliteTables(db));
  }
  SqliteDb db;
  REQUIRE(db.create(dir.path("probe.sqlite")));
  REQUIRE(db.exec("ATTACH DATABASE '" + main + "' AS main2"));
  REQUIRE(db.exec("ATTACH DATABASE '" + part + "' AS part"));
  size_t checked = 0;
  for (const SqliteTableSpec& table : sqliteTables()) {
    const std::string sql =
        std::string("EXPLAIN INSERT INTO main2.") + table.name + " SELECT * FROM part." + table.name;
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
    bool rowData = false, column = false, emptyOnly = false;
    // The transfer, then (were it only for an empty table) the usual
    // row-by-row insert, after its Halt with SQLITE_OK. (A Halt with an
    // error code is a constraint's.)
    while (sqlite3_step(s) == SQLITE_ROW) {
      const std::string op = reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
      if (op == "Halt" && sqlite3_column_int(s, 2) == SQLITE_OK) break;
      rowData |= op == "RowData";
      column |= op == "Column";
      // A test of the destination (cursor 1) being empty, before the copy.
      emptyOnly |= op == "Rewind" && !rowData && sqlite3_column_int(s, 2) == 1;
    }
    sqlite3_finalize(s);
    INFO(table.name);
    CHECK(rowData);
    CHECK_FALSE(column);
    CHECK_FALSE(emptyOnly);
    ++checked;
  }
  CHECK(checked == sqliteTables().size());
}

}  // namespace cuptitrace
