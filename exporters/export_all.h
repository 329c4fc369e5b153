// Writes every requested output of a trace to files under a path prefix.
// Each file is written under a temporary name and moved into place when
// complete (core/file_output.h), so a file that exists is never half-written.
// The files are written at once, as many as there are writer threads
// (core/writer_threads.h), the native trace started first; their bytes are
// those one thread writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

struct ExportResult {
  std::vector<std::string> written;  // paths of complete files
  std::vector<std::string> errors;   // one clear line per failure, naming the path
};

// `formats` is a mask of core/config.h Format bits; `prefix` the expanded output
// prefix. An existing file is replaced only with `overwrite`. With `splitBytes`
// (CUPTITRACE_SPLIT) the timeline outputs are split by time into parts of
// about that size (exporters/split_output.h), written as PREFIX.1.json,
// PREFIX.1.pftrace, PREFIX.1.kernels.csv, PREFIX.2.json, ...; the native trace
// stays whole.
ExportResult exportAll(const Trace& trace, uint32_t formats, const std::string& prefix,
                       bool overwrite = false, uint64_t splitBytes = 0);

// What writing `formats` at once holds in memory besides the trace's
// records, with `threads` writer threads, and with `reports` the reports made
// beside them for a trace of `records` records: the timeline writers' windows
// and pieces, the databases' page caches, the reports' durations. The store
// makes that much room under its cap before (makeRoomForExport).
uint64_t exportRoomBytes(uint32_t formats, bool reports, uint64_t records, unsigned threads);

// Whether a file exportAll names under `prefix` exists already: a timeline
// (JSON, gzip'd JSON, .pftrace, or the first part of a split one), the
// native trace, the SQLite file, the kernel or API table, or the reports.
bool outputsExist(const std::string& prefix);
// `prefix`, or PREFIX.PID when outputs exist under `prefix` and none under
// PREFIX.PID (then `message` says where the trace goes instead).
std::string untakenPrefix(const std::string& prefix, uint32_t pid, std::string* message);

}  // namespace cuptitrace
