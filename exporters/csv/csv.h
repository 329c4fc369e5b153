// CSV tables, one per record kind, RFC 4180 quoting, times in ns.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "core/records.h"
#include "core/trace.h"

namespace cuptitrace {

// The header line's columns for `kind`'s table (documented in the README).
const std::vector<std::string>& csvColumns(RecordKind kind);
// File suffix for `kind`'s table: "kernels", "memcpy", "memset", "api", "nvtx", "sync", "overhead".
const char* csvTableName(RecordKind kind);
// Records in one piece of a table formatted by one of several threads:
// about a MiB of text.
inline constexpr size_t kCsvPieceRecords = 8192;

// Writes `kind`'s table (header and one row per record). With `threads` > 1
// a table of more than one piece is cut into pieces of `pieceRecords`
// records, each formatted by one of `threads` threads into a buffer of its
// own, the buffers written in order: the same bytes as one thread's.
void writeCsvTable(const Trace& trace, RecordKind kind, std::ostream& out, unsigned threads = 1,
                   size_t pieceRecords = kCsvPieceRecords);

}  // namespace cuptitrace
