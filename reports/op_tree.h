// PyTorch's operators in a trace (torch_ops.h), each with the GPU time of
// the work launched inside it: a kernel, copy or set belongs to the
// innermost operator open on the thread of the CUDA call that launched it
// (timeline/launching_calls.h) when the call was made: that operator's device
// self time, and device total time of it and every operator around it, as
// the PyTorch profiler counts "Self CUDA" and "CUDA total". Host self time
// is an operator's time less that of the operators directly inside it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/trace.h"
#include "timeline/torch_ops.h"
#include "timeline/thread_ranges.h"

namespace cuptitrace::reports {

struct OpTimes {
  uint64_t hostSelf = 0;
  uint64_t deviceSelf = 0, deviceTotal = 0;
  uint64_t kernelsSelf = 0;  // kernels launched directly inside it
  uint32_t forward = kNoRange;  // a backward node's forward operator (same sequence number)
};

class OpTree {
 public:
  explicit OpTree(const Trace& trace);

  bool empty() const { return ranges_.empty(); }
  const ThreadRanges& ranges() const { return ranges_; }
  const std::vector<OpTimes>& times() const { return times_; }
  // Parsed text of operator `i`.
  TorchRange parsed(uint32_t i) const;
  // The operator open on the launching call's thread, by the launched work's correlation id.
  // GPU work launched outside every operator.
  uint64_t outsideRecords() const { return outsideRecords_; }
  uint64_t outsideTime() const { return outsideTime_; }
  uint64_t insideTime() const { return insideTime_; }
  // Backward nodes linked to their forward operator.
  uint64_t linkedBackward() const { return linked_; }

 private:
  const Trace& trace_;
  ThreadRanges ranges_;
  std::vector<OpTimes> times_;
  uint64_t outsideRecords_ = 0, outsideTime_ = 0, insideTime_ = 0, linked_ = 0;
};

}  // namespace cuptitrace::reports
