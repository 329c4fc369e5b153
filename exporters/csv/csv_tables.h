// The rows of each CSV table (one function per record kind), written after
// the header by writeCsvTable (csv.cpp).
//
// Each function makes the table's row writer: rows(w, first, end) writes
// the rows of the records [first, end) of its kind, in store order (all of
// them: 0, SIZE_MAX). What the rows share (demangled names, the external
// ids' index, decoded metric sets) is made once per writer, and lives in
// it: a table cut into pieces formatted by several threads has one writer
// per thread, and the same bytes as one writer's.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "core/trace.h"
#include "exporters/record_range.h"
#include "exporters/csv/csv_writer.h"
#include "timeline/external_ids.h"

namespace cuptitrace {

using CsvRows = std::function<void(CsvWriter& w, size_t first, size_t end)>;

// The row writer that calls row(w, record) for each record of kind T.
template <typename T, typename Row>
CsvRows csvRowsOf(const Trace& trace, Row row) {
  return [&trace, row](CsvWriter& w, size_t first, size_t end) {
    forEachIn(trace.store.records<T>(), first, end, [&](const T& r) { row(w, r); });
  };
}

// GPU work (csv_gpu_tables.cpp). The kernels' and the external ids' tables
// read the external ids' index, which every writer of the table shares
// (made once: it reads every external id and NVTX range of the trace).
CsvRows csvKernelRows(const Trace& trace, std::shared_ptr<const ExternalIdIndex> externalIds);
CsvRows csvMemcpyRows(const Trace& trace);
CsvRows csvMemsetRows(const Trace& trace);
CsvRows csvGraphRows(const Trace& trace);
CsvRows csvSyncRows(const Trace& trace);
// Samples of the devices' performance counters, a row per metric (csv_gpu_tables.cpp).
CsvRows csvGpuMetricRows(const Trace& trace);
// The host: calls, NVTX, overhead, external ids, OpenACC (csv_host_tables.cpp).
CsvRows csvApiRows(const Trace& trace);
CsvRows csvNvtxRows(const Trace& trace);
CsvRows csvOverheadRows(const Trace& trace);
CsvRows csvExternalIdRows(const Trace& trace, std::shared_ptr<const ExternalIdIndex> externalIds);
CsvRows csvOpenAccRows(const Trace& trace);
// Memory, memory pools and unified memory (csv_memory_tables.cpp).
CsvRows csvMemoryRows(const Trace& trace);
CsvRows csvMemoryPoolRows(const Trace& trace);
CsvRows csvUvmRows(const Trace& trace);

}  // namespace cuptitrace
