// Each CSV table's columns, in order: names, and which are record arguments
// (csv_args.h).
#pragma once

#include <memory>

#include "core/records.h"
#include "exporters/csv/csv_args.h"
#include "exporters/csv/csv_tables.h"

namespace cuptitrace {

// Empty for RecordKind::Count.
CsvColumns csvTableColumns(RecordKind kind);

// The row writer of `kind`'s table (csv_tables.h), whose rows have argument
// columns: row(args, w, record) for each record of kind T, `args` (made
// once per writer) cleared for it.
template <typename T, typename Row>
CsvRows csvArgRows(const Trace& trace, RecordKind kind, Row row) {
  return csvRowsOf<T>(trace, [row, args = std::make_shared<CsvArgRow>(trace, csvTableColumns(kind))](
                                 CsvWriter& w, const T& r) {
    args->next();
    row(*args, w, r);
  });
}

}  // namespace cuptitrace
