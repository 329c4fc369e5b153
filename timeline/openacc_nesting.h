// How OpenACC events nest on their thread, decided once for the timeline and
// the openacc report: a compute construct holds its enqueue launch and its
// waits, a data construct its enter data, uploads and downloads. An event is
// the child of the innermost event of the same process and thread that holds
// its whole span (as a call stack nests); events that only overlap are not
// nested. Exclusive time is an event's own duration less the durations of its
// direct children (nvprof's "OpenACC (excl)").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

inline constexpr uint32_t kNoOpenAccParent = 0xffffffffu;

struct OpenAccNesting {
  uint32_t parent = kNoOpenAccParent;  // index of the parent event (store order), or none
  uint16_t depth = 0;                  // 0 for an outermost event
  uint64_t exclusiveNs = 0;            // 0 for an event without a valid time
};

// One entry per OpenAccRecord, in store order.
std::vector<OpenAccNesting> nestOpenAcc(const Trace& trace);
std::vector<OpenAccNesting> nestOpenAcc(const std::vector<OpenAccRecord>& records);

// The row name nvprof gives an event: "acc_enqueue_upload@layers_acc.c:50 (X[:in_size])":
// the event, the source file's name and line, and the variable or kernel.
std::string openAccEventLabel(const OpenAccRecord& r, const StringTable& strings);

}  // namespace cuptitrace
