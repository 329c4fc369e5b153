#include "exporters/sqlite/sqlite_db.h"

#include <sqlite3.h>

#include "core/utf8.h"

namespace cuptitrace {

SqliteDb::~SqliteDb() { close(); }

void SqliteDb::setError(std::string_view what) {
  error_ = std::string(what);
  if (db_ != nullptr) error_ += std::string(": ") + sqlite3_errmsg(db_);
}

bool SqliteDb::create(const std::string& path, unsigned cacheKiB) {
  // Our SQLite is our own (linked in, hidden): its allocation statistics,
  // which every allocation of every thread updates under one lock, are
  // never read. Off before its first use (later, the call changes nothing).
  static const int statistics = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)statistics;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    setError("cannot create database");
    return false;
  }
  // The file is written once, by one writer, and renamed into place only when
  // complete: a journal or an fsync per page would protect nothing. The page
  // cache is bounded and index sorts spill to temporary files, not memory:
  // this runs inside the traced program, whatever the trace's size.
  return exec(
      "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
      "PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=FILE; PRAGMA cache_size=-" +
      std::to_string(cacheKiB) + ";");
}

bool SqliteDb::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return true;
  error_ = std::string("SQLite: ") + (message ? message : "error") + " in: " + sql.substr(0, 120);
  sqlite3_free(message);
  return false;
}

bool SqliteDb::close() {
  if (db_ == nullptr) return true;
  const bool ok = sqlite3_close(db_) == SQLITE_OK;
  if (!ok) {
    setError("cannot close database");
    sqlite3_close_v2(db_);
  }
  db_ = nullptr;
  return ok;
}

SqliteStatement::SqliteStatement(SqliteDb& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v3(db.handle(), sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt_, nullptr) != SQLITE_OK) {
    db.setError("cannot prepare '" + sql.substr(0, 120) + "'");
    stmt_ = nullptr;
  }
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

void SqliteStatement::integer(int column, int64_t value) { sqlite3_bind_int64(stmt_, column, value); }
void SqliteStatement::unsignedInteger(int column, uint64_t value) {
  sqlite3_bind_int64(stmt_, column, static_cast<int64_t>(value));
}
void SqliteStatement::real(int column, double value) { sqlite3_bind_double(stmt_, column, value); }
void SqliteStatement::text(int column, std::string_view value) {
  // A TEXT value must be UTF-8 (the database's encoding): SQLite stores
  // whatever it is given, and readers then fail to decode it (Python's
  // sqlite3 raises on the row). Names as recorded may hold any bytes, so each
  // invalid sequence becomes U+FFFD, as in the JSON; SQLite copies that text
  // (SQLITE_TRANSIENT), since it is ours only until this returns.
  if (!isValidUtf8(value)) {
    const std::string valid = validUtf8(value);
    sqlite3_bind_text(stmt_, column, valid.data(), static_cast<int>(valid.size()), SQLITE_TRANSIENT);
    return;
  }
  // SQLITE_STATIC: the text outlives the step() that follows (no copy).
  sqlite3_bind_text(stmt_, column, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
}
void SqliteStatement::null(int column) { sqlite3_bind_null(stmt_, column); }

bool SqliteStatement::step() {
  if (stmt_ == nullptr) return false;
  const int rc = sqlite3_step(stmt_);
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  if (rc == SQLITE_DONE) return true;
  db_.setError("SQLite insert failed");
  return false;
}

}  // namespace cuptitrace
