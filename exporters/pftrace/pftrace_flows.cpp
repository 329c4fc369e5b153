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
    : rec_(rec), ids_(ids), offset_(offset), sources_(rec.api), accFlows_(trace), bodies_(rec) {}

void FlowWriter::countGpuSlices() {
  gpuDrawn_ = IdSet(sources_.lo(), sources_.hi(), sources_.calls());
  bodies_.forEachGpuWork([&](uint32_t correlation, const auto& r) {
    if (!drawable(r.start, r.end) || !sources_.hasSource(correlation)) return;
    if (!gpuDrawn_.insert(correlation)) ++moreGpu_[correlation];
  });
}

}  // namespace cuptitrace::pftrace
