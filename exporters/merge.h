// Several saved traces on one timeline (`cuptitrace merge`): the processes
// of different runs, hosts or ranks side by side, on wall-clock time.
//
// - Every trace keeps its host process, thread tracks and names, and its GPU
//   processes. In a merged file every process name says where it ran:
//   "train.py (node2:1234)", "GPU 0: NVIDIA H100 80GB HBM3 (node2:1234)", and
//   a rank's "[rank 1] train.py (node2:1234)", "[rank 1] GPU 1: ...".
// - A pid already taken by an earlier trace (another host, or a reused pid)
//   is moved by a multiple of 2^22 (above every Linux pid), the trace's
//   thread ids with it; the original pid stays in the process name.
// - GPUs are per traced process: two processes that shared a GPU show two
//   GPU processes of the same name but for the suffix, each with its own
//   streams (stream ids are per process, so they could not share tracks).
//   GPU pids come from a key unique to each trace (track_layout.h).
// - Times: each trace's clock is put on wall-clock time by its own offset
//   (TraceMetadata::wallClockOffsetNs); the metadata says which offset each
//   trace got. Flow ids are renumbered per file, so arrows never cross traces.
#pragma once

#include <string>
#include <vector>

#include "core/trace.h"
#include "timeline/track_layout.h"

namespace cuptitrace {

struct MergeSource {
  const Trace* trace = nullptr;
  std::string file;  // where it was read from, written into the metadata
};

// The traces to merge in rank order (processes a launcher gave a rank first,
// by rank; the others after them, in the order given), without those that
// hold no GPU work (a launcher such as torchrun, which makes a CUDA call or
// two but runs nothing on a GPU: one line each in `skipped`).
std::vector<MergeSource> orderMergeSources(std::vector<MergeSource> sources, std::vector<std::string>& skipped);

// Where each trace goes (pids, GPU keys, names, labels), in input order.
std::vector<TimelineInput> planMerge(const std::vector<MergeSource>& sources);

enum class MergeFormat { Json, Pftrace, Sqlite };
// The format a merged file's name asks for: ".json", ".pftrace" or ".sqlite"
// (one database, exporters/sqlite/sqlite.h); false for any other.
bool mergeFormatFor(const std::string& path, MergeFormat& format);

struct MergeResult {
  std::string error;  // empty on success: one line naming the path otherwise
  uint64_t events = 0;
  uint64_t flows = 0;
  uint64_t bytes = 0;
};
// Writes the merged timeline of `sources` to `path` (format from its name),
// safely (core/file_output.h): an existing file is replaced only with `overwrite`.
MergeResult writeMerged(const std::vector<MergeSource>& sources, const std::string& path,
                        bool overwrite);

}  // namespace cuptitrace
