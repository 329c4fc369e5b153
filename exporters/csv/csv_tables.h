// The rows of each CSV table (one function per record kind), written after
// the header by writeCsvTable (csv.cpp).
#pragma once

#include "core/trace.h"
#include "exporters/csv/csv_writer.h"

namespace cuptitrace {

// GPU work (csv_gpu_tables.cpp).
void writeCsvKernels(const Trace& trace, CsvWriter& w);
void writeCsvMemcpy(const Trace& trace, CsvWriter& w);
void writeCsvMemset(const Trace& trace, CsvWriter& w);
void writeCsvGraphs(const Trace& trace, CsvWriter& w);
void writeCsvSync(const Trace& trace, CsvWriter& w);
// Samples of the devices' performance counters, a row per metric (csv_gpu_tables.cpp).
void writeCsvGpuMetrics(const Trace& trace, CsvWriter& w);
// The host: calls, NVTX, overhead, external ids, OpenACC (csv_host_tables.cpp).
void writeCsvApi(const Trace& trace, CsvWriter& w);
void writeCsvNvtx(const Trace& trace, CsvWriter& w);
void writeCsvOverhead(const Trace& trace, CsvWriter& w);
void writeCsvExternalIds(const Trace& trace, CsvWriter& w);
void writeCsvOpenAcc(const Trace& trace, CsvWriter& w);
// Memory, memory pools and unified memory (csv_memory_tables.cpp).
void writeCsvMemory(const Trace& trace, CsvWriter& w);
void writeCsvMemoryPool(const Trace& trace, CsvWriter& w);
void writeCsvUvm(const Trace& trace, CsvWriter& w);

}  // namespace cuptitrace
