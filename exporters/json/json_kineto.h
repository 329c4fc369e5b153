// The top-level members that the PyTorch profiler's trace (Kineto) writes
// before "traceEvents", which the tools written for it read: its schema
// version, the rank ("distributedInfo", found by Holistic Trace Analysis with
// the regex "rank":\s+(\d+), so with a space after the colon) and the GPUs
// ("deviceProperties", under Kineto's field names). Perfetto reads none of
// them and ignores them; our own "metadata" object still says everything.
#pragma once

#include <vector>

#include "core/json_text.h"
#include "core/trace.h"

namespace cuptitrace {

// `"schemaVersion": 1, "distributedInfo": {..}, "deviceProperties": [..], `
// for the traces of one file: "distributedInfo" only where they are one rank
// of a job (a merged file of several ranks has none: no rank is the file's);
// the devices of every trace, each id once.
void writeKinetoHeader(const std::vector<const Trace*>& traces, JsonText& b);

}  // namespace cuptitrace
