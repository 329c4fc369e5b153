// Splitting a trace's timeline by time (CUPTITRACE_SPLIT), so that a long
// run gives several files of a size Perfetto loads, each complete on its own.
//
// The records are partitioned into consecutive time windows whose estimated
// output is about the target size each; every window becomes a Trace of its
// own with everything that describes the run (strings, metadata, devices,
// names, counters, drops) and only the window's records. A record belongs to
// the window its start falls in, except that the records of one correlation
// id go with the API call they came from: GPU work stays in the file of the
// call that launched it, so no launch arrow loses an end. An NVTX range or a
// call that starts in one window and ends in a later one is drawn whole in
// the first.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

struct SplitStats {
  uint32_t parts = 0;     // windows the trace was split into
  uint64_t records = 0;   // records handed out, every one exactly once
  uint64_t withLaunch = 0;  // records placed in an earlier window than their start, with their call
};

// The windows' boundaries: each is the first time (ns, trace clock) of a
// window after the first, ascending. `formats` (core/config.h Format bits)
// selects what the size is estimated for: the largest of them.
std::vector<uint64_t> splitPoints(const Trace& trace, uint64_t targetBytes, uint32_t formats);

// Calls `write(part, number, count)` for each window in time order, number
// counting from 1, with `part` valid only during the call. Stops after a
// call that returns false. Memory: one window's records at a time.
SplitStats forEachSplitPart(const Trace& trace, uint64_t targetBytes, uint32_t formats,
                            const std::function<bool(const Trace& part, uint32_t number, uint32_t count)>& write);

}  // namespace cuptitrace
