// The SQLite output: one database that queries written for Nsight Systems'
// SQLite export (`nsys export --type sqlite`) run on unchanged, for what we
// record (docs/sqlite.md says which tables and columns are filled).
//
// One database may hold several traces (processes, ranks, hosts): each keeps
// its globalPid (its pid, plus its index in the database in the high bits),
// and their times are put on wall-clock time by each trace's own clock offset,
// as `cuptitrace merge` does. A single trace keeps its own clock, as the CSV
// tables do.
//
// Speed: one transaction, prepared statements, no journal, indexes built
// after the rows (bench/sqlite_bench measures rows per second). With
// several writer threads (4 or more) the large tables are written in pieces
// at once, each into a database of its own, and copied in (sqlite_parts.h):
// the same rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

struct SqliteSource {
  const Trace* trace = nullptr;
  std::string file;  // where it was read from, kept in CUPTITRACE_TRACES; "" at exit
};

struct SqliteResult {
  std::string error;  // empty on success, else one line naming the path
  uint64_t rows = 0;  // rows written, enum tables aside
};

// Whether the databases get their indexes (sqlite_schema.h): the
// CUPTITRACE_SQLITE_INDEXES setting, off by default, as Nsight's export has
// none; each costs a sort of its table on one thread after the rows.
bool sqliteIndexesSetting();

// Writes the database of `sources` to `path`, safely (core/file_output.h):
// an existing file is replaced only with `overwrite`. `threads` write it
// (0: writerThreads(); in pieces from kSqlitePartThreads on); whatever their
// number, the tables hold the same rows. With `indexes`, the tables' indexes
// are built after their rows.
SqliteResult writeSqlite(const std::vector<SqliteSource>& sources, const std::string& path, bool overwrite,
                         unsigned threads = 0, bool indexes = sqliteIndexesSetting());

// One trace, on its own clock.
inline SqliteResult writeSqlite(const Trace& trace, const std::string& path, bool overwrite, unsigned threads = 0,
                                bool indexes = sqliteIndexesSetting()) {
  return writeSqlite(std::vector<SqliteSource>{{&trace, ""}}, path, overwrite, threads, indexes);
}

}  // namespace cuptitrace
