// CSV tables, one per record kind, RFC 4180 quoting, times in ns.
#pragma once

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
// Writes `kind`'s table (header and one row per record).
void writeCsvTable(const Trace& trace, RecordKind kind, std::ostream& out);

}  // namespace cuptitrace
