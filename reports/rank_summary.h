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
//   kernels   per kernel name: count, total, shortest, longest
//
// Every reader (the native trace here, a SQLite database in cli/rank_sqlite)
// feeds the same RankSummaryBuilder, so a summary does not depend on the
// format its trace was read from.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>


#include "core/trace.h"

namespace cuptitrace {

struct CollectiveInstance {
  uint64_t start = 0;       // wall clock (the trace's clock plus its offset)
  uint64_t durationNs = 0;  // on the GPU's own clock: comparable across hosts
};

// One kernel name's kernels on one rank.
struct KernelTotals {
  uint64_t count = 0;
  uint64_t totalNs = 0;
  uint64_t minNs = 0;
  uint64_t maxNs = 0;
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
  // Every kernel name (NCCL's too), as the trace names it.
  std::map<std::string, KernelTotals> kernels;

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

// Builds the totals of a RankSummary from GPU work given in any order. A
// kernel's name comes with a key the caller keeps stable for that name (a
// string id), so each name is parsed once however many kernels carry it.
class RankSummaryBuilder {
 public:
  explicit RankSummaryBuilder(RankSummary& s) : s_(s) {}

  template <typename NameOf>  // NameOf: () -> std::string_view
  void kernel(uint32_t device, uint64_t start, uint64_t end, uint64_t nameKey, NameOf&& nameOf) {
    if (!timed(start, end)) return;
    // Names are looked up per kernel: small keys (string ids) by index.
    if (nameKey < kDenseKeys) {
      if (nameKey >= dense_.size()) dense_.resize(nameKey + 1, kNoName);
      if (dense_[nameKey] == kNoName) dense_[nameKey] = resolve(nameOf());
      addKernel(device, start, end, names_[dense_[nameKey]]);
      return;
    }
    auto it = sparse_.find(nameKey);
    if (it == sparse_.end()) it = sparse_.emplace(nameKey, resolve(nameOf())).first;
    addKernel(device, start, end, names_[it->second]);
  }
  // A memory copy or set.
  void copy(uint32_t device, uint64_t start, uint64_t end);
  // Totals per GPU, and the collectives in order of start, moved to
  // `wallOffsetNs` (what puts the trace's clock on wall-clock time).
  void finish(uint64_t wallOffsetNs);

 private:
  struct Name {
    KernelTotals* totals;
    const std::string* collective;  // nullptr: not NCCL's
  };
  struct DeviceWork {
    std::vector<Interval> all;      // every kernel, copy and set
    std::vector<Interval> compute;  // kernels that are not NCCL's
    std::vector<Interval> comm;     // NCCL's kernels
  };
  struct Pending {
    const std::string* collective;
    uint64_t start;
    uint64_t duration;
  };
  static constexpr uint64_t kDenseKeys = 1u << 20;
  static constexpr uint32_t kNoName = UINT32_MAX;
  static bool timed(uint64_t start, uint64_t end) { return start != 0 && end >= start; }
  uint32_t resolve(std::string_view name);  // an index into names_
  void addKernel(uint32_t device, uint64_t start, uint64_t end, const Name& name);

  RankSummary& s_;
  std::vector<Name> names_;
  std::vector<uint32_t> dense_;
  std::unordered_map<uint64_t, uint32_t> sparse_;
  std::set<std::string> collectiveNames_;  // owns what Name::collective points at
  std::map<uint32_t, DeviceWork> devices_;
  std::vector<Pending> collectives_;
};

}  // namespace cuptitrace
