// One rank's SQLite database, as the tracer writes it (PREFIX.sqlite, Nsight
// Systems' tables), reduced to the same RankSummary as its native trace: the
// kernels, copies and sets go through the same RankSummaryBuilder, so the
// reports across ranks are the same whichever of the two files is given.
//
// What the database does not say: the rank. The tracer's SQLite tables carry
// no rank column yet; where CUPTITRACE_TRACES has one (`rank`, with
// `worldSize`) it is read, else the rank is taken from the file name as
// `-o 'dir/t.%r'` writes it (t.3.sqlite: rank 3), else the process has none.
// Collective start times stay on the database's clock (a single trace's
// database keeps its own clock); only their order is used across ranks.
// A database of several traces (`cuptitrace convert a b --to sqlite`) is refused.
#pragma once

#include <string>

#include "reports/rank_summary.h"

namespace cuptitrace {

// False with `error` (one line naming `path`) when it cannot be read.
bool summarizeSqliteRank(const std::string& path, RankSummary& summary, std::string& error);

// The rank a file name gives, as `%r` writes it ("t.3.sqlite": 3), or -1.
int64_t rankFromFileName(const std::string& path);

}  // namespace cuptitrace
