// Windows of start time for writing a timeline in parts: a timeline of tens
// of millions of records cannot hold a slice for each at once, so the
// exporters lay out and write the slices that start in one window at a time
// (TrackLayout carries each track over), reading the records again for each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/chunked_vector.h"

namespace cuptitrace {

// How many slices a timeline exporter holds at once, by default: 1M slices
// of 24 bytes are 24 MiB, a fraction of the memory the exporters may use
// past the store's cap (CUPTITRACE_MAX_MEMORY + 64 MiB in all).
inline constexpr size_t kDefaultWindowSlices = size_t{1} << 20;

// Picks window bounds from the start times of every slice, seen in two
// passes: first(start) for each, then, when needsSecondPass(), second(start)
// for each again (a histogram). Windows hold at most `maxSlices` slices each,
// except where more than that start at nearly one time.
class WindowPlanner {
 public:
  explicit WindowPlanner(size_t maxSlices) : max_(maxSlices == 0 ? 1 : maxSlices) {}

  void first(uint64_t start) {
    lo_ = start < lo_ ? start : lo_;
    hi_ = start > hi_ ? start : hi_;
    ++count_;
  }
  // The first pass's result, where it is known without one: every start is
  // in [lo, hi], and there are at most `count` of them.
  void assume(uint64_t lo, uint64_t hi, uint64_t count) {
    lo_ = lo;
    hi_ = hi;
    count_ = count;
  }
  bool needsSecondPass() const { return count_ > max_; }
  void second(uint64_t start);

  // Window k holds the starts in [bounds[k], bounds[k + 1]); the first bound
  // is 0 and the last UINT64_MAX, so every start is in some window.
  std::vector<uint64_t> bounds() const;

 private:
  // Buckets of 2^shift_ nanoseconds from lo_, the least power of two that
  // fits the span in kBuckets: a shift per start, not a division.
  static constexpr size_t kBuckets = size_t{1} << 16;
  size_t bucket(uint64_t start) const {
    if (start <= lo_) return 0;
    if (start > hi_) return kBuckets - 1;
    return static_cast<size_t>((start - lo_) >> shift_);
  }

  size_t max_;
  unsigned shift_ = 0;
  uint64_t lo_ = UINT64_MAX, hi_ = 0;
  uint64_t count_ = 0;
  std::vector<uint64_t> histogram_;
};

// The earliest and latest start of the slices drawn from each chunk of a
// record sequence, so that a pass over one window skips the chunks that
// start none in it (records arrive nearly in time order).
class ChunkStarts {
 public:
  void add(size_t chunk, uint64_t start) {
    if (chunk >= ranges_.size()) ranges_.resize(chunk + 1);
    Range& r = ranges_[chunk];
    r.lo = start < r.lo ? start : r.lo;
    r.hi = start > r.hi ? start : r.hi;
  }
  // Whether chunk `chunk` may start a slice in [from, to), or at or after
  // `from` when `to` is UINT64_MAX (the last window holds the end of time).
  bool mayStartIn(size_t chunk, uint64_t from, uint64_t to) const {
    if (chunk >= ranges_.size()) return false;
    const Range& r = ranges_[chunk];
    if (r.lo > r.hi) return false;  // nothing drawn in it
    return (r.lo < to || to == UINT64_MAX) && r.hi >= from;
  }

 private:
  struct Range {
    uint64_t lo = UINT64_MAX, hi = 0;  // empty until a start is added
  };
  std::vector<Range> ranges_;
};

// Calls f(record, index) for each record of `records` that `timed` accepts
// (timed(start, end)) and that starts in [from, to), or at or after `from`
// when `to` is UINT64_MAX (the last window). With `planned` false
// every chunk is read and its starts noted in `starts`; with it true (after
// a first pass over the whole range) chunks that start nothing in the window
// are skipped.
// With `read`, f keeps no reference to a record past its call: spilled
// chunks are read, not mapped (ChunkedVector::scan); scanStartIn below.
// Only chunks [c0, c1) are read when those are given.
template <typename T, typename Timed, typename F>
void forEachStartIn(const ChunkedVector<T>& records, ChunkStarts& starts, bool planned, uint64_t from,
                    uint64_t to, Timed&& timed, F&& f, bool read = false, size_t c0 = 0,
                    size_t c1 = SIZE_MAX) {
  std::unique_ptr<T[]> copy;
  for (size_t c = c0; c < records.chunkCount() && c < c1; ++c) {
    if (planned && !starts.mayStartIn(c, from, to)) continue;
    const T* p = read ? records.chunkRecords(c, copy) : records.chunkData(c);
    const size_t n = records.chunkSize(c);
    const size_t first = c * ChunkedVector<T>::kChunkRecords;
    for (size_t j = 0; j < n; ++j) {
      const T& r = p[j];
      if (!timed(r.start, r.end) || r.start < from || (r.start >= to && to != UINT64_MAX)) continue;
      if (!planned) starts.add(c, r.start);
      f(r, first + j);
    }
  }
}

// forEachStartIn for a pass whose f keeps no reference to a record past its call.
template <typename T, typename Timed, typename F>
void scanStartIn(const ChunkedVector<T>& records, ChunkStarts& starts, bool planned, uint64_t from,
                 uint64_t to, Timed&& timed, F&& f, size_t c0 = 0, size_t c1 = SIZE_MAX) {
  forEachStartIn(records, starts, planned, from, to, timed, f, true, c0, c1);
}

}  // namespace cuptitrace
