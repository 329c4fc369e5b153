#include "exporters/sqlite/sqlite_parts.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string_view>

#include "core/ordered_work.h"
#include "exporters/sqlite/sqlite_schema.h"

namespace cuptitrace {
namespace {

// Tables written together, from the records of one kind: a large one is
// cut into pieces of its records, each written apart (`cut`).
struct Part {
  std::vector<const char*> tables;
  RecordKind source = RecordKind::Count;
  bool cut = false;
  std::vector<uint64_t> rows;  // by trace
  uint64_t total() const {
    uint64_t n = 0;
    for (const uint64_t r : rows) n += r;
    return n;
  }
};

// Every record table's part, with its rows in each trace at most: the
// records of its kind (and, for the copies, the unified memory records,
// some of which are copies), so that no pass over the records is made
// before the pieces start; a part of no rows writes empty tables. The
// tables one pass over a kind's records fills together are one part
// (sqlite_tables.cpp).
std::vector<Part> partsOf(const std::vector<SqliteTraceInput>& inputs) {
  std::vector<Part> parts = {
      {{"CUPTI_ACTIVITY_KIND_KERNEL"}, RecordKind::Kernel, true, {}},
      {{"CUPTI_ACTIVITY_KIND_MEMCPY"}, RecordKind::Memcpy, true, {}},
      {{"CUPTI_ACTIVITY_KIND_MEMSET"}, RecordKind::Memset, true, {}},
      // CUDA's calls and the C library's, from one pass over the calls.
      {{"CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API"}, RecordKind::Api, true, {}},
      // Domains are named by the first event of each: written in one pass.
      {{"NVTX_EVENTS"}, RecordKind::Nvtx, false, {}},
      {{"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"}, RecordKind::Sync, true, {}},
      {{"CUPTI_ACTIVITY_KIND_OVERHEAD"}, RecordKind::Overhead, true, {}},
      {{"CUDA_GPU_MEMORY_USAGE_EVENTS"}, RecordKind::Memory, true, {}},
      {{"CUDA_GPU_MEMORY_POOL_EVENTS"}, RecordKind::MemoryPool, true, {}},
      {{"CUDA_UM_GPU_PAGE_FAULT_EVENTS", "CUDA_UM_CPU_PAGE_FAULT_EVENTS", "CUPTITRACE_UVM_EVENTS"},
       RecordKind::Uvm, false, {}},
      {{"CUPTI_ACTIVITY_KIND_GRAPH_TRACE"}, RecordKind::Graph, true, {}},
      {{"CUPTITRACE_EXTERNAL_IDS"}, RecordKind::ExternalId, true, {}},
      {{"CUPTITRACE_GRAPH_NODES"}, RecordKind::Kernel, false, {}},
      {{"CUPTI_ACTIVITY_KIND_OPENACC_DATA", "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH", "CUPTI_ACTIVITY_KIND_OPENACC_OTHER"},
       RecordKind::OpenAcc, false, {}},
      {{"TARGET_INFO_GPU_METRICS", "CUPTITRACE_GPU_METRICS", "GPU_METRICS"}, RecordKind::GpuMetric, false, {}},
  };
  for (const SqliteTraceInput& in : inputs) {
    const TraceStore& store = in.trace->store;
    for (Part& p : parts) {
      const std::string_view first = p.tables[0];
      uint64_t n = store.count(p.source);
      if (first == "CUPTI_ACTIVITY_KIND_MEMCPY") n += store.count(RecordKind::Uvm);
      else if (first == "CUPTITRACE_GRAPH_NODES")  // GPU work launched from a graph
        n += store.count(RecordKind::Memcpy) + store.count(RecordKind::Memset);
      p.rows.push_back(n);
    }
  }
  return parts;
}

// One piece of a part: the rows of trace `trace` (every trace: SIZE_MAX)
// from the records [first, end) of the part's source; the last of its part
// gets the part's indexes.
struct Piece {
  const Part* part;
  size_t trace;
  size_t first;
  size_t end;
  bool lastOfPart;
};

std::vector<Piece> piecesOf(const std::vector<Part>& parts, const std::vector<SqliteTraceInput>& inputs,
                            size_t pieceRecords) {
  std::vector<Piece> pieces;
  for (const Part& p : parts) {
    if (!p.cut) {
      pieces.push_back({&p, SIZE_MAX, 0, SIZE_MAX, true});
      continue;
    }
    for (size_t t = 0; t < inputs.size(); ++t) {
      if (p.rows[t] == 0) continue;
      const size_t records = inputs[t].trace->store.count(p.source);
      for (size_t first = 0;; first += pieceRecords) {
        const bool last = first + pieceRecords >= records;
        pieces.push_back({&p, t, first, last ? SIZE_MAX : first + pieceRecords, false});
        if (last) break;
      }
    }
    pieces.back().lastOfPart = true;
  }
  return pieces;
}

// The rows of `part`'s tables into `db`: of every trace, or of one piece.
bool writeRows(SqliteDb& db, SqliteStrings& strings, const std::vector<SqliteTraceInput>& inputs, const Part& part,
               uint64_t& rows, size_t trace = SIZE_MAX, size_t first = 0, size_t end = SIZE_MAX) {
  SqliteRowFilter filter;
  filter.tables = &part.tables;
  filter.first = first;
  filter.end = end;
  for (size_t t = 0; t < inputs.size(); ++t)
    if ((trace == SIZE_MAX || t == trace) && !writeSqliteRecords(db, strings, inputs[t], rows, filter)) return false;
  return true;
}

bool inPart(const Part& part, const std::string& table) {
  return std::any_of(part.tables.begin(), part.tables.end(), [&](const char* t) { return table == t; });
}
bool createIndexes(SqliteDb& db, const Part& part, bool indexes) {
  if (!indexes) return true;
  for (const std::string& index : sqliteIndexes())
    if (inPart(part, sqliteIndexTable(index)) && !db.exec(index)) return false;
  return true;
}
bool hasIndex(const Part& part) {
  return std::any_of(sqliteIndexes().begin(), sqliteIndexes().end(),
                     [&](const std::string& index) { return inPart(part, sqliteIndexTable(index)); });
}

// The files of the pieces, removed when done with and on every path.
class PieceFiles {
 public:
  explicit PieceFiles(const std::string& tmpPath) : tmpPath_(tmpPath) {}
  ~PieceFiles() {
    for (const std::string& f : files_) ::unlink(f.c_str());
  }
  // A new empty file beside the output; "" when none can be made.
  std::string create() {
    std::string name = tmpPath_ + ".XXXXXX";
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0) return {};
    ::close(fd);
    std::lock_guard<std::mutex> lock(mutex_);
    files_.push_back(name);
    return name;
  }

