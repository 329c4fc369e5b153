// Which calls start the launch -> GPU work arrows, in a few bits per
// correlation id, for timelines too large to index by record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/chunked_vector.h"
#include "core/records.h"

namespace cuptitrace {

// A set of correlation ids in [lo, hi]: a bitmap when the ids are about as
// many as the range (CUPTI hands them out in sequence), else a hash set.
// Ids outside the range are never members.
class IdSet {
 public:
  IdSet() = default;
  // `expected`: about how many ids will be inserted.
  IdSet(uint32_t lo, uint32_t hi, size_t expected);

  // True when `id` was not a member yet.
  bool insert(uint32_t id) {
    if (id < lo_ || id > hi_) return false;
    if (!dense_) return sparse_.insert(id).second;
    const uint64_t at = id - lo_;
    uint64_t& word = bits_[at >> 6];
    const uint64_t bit = uint64_t{1} << (at & 63);
    const bool added = (word & bit) == 0;
    word |= bit;
    return added;
  }
  bool contains(uint32_t id) const {
    if (id < lo_ || id > hi_) return false;
    if (!dense_) return sparse_.count(id) != 0;
    const uint64_t at = id - lo_;
    return (bits_[at >> 6] >> (at & 63)) & 1u;
  }

 private:
  uint32_t lo_ = 1;
  uint32_t hi_ = 0;  // empty range
  bool dense_ = true;
  std::vector<uint64_t> bits_;
  std::unordered_set<uint32_t> sparse_;
};

// The call each correlation id's arrow starts from, as LaunchIndex picks it: the runtime call over the driver call it made;
// among calls of one domain, the earliest and longest; calls not drawn and
// id 0 never. Holds two bits per id (IdSet), plus an entry for each id that
// two calls of one domain share, where LaunchIndex holds an index per id.
// The API record each correlation id's arrow starts from. When a runtime
// call and the driver call it made share the id, the runtime call (the outer
// one) is the source; among calls of one domain, the earliest and longest.
// Calls that are not drawn and correlation id 0 (device-side launches,
// unknown calls) are never sources. An index per id: for what needs the
// call itself (split output); the timeline exporters use FlowSources.
class LaunchIndex {
 public:
  static constexpr uint32_t kNone = 0xffffffffu;

  explicit LaunchIndex(const ChunkedVector<ApiRecord>& api);

  // Index of the API record that launched `correlationId`, or kNone.
  uint32_t find(uint32_t correlationId) const {
    if (dense_) {
      const uint64_t at = uint64_t{correlationId} - base_;
      return correlationId >= base_ && at < table_.size() ? table_[at] : kNone;
    }
    const auto it = map_.find(correlationId);
    return it == map_.end() ? kNone : it->second;
  }

 private:
  bool dense_ = false;
  uint32_t base_ = 0;
  std::vector<uint32_t> table_;
  std::unordered_map<uint32_t, uint32_t> map_;
};

class FlowSources {
 public:
  explicit FlowSources(const ChunkedVector<ApiRecord>& api);

  // The id's arrow has a call to start from.
  bool hasSource(uint32_t correlationId) const {
    return runtime_.contains(correlationId) || driver_.contains(correlationId);
  }
  // `r`, the API record at `index`, is where its id's arrow starts.
  bool isSource(size_t index, const ApiRecord& r) const;
  // Every id with a source lies in [lo(), hi()] (empty when lo() > hi()).
  uint32_t lo() const { return lo_; }
  uint32_t hi() const { return hi_; }
  size_t calls() const { return calls_; }

 private:
  uint32_t lo_ = 1, hi_ = 0;
  size_t calls_ = 0;
  IdSet runtime_;  // ids with a drawn call that is not a driver call
  IdSet driver_;   // ids with a drawn driver call
  std::unordered_map<uint32_t, uint32_t> shared_;  // ids two calls of one domain share -> the source
};

}  // namespace cuptitrace
