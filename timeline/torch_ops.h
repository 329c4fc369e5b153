// PyTorch's operators as NVTX ranges: what torch.autograd.profiler.emit_nvtx()
// and the Python start-up hook (CUPTITRACE_PYTORCH) make of each operator, and
// the other ranges PyTorch names (record_function scopes). The range's text is
//   NAME[, seq = N][, op_id = N][, sizes = [[..], ..]][, input_op_ids = [..]]
// ("aten::addmm, seq = 12, op_id = 40, sizes = [[64], [64, 128], [128, 64]]").
// A forward operator run with autograd on carries the sequence number of the
// backward node it makes; that node's range (ConvolutionBackward0, ...) on
// the autograd engine's thread carries the same number.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace.h"
#include "timeline/slice_categories.h"

namespace cuptitrace {

enum class RangeRole : uint8_t {
  None,          // not PyTorch's: the program's own range ("step 3")
  Operator,      // an operator or record_function scope ("aten::conv2d", "AddmmBackward0")
  DataLoader,    // "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
  Optimizer,     // "Optimizer.step#SGD.step" (an operator too)
  ProfilerStep,  // "ProfilerStep#3", torch.profiler's steps
};

struct TorchRange {
  std::string_view name;    // without what follows the first ", " part PyTorch adds
  int64_t seq = -1;         // the sequence number, -1 when none
  int64_t opId = -1;        // the operator's id (op_id), -1 when none
  std::string_view shapes;  // "[[64], [64, 128]]", empty when none
  RangeRole role = RangeRole::None;
  bool backward = false;    // a backward node ("...Backward0", "autograd::engine::evaluate_function: ...")
};

// Reads a range's text; role None for ranges PyTorch did not make.
TorchRange parseTorchRange(std::string_view text);

// The category a range of that role is written in (slice_categories.h):
// operators "cpu_op", torch.profiler's steps "user_annotation", the program's own ranges "nvtx".
SliceCategory rangeCategory(RangeRole role);

// Role of each range of the default NVTX domain, by message, computed once per message.
class TorchRanges {
 public:
  explicit TorchRanges(const Trace& trace) : trace_(trace) {}
  RangeRole role(const NvtxRecord& r);
  // Parsed text of a message (valid while the trace lives).
  TorchRange parsed(StringId message) const { return parseTorchRange(trace_.strings.get(message)); }

 private:
  const Trace& trace_;
  std::vector<int8_t> roles_;  // by message id: -1 not read yet, else a RangeRole
};

}  // namespace cuptitrace
