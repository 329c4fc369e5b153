// Each CSV table's columns, in order: names, and which are record arguments
// (csv_args.h).
#pragma once

#include "core/records.h"
#include "exporters/csv/csv_args.h"

namespace cuptitrace {

// Empty for RecordKind::Count.
CsvColumns csvTableColumns(RecordKind kind);

}  // namespace cuptitrace
