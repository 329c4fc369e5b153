// Busy time measured in one sweep over intervals given in start order, so
// that the reports need not hold an interval per record: the records are
// read a window of start times at a time (slice_windows.h), each window's
// intervals sorted and fed here.
#pragma once

#include <algorithm>
#include <cstdint>

#include "reports/stats.h"

namespace cuptitrace {

// The union of intervals fed in start order: its length and the gaps
// between its merged intervals, as mergeIntervals + coveredLength + gapsOf
// give for the same intervals, with only the last merged interval held.
// Overlapping or touching intervals merge; empty ones are ignored.
class UnionMeter {
 public:
  // `start` is not before any start fed earlier.
  void add(uint64_t start, uint64_t end) {
    if (end <= start) return;
    if (open_ && start <= end_) {
      end_ = std::max(end_, end);
      return;
    }
    if (open_) {
      covered_ += end_ - start_;
      const uint64_t gap = start - end_;
      ++gaps_.count;
      gaps_.total += gap;
      if (gap > gaps_.largest) {
        gaps_.largest = gap;
        gaps_.largestStart = end_;
      }
    }
    start_ = start;
    end_ = end;
    open_ = true;
  }
  uint64_t covered() const { return covered_ + (open_ ? end_ - start_ : 0); }
  const Gaps& gaps() const { return gaps_; }
  // The merged interval still growing, if any.
  bool open() const { return open_; }
  Interval last() const { return {start_, end_}; }

 private:
  bool open_ = false;
  uint64_t start_ = 0, end_ = 0;
  uint64_t covered_ = 0;  // of the merged intervals before the last
  Gaps gaps_;
};

}  // namespace cuptitrace
