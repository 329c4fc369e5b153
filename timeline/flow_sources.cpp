#include "timeline/flow_sources.h"

#include <algorithm>

#include "timeline/track_layout.h"

namespace cuptitrace {

IdSet::IdSet(uint32_t lo, uint32_t hi, size_t expected) : lo_(lo), hi_(hi) {
  if (lo > hi) return;
  const uint64_t range = uint64_t{hi} - lo + 1;
  // A bit per id in range against some 32 bytes per id in a hash set.
  dense_ = range <= 64 * uint64_t{expected} + 65536;
  if (dense_) bits_.assign((range + 63) / 64, 0);
}

namespace {

bool isDriverCall(const ApiRecord& r) { return r.domain == static_cast<uint8_t>(ApiDomain::Driver); }
bool usableSource(const ApiRecord& r) { return r.correlationId != 0 && drawable(r.start, r.end); }
// The ranking of calls sharing an id: runtime over driver, then earliest, then longest.
bool outranks(const ApiRecord& a, const ApiRecord& b) {
  if (isDriverCall(a) != isDriverCall(b)) return !isDriverCall(a);
  if (a.start != b.start) return a.start < b.start;
  return a.end > b.end;
}

// The range of correlation ids of the calls that can start an arrow, and how many calls.
struct SourceIds {
  uint32_t lo = UINT32_MAX, hi = 0;
  size_t calls = 0;
};

SourceIds sourceIds(const ChunkedVector<ApiRecord>& api) {
  SourceIds ids;
  api.scan([&](const ApiRecord& r) {
    if (!usableSource(r)) return;
    ids.lo = std::min(ids.lo, r.correlationId);
    ids.hi = std::max(ids.hi, r.correlationId);
    ++ids.calls;
  });
  return ids;
}

}  // namespace

LaunchIndex::LaunchIndex(const ChunkedVector<ApiRecord>& api) {
  const auto [lo, hi, n] = sourceIds(api);
  if (n == 0) return;
  // CUPTI hands correlation ids out in sequence, so a table indexed by id
  // is usually small and much faster than hashing; a hash map otherwise.
  if (hi - lo <= 4 * n + 4096) {
    dense_ = true;
    base_ = lo;
    table_.assign(size_t{hi - lo} + 1, kNone);
  }
  for (size_t i = 0; i < api.size(); ++i) {
    const ApiRecord& r = api[i];
    if (!usableSource(r)) continue;
    uint32_t& slot = dense_ ? table_[r.correlationId - base_]
                            : map_.try_emplace(r.correlationId, kNone).first->second;
    if (slot == kNone || outranks(r, api[slot])) slot = static_cast<uint32_t>(i);
  }
}

FlowSources::FlowSources(const ChunkedVector<ApiRecord>& api) {
  const SourceIds ids = sourceIds(api);
  calls_ = ids.calls;
  if (calls_ == 0) return;
  lo_ = ids.lo;
  hi_ = ids.hi;
  runtime_ = IdSet(lo_, hi_, calls_);
  driver_ = IdSet(lo_, hi_, calls_);
  api.scan([&](const ApiRecord& r) {
    if (!usableSource(r)) return;
    IdSet& domain = isDriverCall(r) ? driver_ : runtime_;
    if (!domain.insert(r.correlationId)) shared_.emplace(r.correlationId, UINT32_MAX);
  });
  if (shared_.empty()) return;
  // Rare (CUPTI gives each call its own id): rank the calls of those ids.
  for (size_t i = 0; i < api.size(); ++i) {
    const ApiRecord& r = api[i];
    if (!usableSource(r)) continue;
    const auto it = shared_.find(r.correlationId);
    if (it == shared_.end()) continue;
    if (it->second == UINT32_MAX || outranks(r, api[it->second])) it->second = static_cast<uint32_t>(i);
  }
}

bool FlowSources::isSource(size_t index, const ApiRecord& r) const {
  if (!usableSource(r)) return false;
  if (!shared_.empty()) {
    const auto it = shared_.find(r.correlationId);
    if (it != shared_.end()) return it->second == index;
  }
  return !isDriverCall(r) || !runtime_.contains(r.correlationId);
}

}  // namespace cuptitrace
