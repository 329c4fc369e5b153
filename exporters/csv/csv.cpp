// CSV tables, one per record kind.
//
// RFC 4180 with LF line ends (every CSV reader in use accepts them, and they
// keep the files diff- and grep-friendly): fields are separated by commas, and
// a text field is quoted when it holds a comma, a quote, CR or LF, or starts
// or ends with white space (which some readers would otherwise trim), with
// inner quotes doubled; text is UTF-8, each invalid sequence in a recorded
// name replaced by U+FFFD (csv_writer.h). Numbers are never quoted. Times are integer
// nanoseconds on the trace clock, absolute (not relative to the trace start),
// so rows of different tables can be joined on them. Rows come in the order
// the store holds them.
//
// A record whose end is missing (0) or before its start is still written, with
// an empty duration_ns: a CSV is for looking at everything that was recorded.
//
// The columns are in csv_columns.cpp, the writer in csv_writer.h, the rows of
// each kind in csv_*_tables.cpp; the columns that are record arguments are
// read from record_args.h through csv_args.h.
#include "exporters/csv/csv.h"

#include "exporters/csv/csv_tables.h"
#include "exporters/csv/csv_writer.h"

namespace cuptitrace {

void writeCsvTable(const Trace& trace, RecordKind kind, std::ostream& out) {
  const auto& columns = csvColumns(kind);
  if (columns.empty()) return;
  CsvWriter w(out, columns.size());
  w.header(columns);
  switch (kind) {
    case RecordKind::Kernel:
      return writeCsvKernels(trace, w);
    case RecordKind::Memcpy:
      return writeCsvMemcpy(trace, w);
    case RecordKind::Memset:
      return writeCsvMemset(trace, w);
    case RecordKind::Api:
      return writeCsvApi(trace, w);
    case RecordKind::Nvtx:
      return writeCsvNvtx(trace, w);
    case RecordKind::Sync:
      return writeCsvSync(trace, w);
    case RecordKind::Overhead:
      return writeCsvOverhead(trace, w);
    case RecordKind::Memory:
      return writeCsvMemory(trace, w);
    case RecordKind::MemoryPool:
      return writeCsvMemoryPool(trace, w);
    case RecordKind::Uvm:
      return writeCsvUvm(trace, w);
    case RecordKind::Graph:
      return writeCsvGraphs(trace, w);
    case RecordKind::ExternalId:
      return writeCsvExternalIds(trace, w);
    case RecordKind::OpenAcc:
      return writeCsvOpenAcc(trace, w);
    case RecordKind::GpuMetric:
      return writeCsvGpuMetrics(trace, w);
    case RecordKind::Count:
      break;
  }
}

}  // namespace cuptitrace
