// One rank's trace reduced to what the cross-rank reports need
// (reports/rank_reports.h): a few totals, and the duration of each NCCL
// collective it ran, in order. A summary is made from one trace, after which
// the trace can go: reports over many ranks hold summaries, never traces.
//
// What is counted, per rank, summed over its GPUs:
//   compute   kernels that are not NCCL's
//   comm      NCCL's kernels (core/nccl_kernel.h)
//   copies    memory copies and sets
//   idle      per GPU, the time from its first GPU work to its last in which
//             nothing ran (of any kind), summed over the GPUs
//   overlap   the part of the comm time during which a compute kernel ran on
//             the same GPU (DDP hides its all-reduces behind the backward pass)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

struct CollectiveInstance {
  uint64_t start = 0;       // wall clock (the trace's clock plus its offset)
  uint64_t durationNs = 0;  // on the GPU's own clock: comparable across hosts
};

struct RankSummary {
  std::string file;
  std::string host;
  std::string processName;
  uint32_t pid = 0;
  int64_t rank = -1;  // -1: the process had none
  uint32_t worldSize = 0;
  uint32_t gpus = 0;        // devices that ran work
  uint64_t gpuRecords = 0;  // kernels, copies and sets
  uint64_t computeKernels = 0;
  uint64_t commKernels = 0;
  uint64_t computeNs = 0;
  uint64_t commNs = 0;
  uint64_t copyNs = 0;
  uint64_t idleNs = 0;
  uint64_t spanNs = 0;        // summed over GPUs: first work to last
  uint64_t overlappedNs = 0;  // comm time during which compute ran on the same GPU
  uint64_t dropped = 0;
  // Each NCCL collective ("AllReduce", "SendRecv", ...) in order of start.
  std::map<std::string, std::vector<CollectiveInstance>> collectives;

  bool hasGpuWork() const { return gpuRecords != 0; }
};

RankSummary summarizeRank(const Trace& trace, const std::string& file);

// Total length of the intersection of a set of intervals with a union of
// disjoint, sorted intervals (`covered`). Each of `intervals` counts on its
// own, so overlapping ones count their common part twice. Exposed for tests.
using Interval = std::pair<uint64_t, uint64_t>;  // [start, end)
uint64_t overlapWith(std::vector<Interval> intervals, const std::vector<Interval>& covered);
// Sorts and merges into disjoint intervals.
std::vector<Interval> mergeIntervals(std::vector<Interval> intervals);

}  // namespace cuptitrace
