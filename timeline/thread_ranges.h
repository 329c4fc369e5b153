// Push/pop ranges of one thread nested in each other, for the question
// "which of them was open on thread T at time t?": the operator a kernel's
// launching call was made in, the Python line of a torch call. Built once
// from the NVTX records a caller picks (push/pop ranges with a time); each
// range knows its enclosing one. 32 bytes a range.
#pragma once

#include <cstdint>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

struct ThreadRange {
  uint64_t start = 0, end = 0;
  StringId message = kNoString;
  uint32_t threadId = 0;
  uint32_t parent = 0;  // index of the enclosing range, kNoRange when outermost
  uint32_t record = 0;  // the NvtxRecord's place among the records kept (forEach order)
};

inline constexpr uint32_t kNoRange = UINT32_MAX;

class ThreadRanges {
 public:
  // Keeps the push/pop ranges with a time for which keep(record) is true.
  template <typename Keep>
  static ThreadRanges build(const Trace& trace, Keep&& keep) {
    ThreadRanges out;
    uint32_t index = 0;
    trace.store.records<NvtxRecord>().forEach([&](const NvtxRecord& r) {
      if (static_cast<NvtxType>(r.type) != NvtxType::PushPop || r.end == 0 || r.end < r.start) return;
      if (!keep(r)) return;
      out.ranges_.push_back({r.start, r.end, r.message, r.threadId, kNoRange, index++});
    });
    out.finish();
    return out;
  }

  bool empty() const { return ranges_.empty(); }
  size_t size() const { return ranges_.size(); }
  // In thread order, then by start (the outer of two ranges starting together first).
  const std::vector<ThreadRange>& ranges() const { return ranges_; }
  // The innermost range open on `threadId` at `ts` (start <= ts < end); kNoRange when none.
  uint32_t innermost(uint32_t threadId, uint64_t ts) const;
  // Nesting depth of range `i` (0: outermost).
  uint32_t depth(uint32_t i) const;

 private:
  void finish();

  std::vector<ThreadRange> ranges_;
  std::vector<std::pair<uint32_t, uint32_t>> threads_;  // (thread id, first range), by thread id
};

}  // namespace cuptitrace
