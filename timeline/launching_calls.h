// The CUDA call that launched a kernel, copy or set, by correlation id: its
// thread and start, to find what the program was doing on that thread when
// it made the call (its operator, its Python line: thread_ranges.h). Runtime
// and driver calls; where both carry the id, the runtime call. 16 bytes a call.
#pragma once

#include <cstdint>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

struct LaunchingCall {
  uint32_t correlationId = 0;
  uint32_t threadId = 0;
  uint64_t start = 0;
};

class LaunchingCalls {
 public:
  explicit LaunchingCalls(const Trace& trace);
  // The call with this correlation id; nullptr when it is not in the trace.
  const LaunchingCall* find(uint32_t correlationId) const;
  bool empty() const { return calls_.empty(); }

 private:
  std::vector<LaunchingCall> calls_;  // by correlation id
};

}  // namespace cuptitrace
