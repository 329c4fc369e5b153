// PyTorch's operators in a trace (torch_ops.h), each with the GPU time of
// the work launched inside it: a kernel, copy or set belongs to the
// innermost operator open on the thread of the CUDA call that launched it
// (timeline/launching_calls.h) when the call was made: that operator's device
// self time, and device total time of it and every operator around it, as
// the PyTorch profiler counts "Self CUDA" and "CUDA total". Host self time
// is an operator's time less that of the operators directly inside it.
// An operator whose only child has its name is one call with it, as the
// PyTorch profiler counts them. A backward node is linked to the forward
// operator that made it, by thread and sequence number.
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
  uint32_t forward = kNoRange;  // a backward node's forward operator (same thread's sequence number)
  // The operator this one is counted in: it is the only child of one with its name (op_tree.cpp);
  // its self times are added there. kNoRange for operators counted as calls of their own.
  uint32_t mergedInto = kNoRange;
  // Kernel time alone (no copies or sets), and of it the kernels on Tensor
  // Cores (kernel_traits.h), launched directly inside it and inside it at all.
  uint64_t kernelTimeSelf = 0, kernelTimeTotal = 0;
  uint64_t tensorTimeSelf = 0, tensorTimeTotal = 0;
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
  // Operators counted in a same-named parent (OpTimes::mergedInto).
  uint64_t mergedCalls() const { return merged_; }

 private:
  void mergeSameNamedChildren(const std::vector<TorchRange>& texts);
  void linkBackward(const std::vector<TorchRange>& texts);

  const Trace& trace_;
  ThreadRanges ranges_;
  std::vector<OpTimes> times_;
  uint64_t outsideRecords_ = 0, outsideTime_ = 0, insideTime_ = 0, linked_ = 0, merged_ = 0;
};

}  // namespace cuptitrace::reports
