#include "reports/rank_summary.h"

#include <algorithm>

#include "timeline/nccl_names.h"

namespace cuptitrace {
namespace {

// Intervals of one GPU's work.
struct DeviceWork {
  std::vector<Interval> all;      // every kernel, copy and set
  std::vector<Interval> compute;  // kernels that are not NCCL's
  std::vector<Interval> comm;     // NCCL's kernels
};

bool timed(uint64_t start, uint64_t end) { return start != 0 && end >= start; }

}  // namespace

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
  const uint64_t offset = static_cast<uint64_t>(m.wallClockOffsetNs());

  std::map<uint32_t, DeviceWork> devices;
  NcclNames nccl(trace);
  struct Pending {
    const std::string* collective;
    uint64_t start;
    uint64_t duration;
  };
  std::vector<Pending> collectives;
  trace.store.records<KernelRecord>().forEach([&](const KernelRecord& k) {
    if (!timed(k.start, k.end)) return;
    DeviceWork& d = devices[k.deviceId];
    d.all.emplace_back(k.start, k.end);
    ++s.gpuRecords;
    if (const NcclKernelInfo* c = nccl.find(k.name)) {
      ++s.commKernels;
      s.commNs += k.end - k.start;
      d.comm.emplace_back(k.start, k.end);
      collectives.push_back({&c->collective, k.start, k.end - k.start});
    } else {
      ++s.computeKernels;
      s.computeNs += k.end - k.start;
      d.compute.emplace_back(k.start, k.end);
    }
  });
  auto copy = [&](uint32_t device, uint64_t start, uint64_t end) {
    if (!timed(start, end)) return;
    devices[device].all.emplace_back(start, end);
    ++s.gpuRecords;
    s.copyNs += end - start;
  };
  trace.store.records<MemcpyRecord>().forEach(
      [&](const MemcpyRecord& r) { copy(r.deviceId, r.start, r.end); });
  trace.store.records<MemsetRecord>().forEach(
      [&](const MemsetRecord& r) { copy(r.deviceId, r.start, r.end); });

  for (auto& [id, d] : devices) {
    ++s.gpus;
    const std::vector<Interval> busy = mergeIntervals(std::move(d.all));
    uint64_t busyNs = 0;
    for (const Interval& i : busy) busyNs += i.second - i.first;
    const uint64_t span = busy.back().second - busy.front().first;
    s.spanNs += span;
    s.idleNs += span - busyNs;
    s.overlappedNs += overlapWith(std::move(d.comm), mergeIntervals(std::move(d.compute)));
  }
  std::sort(collectives.begin(), collectives.end(),
            [](const Pending& a, const Pending& b) { return a.start < b.start; });
  for (const Pending& p : collectives)
    s.collectives[*p.collective].push_back({p.start + offset, p.duration});
  return s;
}

}  // namespace cuptitrace
