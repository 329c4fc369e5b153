#include "reports/rank_summary.h"

#include <algorithm>

#include "core/nccl_kernel.h"

namespace cuptitrace {

std::vector<Interval> mergeIntervals(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<Interval> merged;
  for (const Interval& i : intervals) {
    if (!merged.empty() && i.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, i.second);
    else
      merged.push_back(i);
  }
  return merged;
}

uint64_t overlapWith(std::vector<Interval> intervals, const std::vector<Interval>& covered) {
  std::sort(intervals.begin(), intervals.end());
  uint64_t total = 0;
  size_t first = 0;  // the first covered interval that may still meet the next one
  for (const Interval& i : intervals) {
    while (first < covered.size() && covered[first].second <= i.first) ++first;
    for (size_t c = first; c < covered.size() && covered[c].first < i.second; ++c) {
      const uint64_t lo = std::max(i.first, covered[c].first);
      const uint64_t hi = std::min(i.second, covered[c].second);
      if (hi > lo) total += hi - lo;
    }
  }
  return total;
}

uint32_t RankSummaryBuilder::resolve(std::string_view name) {
  Name n{&s_.kernels[std::string(name)], nullptr};
  NcclKernelInfo info;
  if (parseNcclKernel(name, info)) n.collective = &*collectiveNames_.insert(info.collective).first;
  names_.push_back(n);
  return static_cast<uint32_t>(names_.size() - 1);
}

void RankSummaryBuilder::addKernel(uint32_t device, uint64_t start, uint64_t end, const Name& name) {
  const uint64_t duration = end - start;
  DeviceWork& d = devices_[device];
  d.all.emplace_back(start, end);
  ++s_.gpuRecords;
  KernelTotals& k = *name.totals;
  k.minNs = k.count == 0 ? duration : std::min(k.minNs, duration);
  k.maxNs = std::max(k.maxNs, duration);
  ++k.count;
  k.totalNs += duration;
  if (name.collective != nullptr) {
    ++s_.commKernels;
    s_.commNs += duration;
    d.comm.emplace_back(start, end);
    collectives_.push_back({name.collective, start, duration});
  } else {
    ++s_.computeKernels;
    s_.computeNs += duration;
    d.compute.emplace_back(start, end);
  }
}

void RankSummaryBuilder::copy(uint32_t device, uint64_t start, uint64_t end) {
  if (!timed(start, end)) return;
  devices_[device].all.emplace_back(start, end);
  ++s_.gpuRecords;
  s_.copyNs += end - start;
}

void RankSummaryBuilder::finish(uint64_t wallOffsetNs) {
  for (auto& [id, d] : devices_) {
    ++s_.gpus;
    const std::vector<Interval> busy = mergeIntervals(std::move(d.all));
    uint64_t busyNs = 0;
    for (const Interval& i : busy) busyNs += i.second - i.first;
    const uint64_t span = busy.back().second - busy.front().first;
    s_.spanNs += span;
    s_.idleNs += span - busyNs;
    s_.overlappedNs += overlapWith(std::move(d.comm), mergeIntervals(std::move(d.compute)));
  }
  devices_.clear();
  // Ties broken by duration and name: the order does not depend on the order
  // a reader met the records in.
  std::sort(collectives_.begin(), collectives_.end(), [](const Pending& a, const Pending& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.duration != b.duration) return a.duration < b.duration;
    return *a.collective < *b.collective;
  });
  for (const Pending& p : collectives_)
    s_.collectives[*p.collective].push_back({p.start + wallOffsetNs, p.duration});
  collectives_.clear();
}

RankSummary summarizeRank(const Trace& trace, const std::string& file) {
  RankSummary s;
  const TraceMetadata& m = trace.meta;
  s.file = file;
  s.host = m.hostName;
  s.processName = m.processName;
  s.pid = m.pid;
  s.rank = m.rank;
  s.worldSize = m.worldSize;
  s.dropped = trace.totalDropped();
  RankSummaryBuilder b(s);
  trace.store.records<KernelRecord>().scan([&](const KernelRecord& k) {
    b.kernel(k.deviceId, k.start, k.end, k.name, [&] { return trace.strings.get(k.name); });
  });
  trace.store.records<MemcpyRecord>().scan(
      [&](const MemcpyRecord& r) { b.copy(r.deviceId, r.start, r.end); });
  trace.store.records<MemsetRecord>().scan(
      [&](const MemsetRecord& r) { b.copy(r.deviceId, r.start, r.end); });
  b.finish(static_cast<uint64_t>(m.wallClockOffsetNs()));
  return s;
}

}  // namespace cuptitrace