 private:
  const std::string& tmpPath_;
  std::mutex mutex_;
  std::vector<std::string> files_;
};

// One piece written into a database of its own at `file`: its tables, no
// index (the output builds them once every piece is in). "" or what failed.
std::string writePiece(const Piece& piece, const std::vector<SqliteTraceInput>& inputs, SqliteStrings& strings,
                       const std::string& file, uint64_t& rows) {
  SqliteDb db;
  bool ok = db.create(file, kSqlitePieceCacheKiB) && db.exec("BEGIN");
  for (const char* table : piece.part->tables)
    ok = ok && db.exec(std::string("CREATE TABLE ") + table + " (" + sqliteTableColumns(table) + ")");
  ok = ok && writeRows(db, strings, inputs, *piece.part, rows, piece.trace, piece.first, piece.end);
  ok = ok && db.exec("COMMIT");
  std::string error = ok ? std::string() : db.error();
  if (!db.close() && error.empty()) error = db.error();
  if (error.empty() && strings.missed()) error = "SQLite: a string was given no id";
  return error;
}

// Appends the rows of the piece database `file` to the output's tables.
// The tables have no index yet, so SQLite copies the records as they are
// (its transfer optimization), giving them the next rowids.
bool copyPiece(SqliteDb& db, const Piece& piece, const std::string& file, bool indexes) {
  std::string quoted;
  for (const char c : file) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  if (!db.exec("ATTACH DATABASE '" + quoted + "' AS piece")) return false;
  bool ok = db.exec("BEGIN");
  for (const char* table : piece.part->tables)
    ok = ok && db.exec(std::string("INSERT INTO main.") + table + " SELECT * FROM piece." + table);
  if (piece.lastOfPart) ok = ok && createIndexes(db, *piece.part, indexes);
  ok = ok && db.exec("COMMIT");
  if (!ok) return false;  // the output is abandoned: no DETACH needed
  return db.exec("DETACH DATABASE piece");
}

// A piece written by the calling thread into the output itself, its rows
// appended to its tables as a copied piece's are.
bool writePieceHere(SqliteDb& db, const Piece& piece, const std::vector<SqliteTraceInput>& inputs,
                    SqliteStrings& strings, bool indexes, uint64_t& rows) {
  bool ok = db.exec("BEGIN") && writeRows(db, strings, inputs, *piece.part, rows, piece.trace, piece.first, piece.end);
  if (piece.lastOfPart) ok = ok && createIndexes(db, *piece.part, indexes);
  return ok && db.exec("COMMIT");
}

struct PieceResult {
  std::string file;
  std::string error;
  uint64_t rows = 0;
  bool here = false;  // the calling thread writes it
};

}  // namespace

