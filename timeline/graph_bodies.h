// The graph launch that ran the body of a conditional node (if, while,
// do-while, switch: CUDA 12.4+). CUPTI gives the kernels, copies and sets of
// a conditional node's body correlation id 0, so nothing ties them to the
// cudaGraphLaunch that ran them; but their graph id is the launched graph's,
// and the launch's other nodes carry its correlation id and that graph id.
// Both timeline exporters draw the arrow to such a body from the launch this
// finds, as they draw one to each of the launch's other nodes. The records
// keep the id CUPTI gave (0): the CSV and SQLite tables show that, and so do
// the slices' "correlation" arguments.
//
// Which launch: among the launches of the body's graph (known by their own
// nodes), on the body's stream where it has any, the latest whose own nodes
// started at or before the body. The nodes, not the launch call: a program
// queues launches well ahead of the GPU, so the next launch's call often
// starts while the previous launch's bodies still run, but a stream runs
// one launch after the other. A body that starts before the first node of
// any launch of its graph is given to the first launch whose call started
// before it. (A body that runs before the first ordinary node of its own
// launch goes to the launch before it, when there is one: the records do
// not tell those apart once launches are queued ahead.) A graph whose top
// level is only a conditional node (a while loop: every node that runs is a
// body) shows no launch by its nodes; its bodies, every iteration's, go to
// the latest graph launch call (cudaGraphLaunch, cuGraphLaunch) that started
// at or before them and ran no ordinary node. Work with correlation id 0 and
// no graph id (device-side launches) has no launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "timeline/timeline_slices.h"

namespace cuptitrace {

class GraphBodies {
 public:
  explicit GraphBodies(const TimelineRecords& rec);

  // The correlation id the launch arrow to `r`, the record at `index` of its
  // kind, ends with: its own, or for the body of a conditional node the
  // launch's; 0 when it has none.
  uint32_t correlation(const KernelRecord& r, size_t index) const { return find(r, 0, index); }
  uint32_t correlation(const MemcpyRecord& r, size_t index) const { return find(r, 1, index); }
  uint32_t correlation(const MemsetRecord& r, size_t index) const { return find(r, 2, index); }
  uint32_t correlation(const GraphRecord& r, size_t) const { return r.correlationId; }

  // Calls f(correlation, record) for every record of GPU work a launch arrow
  // may end at (TimelineRecords::forEachGpuWork), with the id it ends with.
  template <typename F>
  void forEachGpuWork(F&& f) const {
    each(rec_.kernels, f);
    each(rec_.memcpys, f);
    each(rec_.memsets, f);
    each(rec_.graphs, f);
  }

  const TimelineRecords& records() const { return rec_; }
  // Bodies given a launch.
  size_t bound() const { return launchOf_[0].size() + launchOf_[1].size() + launchOf_[2].size(); }

 private:
  template <typename R>
  uint32_t find(const R& r, int kind, size_t index) const {
    if (r.correlationId != 0 || r.graphId == 0 || launchOf_[kind].empty()) return r.correlationId;
    const auto it = launchOf_[kind].find(static_cast<uint32_t>(index));
    return it == launchOf_[kind].end() ? 0 : it->second;
  }
  template <typename R, typename F>
  void each(const ChunkedVector<R>& records, F& f) const {
    for (size_t c = 0; c < records.chunkCount(); ++c) {
      const R* p = records.chunkData(c);
      const size_t first = c * ChunkedVector<R>::kChunkRecords;
      for (size_t j = 0, n = records.chunkSize(c); j < n; ++j) f(correlation(p[j], first + j), p[j]);
    }
  }

  const TimelineRecords rec_;
  // By kind (kernels, copies, sets): record index -> the launch's correlation id.
  std::unordered_map<uint32_t, uint32_t> launchOf_[3];
};

}  // namespace cuptitrace
