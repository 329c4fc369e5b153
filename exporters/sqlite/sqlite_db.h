// A thin RAII layer over the SQLite C library for the SQLite exporter: one
// database, prepared statements with positional binds, and errors as text
// (never exceptions: the exporter runs inside the traced program at exit).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace cuptitrace {

class SqliteStatement;

// The page cache of a database written (16 MiB): the output's, whose
// indexes are sorted in it.
inline constexpr unsigned kSqliteCacheKiB = 16384;

class SqliteDb {
 public:
  SqliteDb() = default;
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Creates a new database file at `path` (which must not exist), tuned for
  // one bulk load: no rollback journal and no fsync until the end (a file
  // that is half written is removed by the caller, never left in place),
  // a page cache of at most `cacheKiB`.
  bool create(const std::string& path, unsigned cacheKiB = kSqliteCacheKiB);
  // Runs one or more statements without results.
  bool exec(const std::string& sql);
  // The last error, naming what failed.
  const std::string& error() const { return error_; }
  void setError(std::string_view what);
  sqlite3* handle() const { return db_; }
  // Closes the database; false (and error()) when the last writes failed.
  bool close();

 private:
  sqlite3* db_ = nullptr;
  std::string error_;
};

// A prepared statement. Binds are 1-based like SQLite's; a column left
// unbound is NULL. step() runs it once and resets it for the next row.
class SqliteStatement {
 public:
  SqliteStatement(SqliteDb& db, const std::string& sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  void integer(int column, int64_t value);
  void unsignedInteger(int column, uint64_t value);  // stored as its 64-bit pattern
  void real(int column, double value);
  void text(int column, std::string_view value);  // must stay valid until step()
  void null(int column);
  // Runs the statement; false (and the database's error()) on failure.
  bool step();

 private:
  SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace cuptitrace
