#include "exporters/sqlite/sqlite.h"

#include "core/version.h"
#include "core/file_output.h"
#include "exporters/sqlite/sqlite_db.h"
#include "exporters/sqlite/sqlite_schema.h"
#include "exporters/sqlite/sqlite_tables.h"

namespace cuptitrace {
namespace {

bool createTables(SqliteDb& db) {
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

bool writeExportInfo(SqliteDb& db) {
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

std::string writeDatabase(const std::vector<SqliteSource>& sources, const std::string& tmpPath,
                          const std::string& path, uint64_t& rows) {
  SqliteDb db;
  bool ok = db.create(tmpPath) && db.exec("BEGIN") && createTables(db) && writeExportInfo(db);
  if (ok) {
    SqliteStrings strings(db);
    ok = strings.ok() && strings.id("") == 0;  // id 0 is the empty string, as our own tables have it
    std::vector<std::string> gpus;
    for (size_t i = 0; ok && i < sources.size(); ++i) {
      SqliteTraceInput in;
      in.trace = sources[i].trace;
      in.file = sources[i].file;
      in.index = static_cast<uint32_t>(i);
      // Several traces meet on wall-clock time; one keeps its own clock.
      in.timeOffsetNs = sources.size() > 1 ? in.trace->meta.wallClockOffsetNs() : 0;
      ok = writeSqliteInfo(db, strings, in, gpus, rows) && writeSqliteRecords(db, strings, in, rows);
    }
  }
  for (size_t i = 0; ok && i < sqliteIndexes().size(); ++i) ok = db.exec(sqliteIndexes()[i]);
  ok = ok && db.exec("COMMIT");
  std::string error = ok ? std::string() : db.error();
  if (!db.close() && error.empty()) error = db.error();
  return error.empty() ? error : "cannot write " + path + ": " + error;
}

}  // namespace

SqliteResult writeSqlite(const std::vector<SqliteSource>& sources, const std::string& path, bool overwrite) {
  SqliteResult result;
  result.error = writeFileSafelyAt(
      path, [&](const std::string& tmpPath) { return writeDatabase(sources, tmpPath, path, result.rows); },
      overwrite);
  return result;
}

}  // namespace cuptitrace
