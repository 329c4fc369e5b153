#include "cli/rank_sqlite.h"

#include <sqlite3.h>

#include <memory>
#include <unordered_map>

namespace cuptitrace {
namespace {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

uint64_t u64(sqlite3_stmt* s, int column) {
  return sqlite3_column_type(s, column) == SQLITE_NULL ? 0 : static_cast<uint64_t>(sqlite3_column_int64(s, column));
}
std::string text(sqlite3_stmt* s, int column) {
  const unsigned char* t = sqlite3_column_text(s, column);
  return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t));
}

class SqliteRank {
 public:
  SqliteRank(sqlite3* db, const std::string& path, std::string& error) : db_(db), path_(path), error_(error) {}

  bool read(RankSummary& s) {
    s.file = path_;
    if (!metadata(s)) return false;
    RankSummaryBuilder b(s);
    std::unordered_map<int64_t, std::string> names;
    if (!each("SELECT start, end, deviceId, mangledName FROM CUPTI_ACTIVITY_KIND_KERNEL", [&](sqlite3_stmt* q) {
          const int64_t id = sqlite3_column_int64(q, 3);
          b.kernel(static_cast<uint32_t>(u64(q, 2)), u64(q, 0), u64(q, 1), static_cast<uint64_t>(id),
                   [&]() -> std::string_view { return name(id, names); });
        }))
      return false;
    for (const char* table : {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
      if (!each(std::string("SELECT start, end, deviceId FROM ") + table,
                [&](sqlite3_stmt* q) { b.copy(static_cast<uint32_t>(u64(q, 2)), u64(q, 0), u64(q, 1)); }))
        return false;
    // As Trace::totalDropped: every kind's drops (dropped.store.*) and the counters named dropped*.
    if (!each("SELECT count FROM CUPTITRACE_DROPS WHERE name LIKE 'dropped%'",
              [&](sqlite3_stmt* q) { s.dropped += u64(q, 0); }))
      return false;
    b.finish(0);
    return true;
  }

 private:
  bool fail(const std::string& what) {
    error_ = path_ + ": " + what + (db_ ? std::string(" (") + sqlite3_errmsg(db_) + ")" : "");
    return false;
  }
  template <typename Row>
  bool each(const std::string& sql, Row&& row) {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK)
      return fail("not a cuptitrace SQLite trace: cannot run '" + sql + "'");
    Statement q(raw);
    int rc;
    while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) row(q.get());
    return rc == SQLITE_DONE || fail("cannot read '" + sql + "'");
  }
  std::string_view name(int64_t id, std::unordered_map<int64_t, std::string>& names) {
    auto it = names.find(id);
    if (it != names.end()) return it->second;
    std::string value;
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT value FROM StringIds WHERE id = ?", -1, &raw, nullptr) == SQLITE_OK) {
      Statement q(raw);
      sqlite3_bind_int64(q.get(), 1, id);
      if (sqlite3_step(q.get()) == SQLITE_ROW) value = text(q.get(), 0);
    }
    return names.emplace(id, std::move(value)).first->second;
  }
  bool hasColumn(const char* table, const char* column) {
    bool found = false;
    each(std::string("PRAGMA table_info(") + table + ")", [&](sqlite3_stmt* q) { found = found || text(q, 1) == column; });
    return found;
  }
  bool metadata(RankSummary& s) {
    const bool withRank = hasColumn("CUPTITRACE_TRACES", "rank");
    const bool withWorld = hasColumn("CUPTITRACE_TRACES", "worldSize");
    int traces = 0;
    std::string sql = "SELECT hostName, processName, pid";
    sql += withRank ? ", rank" : ", NULL";
    sql += withWorld ? ", worldSize" : ", NULL";
    sql += " FROM CUPTITRACE_TRACES";
    if (!each(sql, [&](sqlite3_stmt* q) {
          ++traces;
          s.host = text(q, 0);
          s.processName = text(q, 1);
          s.pid = static_cast<uint32_t>(u64(q, 2));
          s.rank = sqlite3_column_type(q, 3) == SQLITE_NULL ? rankFromFileName(path_) : sqlite3_column_int64(q, 3);
          s.worldSize = static_cast<uint32_t>(u64(q, 4));
        }))
      return false;
    if (traces != 1) {
      error_ = path_ + ": holds " + std::to_string(traces) +
               " traces; the reports across ranks take one database per rank, as the tracer writes them";
      return false;
    }
    return true;
  }

  sqlite3* db_;
  const std::string& path_;
  std::string& error_;
};

}  // namespace

int64_t rankFromFileName(const std::string& path) {
  // The last ".DIGITS." of the name, before its extension: "dir/t.12.sqlite".
  const size_t slash = path.rfind('/');
  const std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0) return -1;
  const size_t before = name.rfind('.', dot - 1);
  if (before == std::string::npos) return -1;
  const std::string digits = name.substr(before + 1, dot - before - 1);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(digits);
}

bool summarizeSqliteRank(const std::string& path, RankSummary& summary, std::string& error) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    error = path + ": cannot open the SQLite database (" + (raw ? sqlite3_errmsg(raw) : "out of memory") + ")";
    return false;
  }
  return SqliteRank(db.get(), path, error).read(summary);
}

}  // namespace cuptitrace
