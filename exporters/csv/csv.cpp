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

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/ordered_work.h"
#include "exporters/csv/csv_tables.h"
#include "exporters/csv/csv_writer.h"

namespace cuptitrace {
namespace {

// The row writer of `kind`'s table (csv_tables.h); `externalIds` is the
// index its writers share, for the tables that read it.
CsvRows csvRows(const Trace& trace, RecordKind kind, const std::shared_ptr<const ExternalIdIndex>& externalIds) {
  switch (kind) {
    case RecordKind::Kernel:
      return csvKernelRows(trace, externalIds);
    case RecordKind::Memcpy:
      return csvMemcpyRows(trace);
    case RecordKind::Memset:
      return csvMemsetRows(trace);
    case RecordKind::Api:
      return csvApiRows(trace);
    case RecordKind::Nvtx:
      return csvNvtxRows(trace);
    case RecordKind::Sync:
      return csvSyncRows(trace);
    case RecordKind::Overhead:
      return csvOverheadRows(trace);
    case RecordKind::Memory:
      return csvMemoryRows(trace);
    case RecordKind::MemoryPool:
      return csvMemoryPoolRows(trace);
    case RecordKind::Uvm:
      return csvUvmRows(trace);
    case RecordKind::Graph:
      return csvGraphRows(trace);
    case RecordKind::ExternalId:
      return csvExternalIdRows(trace, externalIds);
    case RecordKind::OpenAcc:
      return csvOpenAccRows(trace);
    case RecordKind::GpuMetric:
      return csvGpuMetricRows(trace);
    case RecordKind::Count:
      break;
  }
  return [](CsvWriter&, size_t, size_t) {};
}

}  // namespace

void writeCsvTable(const Trace& trace, RecordKind kind, std::ostream& out, unsigned threads, size_t pieceRecords) {
  const auto& columns = csvColumns(kind);
  if (columns.empty()) return;
  if (pieceRecords == 0) pieceRecords = 1;
  const size_t records = trace.store.count(kind);
  const size_t pieces = (records + pieceRecords - 1) / pieceRecords;
  // Made once for every writer of the table.
  std::shared_ptr<const ExternalIdIndex> externalIds;
  if (kind == RecordKind::Kernel || kind == RecordKind::ExternalId)
    externalIds = std::make_shared<const ExternalIdIndex>(trace);
  if (threads <= 1 || pieces <= 1) {
    CsvWriter w(out, columns.size());
    w.header(columns);
    csvRows(trace, kind, externalIds)(w, 0, SIZE_MAX);
    return;
  }
  {
    CsvWriter w(out, columns.size());
    w.header(columns);
  }
  // Each thread its own row writer, made on its first piece; the pieces'
  // text to the stream in order.
  std::vector<CsvRows> rows(threads);
  runInOrder<CsvText>(
      pieces, threads, 2 * size_t{threads},
      [&](unsigned worker, size_t i, CsvText& text) {
        text.clear();
        // Room for rows of up to 512 bytes (a kernel's are about 200): the
        // piece's buffer made once, whatever the rows' length (pieces of
        // more than 64 Ki records grow as they must).
        text.reserve(std::min<size_t>(pieceRecords, size_t{1} << 16) * 512);
        if (!rows[worker]) rows[worker] = csvRows(trace, kind, externalIds);
        CsvWriter w(text, columns.size());
        rows[worker](w, i * pieceRecords, i + 1 == pieces ? SIZE_MAX : (i + 1) * pieceRecords);
      },
      [&](size_t, CsvText& text) { out.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

}  // namespace cuptitrace
