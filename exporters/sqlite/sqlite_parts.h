// The SQLite output written by several threads, the same rows as one thread
// writes (sqlite.cpp):
//
//  1. The database's string ids are decided first, on the calling thread,
//     in the order one thread gives them (StringIds is shared by every
//     table), and the describing tables written; then every table's rows
//     are known. The small tables are written there too.
//  2. Each large table is cut into pieces of the records it is made from
//     (a few tables that one pass fills together, and those whose rows
//     depend on the rows before them, NVTX's, stay whole); each piece is
//     written by a thread into a database of its own beside the output, the
//     same schema for its tables and the same settings, without indexes.
//     Which tables are large is judged from the records' counts, without a
//     pass over them: the threads start at once.
//  3. The calling thread writes the first piece into the output itself (it
//     would only wait for it), then attaches the others in order and
//     appends each with INSERT INTO main.T SELECT * FROM piece.T: the tables
//     match and have no index yet, so SQLite copies the records as they are
//     (its transfer optimization: nothing decoded), each the next rowid.
//     With the indexes (CUPTITRACE_SQLITE_INDEXES), after a table's last
//     piece it builds the table's, as one thread does after the rows (their
//     sorts on several threads); the tables with an index come first, so
//     that the threads write the other tables' pieces while it sorts.
//
// The pieces' files are removed on every path; a database that fails is
// never left behind (writeFileSafelyAt removes the output's own file).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exporters/sqlite/sqlite.h"
#include "exporters/sqlite/sqlite_db.h"
#include "exporters/sqlite/sqlite_tables.h"

namespace cuptitrace {

// The fewest threads that write the database in pieces: the pieces cost
// their copy into it and a second write of their rows into the page cache,
// which 2 or 3 threads do not win back (on 2 shared cores they made the
// launch loop's database 0.55 to 1.5 times as fast, most often slower).
inline constexpr unsigned kSqlitePartThreads = 4;

// A piece's page cache: its rows are appended, so that the pages in use are
// the right edge of each table's tree; a larger cache only holds pages
// already written.
inline constexpr unsigned kSqlitePieceCacheKiB = 2048;

// Where the tables are cut: a table of fewer rows than `partRows` is
// written into the output directly (a database of its own and the copy
// would cost more than they save); a larger one is written in pieces of
// `pieceRecords` of the records it is made from: enough that a piece's
// database and copy cost little beside its rows, few enough that the pieces
// keep every thread busy.
struct SqlitePieceSizes {
  uint64_t partRows = 50'000;
  size_t pieceRecords = size_t{1} << 18;
};

// Writes the database of `sources` into the new file `tmpPath` with
// `threads` threads, with its indexes or not; "" or the error, naming
// `path`, as the one-thread writer.
std::string writeSqliteParts(const std::vector<SqliteSource>& sources, const std::string& tmpPath,
                             const std::string& path, unsigned threads, bool indexes, uint64_t& rows,
                             const SqlitePieceSizes& sizes = {});

// What both writers share (sqlite.cpp): every table created, in order; the
// export's own rows (META_DATA_EXPORT); each source as the table writers take it.
bool createSqliteTables(SqliteDb& db);
bool writeSqliteExportInfo(SqliteDb& db);
std::vector<SqliteTraceInput> sqliteInputs(const std::vector<SqliteSource>& sources);

}  // namespace cuptitrace
