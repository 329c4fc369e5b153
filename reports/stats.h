// Exact statistics and interval arithmetic for the reports.
//
// Medians are exact: the values of a group are kept (8 bytes each) until its
// summary is made. The standard deviation is the sample one
// (divided by n - 1), as `nsys stats` prints it; one value has 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cuptitrace {

struct Summary {
  uint64_t count = 0;  // values summarized
  uint64_t total = 0;
  uint64_t min = 0;
  uint64_t max = 0;
  double mean = 0;
  double median = 0;  // the middle value; the mean of the two middle ones for an even count
  double stddev = 0;  // sample standard deviation (n - 1); 0 for fewer than two values
};

// Summarizes `values` exactly. Reorders them (nth_element); O(n).
Summary summarize(std::vector<uint64_t>& values);
Summary summarize(uint64_t* values, size_t n);

// A half-open time interval [start, end) in nanoseconds.
struct Interval {
  uint64_t start;
  uint64_t end;
};

// Sorts `v` and merges overlapping or touching intervals in place; empty
// intervals go. The result is sorted and disjoint with gaps between. The
// memory freed is given back when it is most of the vector.
void mergeIntervals(std::vector<Interval>& v);

// The union of two merged lists, merged.
std::vector<Interval> unionOf(const std::vector<Interval>& a, const std::vector<Interval>& b);

// Total length of a merged list.
uint64_t coveredLength(const std::vector<Interval>& merged);

// The gaps between the intervals of a merged list.
struct Gaps {
  uint64_t count = 0;
  uint64_t total = 0;
  uint64_t largest = 0;
  uint64_t largestStart = 0;  // where the largest gap begins (end of the interval before it)
};
Gaps gapsOf(const std::vector<Interval>& merged);

}  // namespace cuptitrace
