// Writes one trace's records and descriptions into an open SQLite database
// with the tables of sqlite_schema.h. Used by exporters/sqlite/sqlite.cpp, once per
// trace, inside one transaction.
#pragma once

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
  int64_t id(std::string_view s);

 private:
  SqliteStatement insert_;
  std::unordered_map<std::string, int64_t> ids_;
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

// The record tables (kernels, copies, sets, API calls, NVTX, sync, memory, ...).
// Adds the rows written to `rows`; false (and db.error()) on failure.
bool writeSqliteRecords(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in, uint64_t& rows);

// The OpenACC tables (sqlite_openacc.cpp).
bool writeSqliteOpenAcc(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in, uint64_t& rows);

// The GPU metrics tables (sqlite_gpu_metrics.cpp).
bool writeSqliteGpuMetrics(SqliteDb& db, const SqliteTraceInput& in, uint64_t& rows);

// The describing tables: process, threads, GPUs, contexts, NVTX names,
// metadata, configuration, drops, capture windows.
bool writeSqliteInfo(SqliteDb& db, SqliteStrings& strings, const SqliteTraceInput& in,
                     std::vector<std::string>& gpusWritten, uint64_t& rows);

}  // namespace cuptitrace
