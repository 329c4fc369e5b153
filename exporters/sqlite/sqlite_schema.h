// The tables of the SQLite output: Nsight Systems' export schema for what
// we record (same table and column names, meanings and units), the enum
// tables its columns refer to, and our own CUPTITRACE_* tables for what that
// schema has no place for. docs/sqlite.md lists what is filled.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace cuptitrace {

struct SqliteTableSpec {
  const char* name;
  const char* columns;  // the column definitions, as in CREATE TABLE name (columns)
};

// Every table created, in creation order (empty ones included, so a query
// naming a table we could fill never fails for a missing table).
const std::vector<SqliteTableSpec>& sqliteTables();

// Indexes built after the rows: the few that the documented example
// queries need (sqlite_schema.cpp says which, and why no more).
const std::vector<std::string>& sqliteIndexes();
// The table one of those indexes is on.
std::string sqliteIndexTable(const std::string& createIndex);
// The column definitions of table `name` in sqliteTables(); nullptr for none.
const char* sqliteTableColumns(std::string_view name);

struct SqliteEnumRow {
  int id;
  const char* name;
  const char* label;
};
struct SqliteEnumTable {
  const char* table;
  std::vector<SqliteEnumRow> rows;
};
// The enum tables and their rows.
const std::vector<SqliteEnumTable>& sqliteEnums();

// "INSERT INTO table (a, b, c) VALUES (?, ?, ?)"
std::string sqliteInsert(const char* table, std::initializer_list<const char*> columns);

// Nsight's serialized global ids: the thread id in bits 0-23, the process id
// in bits 24-47 and, above, what tells machines apart (Nsight's hardware and
// VM ids). We write the trace's index in the database there (0 for a single
// trace), so processes of different traces never share a globalPid even with
// the same pid, and `globalTid / 0x1000000 % 0x1000000` is still the pid.
constexpr uint64_t sqliteGlobalPid(uint32_t traceIndex, uint32_t pid) {
  return (uint64_t{traceIndex} << 48) | (uint64_t{pid & 0xFFFFFFu} << 24);
}
constexpr uint64_t sqliteGlobalTid(uint32_t traceIndex, uint32_t pid, uint32_t tid) {
  return sqliteGlobalPid(traceIndex, pid) | (tid & 0xFFFFFFu);
}

// ENUM_NSYS_EVENT_TYPE ids of NVTX events, and ENUM_NSYS_EVENT_CLASS ids of API calls.
inline constexpr int kNsysNvtxMark = 34;
inline constexpr int kNsysNvtxPushPopRange = 59;
inline constexpr int kNsysNvtxStartEndRange = 60;
inline constexpr int kNsysNvtxDomainCreate = 75;
inline constexpr int kNsysClassCudaRuntime = 0;
inline constexpr int kNsysClassCudaDriver = 1;
inline constexpr int kNsysClassOsrt = 27;
// ENUM_CUDA_MEMCPY_OPER ids of unified memory migrations.
inline constexpr int kNsysCopyUnifiedHtoD = 11;
inline constexpr int kNsysCopyUnifiedDtoH = 12;
inline constexpr int kNsysCopyUnifiedDtoD = 13;

// Nsight's ids for CUPTI's memory kinds, launch types and pool operations;
// a memory kind CUPTI did not know is NULL.
constexpr int64_t nsysMemKind(uint8_t cuptiKind) { return cuptiKind == 0 ? -1 : cuptiKind - 1; }
constexpr int64_t nsysLaunchType(uint8_t cuptiType) { return cuptiType + 1; }
constexpr int64_t nsysPoolOperation(uint8_t ours) { return ours + 1; }

// The schema version of Nsight Systems' export whose names we follow.
inline constexpr const char* kNsysSchemaVersion = "3.28.1";

}  // namespace cuptitrace
