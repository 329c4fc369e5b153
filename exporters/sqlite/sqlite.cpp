#include "exporters/sqlite/sqlite.h"

#include <cstdlib>

#include "core/parse.h"
#include "core/version.h"
#include "core/file_output.h"
#include "core/writer_threads.h"
#include "exporters/sqlite/sqlite_db.h"
#include "exporters/sqlite/sqlite_parts.h"
#include "exporters/sqlite/sqlite_schema.h"
#include "exporters/sqlite/sqlite_tables.h"

namespace cuptitrace {

bool createSqliteTables(SqliteDb& db) {
  std::string sql;
  for (const SqliteTableSpec& t : sqliteTables())
    sql += std::string("CREATE TABLE ") + t.name + " (" + t.columns + ");\n";
  if (!db.exec(sql)) return false;
  for (const SqliteEnumTable& e : sqliteEnums()) {
    if (!db.exec(std::string("CREATE TABLE ") + e.table +
                 " (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT)"))
      return false;
    SqliteStatement s(db, sqliteInsert(e.table, {"id", "name", "label"}));
    if (!s.ok()) return false;
    for (const SqliteEnumRow& r : e.rows) {
      s.integer(1, r.id);
      s.text(2, r.name);
      s.text(3, r.label);
      if (!s.step()) return false;
    }
  }
  return true;
}

bool writeSqliteExportInfo(SqliteDb& db) {
  SqliteStatement s(db, sqliteInsert("META_DATA_EXPORT", {"name", "value"}));
  const std::pair<const char*, const char*> rows[] = {
      {"EXPORT_PRODUCT_NAME", "cuptitrace"},
      {"EXPORT_PRODUCT_VERSION", kVersion},
      {"EXPORT_SCHEMA_VERSION", kNsysSchemaVersion},
  };
  for (const auto& [name, value] : rows) {
    s.text(1, name);
    s.text(2, value);
    if (!s.step()) return false;
  }
  return true;
}

std::vector<SqliteTraceInput> sqliteInputs(const std::vector<SqliteSource>& sources) {
  std::vector<SqliteTraceInput> inputs(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    SqliteTraceInput& in = inputs[i];
    in.trace = sources[i].trace;
    in.file = sources[i].file;
    in.index = static_cast<uint32_t>(i);
    // Several traces meet on wall-clock time; one keeps its own clock.
    in.timeOffsetNs = sources.size() > 1 ? in.trace->meta.wallClockOffsetNs() : 0;
  }
  return inputs;
}

namespace {

std::string writeDatabase(const std::vector<SqliteSource>& sources, const std::string& tmpPath,
                          const std::string& path, bool indexes, uint64_t& rows) {
  SqliteDb db;
  bool ok = db.create(tmpPath) && db.exec("BEGIN") && createSqliteTables(db) && writeSqliteExportInfo(db);
  if (ok) {
    SqliteStrings strings(db);
    ok = strings.ok() && strings.id("") == 0;  // id 0 is the empty string, as our own tables have it
    std::vector<std::string> gpus;
    for (const SqliteTraceInput& in : sqliteInputs(sources)) {
      ok = ok && writeSqliteInfo(db, strings, in, gpus, rows) && writeSqliteRecords(db, strings, in, rows);
    }
  }
  for (size_t i = 0; ok && indexes && i < sqliteIndexes().size(); ++i) ok = db.exec(sqliteIndexes()[i]);
  ok = ok && db.exec("COMMIT");
  std::string error = ok ? std::string() : db.error();
  if (!db.close() && error.empty()) error = db.error();
  return error.empty() ? error : "cannot write " + path + ": " + error;
}

}  // namespace

bool sqliteIndexesSetting() {
  const char* value = std::getenv("CUPTITRACE_SQLITE_INDEXES");
  return value != nullptr && parseBool(value).value_or(false);
}

SqliteResult writeSqlite(const std::vector<SqliteSource>& sources, const std::string& path, bool overwrite,
                         unsigned threads, bool indexes) {
  SqliteResult result;
  if (threads == 0) threads = writerThreads();
  result.error = writeFileSafelyAt(
      path,
      [&](const std::string& tmpPath) {
        return threads >= kSqlitePartThreads
                   ? writeSqliteParts(sources, tmpPath, path, threads, indexes, result.rows)
                   : writeDatabase(sources, tmpPath, path, indexes, result.rows);
      },
      overwrite);
  return result;
}

}  // namespace cuptitrace
