// The spill journal of a trace: its store's spill file, made self-describing
// (journal_format.h) so that `cuptitrace recover` can rebuild a trace from it
// after the process died without writing its outputs (SIGKILL, _exit()).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/output_name.h"
#include "core/spill_mode.h"
#include "core/trace.h"

namespace cuptitrace {

// Where a traced process's journal goes: PREFIX.spill, next to its outputs, so
// the trace and what is needed to recover it are found together. With %n in
// the template (the number is only taken at the end) it is
// DIR/cuptitrace-HOST-PID.spill instead, which no output prefix claims.
std::string spillPathFor(std::string_view outputTemplate, const OutputNameInputs& inputs);

// Gives trace.store a journal at `path` (created on the first spill; at once
// with Always, so that the metadata is on disk from the start). Records past
// the store's budget (Auto), or every full chunk (Always), go there with the
// strings they name, the devices and names known by then.
// The trace's metadata must be filled in before: it is written as it is now.
void enableSpillJournal(Trace& trace, const std::string& path, SpillMode mode);

// Before the exporters run. They and the reports hold `bytes` of their own
// (exportRoomBytes, exporters/export_all.h): with a journal, when those and
// the records in memory would pass the store's budget, the oldest records go
// to the journal first, so the process stays near its budget while writing.
void makeRoomForExport(Trace& trace, uint64_t bytes);

// Makes the journal hold the whole trace as it is now, on disk (fsync), before
// the outputs are written: when the process is killed while writing them (a
// SIGKILL after the SIGTERM), `cuptitrace recover` still rebuilds everything.
// False when there is no journal (CUPTITRACE_SPILL=off) or it failed.
bool sealSpillJournal(Trace& trace);

// Counters of what was spilled ("spill.chunks", "spill.bytes"; "spill.failed"
// when writing the journal failed), for the trace's metadata. Empty when
// nothing was spilled.
void publishSpillCounters(Trace& trace);

// Deletes the journal once the outputs are written; the records stay
// readable until the trace goes. The path it had, empty when none was made.
std::string removeSpillJournal(Trace& trace);

// What recovering a journal found.
struct RecoveryReport {
  uint64_t fileBytes = 0;
  uint64_t readBytes = 0;     // from the start to the end of the last block read
  uint64_t ignoredBytes = 0;  // skipped chunks and the unreadable tail
  uint64_t blocks = 0;
  uint64_t chunks = 0;         // chunks whose records were taken (full, or still filling)
  uint64_t tails = 0;          // TAIL blocks read: the records of chunks still filling
  uint64_t skippedChunks = 0;  // chunks whose checksum failed (rewritten as the process died)
  uint64_t deadChunks = 0;     // chunks of records filtered out before the end
  uint64_t missingChunks = 0;  // gaps in a kind's chunk sequence
  uint64_t strings = 0;
  bool metadata = false;
  std::string stoppedAt;  // why reading ended before the end of the file; empty when it did not
};

// Reads the journal at `path` into `trace` (which must be empty); records are
// read from the file in place, so it must stay until the trace goes. Marks the
// trace recovered (counters "recovered", "recovered.bytes_ignored"). False,
// with why in `error`, when the file is not a journal at all.
bool recoverJournal(const std::string& path, Trace& trace, RecoveryReport& report, std::string& error);

}  // namespace cuptitrace