std::string writeSqliteParts(const std::vector<SqliteSource>& sources, const std::string& tmpPath,
                             const std::string& path, unsigned threads, bool indexes, uint64_t& rows,
                             const SqlitePieceSizes& sizes) {
  const std::vector<SqliteTraceInput> inputs = sqliteInputs(sources);
  SqliteDb db;
  std::string error;
  // Every table, the string ids and the describing tables, as one thread
  // writes them; then the small tables, and their indexes.
  bool ok = db.create(tmpPath) && db.exec("BEGIN") && createSqliteTables(db) && writeSqliteExportInfo(db);
  {  // the statements end before the database is closed
    SqliteStrings strings(db);
    ok = ok && strings.ok() && strings.id("") == 0;
    std::vector<std::string> gpus;
    SqliteRowFilter idsOnly;
    idsOnly.idsOnly = true;
    uint64_t none = 0;
    for (const SqliteTraceInput& in : inputs)
      ok = ok && writeSqliteInfo(db, strings, in, gpus, rows) && writeSqliteRecords(db, strings, in, none, idsOnly);
    strings.freeze();
    const std::vector<Part> parts = partsOf(inputs);
    std::vector<Part> apart;
    for (const Part& p : parts) {
      if (p.total() > 0 && p.total() >= sizes.partRows) {
        apart.push_back(p);
      } else {
        ok = ok && writeRows(db, strings, inputs, p, rows) && createIndexes(db, p, indexes);
      }
    }
    ok = ok && db.exec("COMMIT");  // pieces are attached outside a transaction
    // The index sorts may use the threads.
    ok = ok && db.exec("PRAGMA threads=" + std::to_string(std::min(threads, 8u)));
    // The large tables in pieces, written by the threads (at most one piece
    // each done and not yet copied: the files beside the output stay few),
    // copied in here in order.
    // The parts with an index first: while this thread sorts for an index,
    // the threads write the next parts' pieces, rather than wait for it
    // once every piece is written. (The rows and rowids of each table do
    // not depend on the order of the tables.)
    if (indexes) std::stable_partition(apart.begin(), apart.end(), hasIndex);
    const std::vector<Piece> pieces = piecesOf(apart, inputs, std::max<size_t>(1, sizes.pieceRecords));
    PieceFiles files(tmpPath);
    std::atomic<bool> failed{false};
    const unsigned workers = std::max(1u, threads);
    if (ok) {
      runInOrder<PieceResult>(
          pieces.size(), workers, workers,
          [&](unsigned, size_t i, PieceResult& r) {
            r = PieceResult{};
            // The first piece: the calling thread would only wait for it.
            r.here = i == 0;
            if (r.here || failed.load(std::memory_order_relaxed)) return;
            r.file = files.create();
            if (r.file.empty()) r.error = "cannot create a piece of the database beside it";
            else r.error = writePiece(pieces[i], inputs, strings, r.file, r.rows);
          },
          [&](size_t i, PieceResult& r) {
            if (!ok || !error.empty()) return;
            if (r.here) {
              ok = writePieceHere(db, pieces[i], inputs, strings, indexes, rows);
              if (!ok) failed = true;
              return;
            }
            if (!r.error.empty()) {
              error = r.error;
            } else {
              ok = copyPiece(db, pieces[i], r.file, indexes);
              rows += r.rows;
            }
            ::unlink(r.file.c_str());
            if (!ok || !error.empty()) failed = true;
          });
    }
  }
  if (error.empty() && !ok) error = db.error();
  if (!db.close() && error.empty()) error = db.error();
  return error.empty() ? error : "cannot write " + path + ": " + error;
}

}  // namespace cuptitrace
