// Writes one trace's records and descriptions into an open SQLite database
// with the tables of sqlite_schema.h. Used by exporters/sqlite/sqlite.cpp, once per
// trace, inside one transaction, and by sqlite_parts.cpp, which has each
// large table written by a thread of its own (SqliteRowFilter).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/trace.h"
#include "exporters/sqlite/sqlite_db.h"

namespace cuptitrace {

// The database's StringIds: each distinct string once, across every trace.
class SqliteStrings {
 public:
  explicit SqliteStrings(SqliteDb& db);
  bool ok() const { return insert_.ok(); }
  // The id of `s`, inserted on first sight; -1 when the insert failed.
  // Frozen, only looked up (from any thread): -1, and missed(), for a
  // string that was not given an id before.
  int64_t id(std::string_view s);
  // Every id is decided: id() no longer inserts, and may be called by several threads.
  void freeze() { frozen_ = true; }
  bool missed() const { return missed_.load(std::memory_order_relaxed); }

 private:
  SqliteStatement insert_;
  std::unordered_map<std::string, int64_t> ids_;
  bool frozen_ = false;
  std::atomic<bool> missed_{false};
};

// Which rows a writer writes: every table's (the default); only those of
// `tables`, one part of the database written apart (sqlite_parts.cpp); or,
// with `idsOnly`, none: the string ids alone are decided, in the order the
// rows would have given them. A piece of a large table is written from the
// records [first, end) of the kind it is made from (kernels, API calls, ...);
// rows made from another kind's records (unified memory's copies in the
// MEMCPY table) come with the last piece.
struct SqliteRowFilter {
  const std::vector<const char*>* tables = nullptr;  // nullptr: every table
  bool idsOnly = false;
  size_t first = 0;
  size_t end = SIZE_MAX;
  bool wants(std::string_view table) const;
  bool last() const { return end == SIZE_MAX; }
};

struct SqliteTraceInput {
  const Trace* trace = nullptr;
  std::string file;          // where it was read from ("" at exit)
  uint32_t index = 0;        // its place in the database: the high bits of its global ids
  int64_t timeOffsetNs = 0;  // added to every timestamp (wall-clock alignment of merged traces)
};

// Base name of a demangled kernel name, as Nsight's shortName: no return
// type, namespaces, template arguments or parameters ("void ns::k<int>(float*)" -> "k").
std::string kernelShortName(std::string_view demangled);

// The record tables (kernels, copies, sets, API calls, NVTX, sync, memory, ...),
// those `filter` wants. Adds the rows written to `rows`; false (and
// db.error()) on failure.
bool writeSqliteRecords(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in, uint64_t& rows,
                        const SqliteRowFilter& filter = {});

// The OpenACC tables (sqlite_openacc.cpp).
bool writeSqliteOpenAcc(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in, uint64_t& rows,
                        const SqliteRowFilter& filter = {});

// The GPU metrics tables (sqlite_gpu_metrics.cpp).
bool writeSqliteGpuMetrics(SqliteDb& db, const SqliteTraceInput& in, uint64_t& rows,
                           const SqliteRowFilter& filter = {});

// The describing tables: process, threads, GPUs, contexts, NVTX names,
// metadata, configuration, drops, capture windows.
bool writeSqliteInfo(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in,
                     std::vector<std::string>& gpusWritten, uint64_t& rows);

}  // namespace cuptitrace
