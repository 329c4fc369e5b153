#include "exporters/pftrace/pftrace_flows.h"

#include <algorithm>

namespace cuptitrace::pftrace {

void PendingFlows::grow() {
  std::vector<Entry> old = std::move(table_);
  const size_t size = old.empty() ? 64 : 2 * old.size();
  table_.assign(size, Entry{0, 0});
  mask_ = size - 1;
  shift_ = 64;
  for (size_t n = size; n > 1; n >>= 1) --shift_;
  used_ = 0;
  for (const Entry& e : old)
    if (e.correlation != 0) add(e.correlation, e.flow);
}

FlowWriter::FlowWriter(const Trace& trace, const TimelineRecords& rec, FlowIds& ids,
                       uint64_t offset)
    : trace_(trace), rec_(rec), ids_(ids), offset_(offset) {}

void FlowWriter::plan() {
  parts_ = std::make_unique<const Parts>(trace_, rec_);
  const FlowSources& sources = parts_->sources;
  gpuDrawn_ = IdSet(sources.lo(), sources.hi(), sources.calls());
  parts_->bodies.forEachGpuWork([&](uint32_t correlation, const auto& r) {
    if (!drawable(r.start, r.end) || !sources.hasSource(correlation)) return;
    if (!gpuDrawn_.insert(correlation)) ++moreGpu_[correlation];
  });
}

}  // namespace cuptitrace::pftrace
