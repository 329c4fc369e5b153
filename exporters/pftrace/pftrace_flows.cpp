#include "exporters/pftrace/pftrace_flows.h"

#include <algorithm>

#include "exporters/pftrace/pftrace_schedule.h"
#include "exporters/pftrace/pftrace_tracks.h"

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

uint32_t FlowWriter::arrowCorrelation(const Slice& s) const {
  switch (s.source) {
    case SliceSource::Kernel:
      return correlation(rec_.kernels[s.index], s.index);
    case SliceSource::Memcpy:
      return correlation(rec_.memcpys[s.index], s.index);
    case SliceSource::Memset:
      return correlation(rec_.memsets[s.index], s.index);
    case SliceSource::Graph:
      return correlation(rec_.graphs[s.index], s.index);
    default:
      return 0;
  }
}

FlowCounter::FlowCounter(const FlowWriter& flows, const TimelineRecords& rec)
    : w_(flows),
      rec_(rec),
      callsBefore_(flows.sources().lo(), flows.sources().hi(), flows.sources().calls()) {}

void FlowCounter::addWindow(const TrackRegistry& tracks, const EventSchedule& schedule) {
  const FlowSources& sources = w_.sources();
  // Where each call is by id: a table over the window's ids when they are
  // about as many as their range (CUPTI hands them out in sequence), else the
  // pairs sorted. A window holds far fewer than 2^32 slices (24 bytes each).
  constexpr uint32_t kNoCall = UINT32_MAX;
  calls_.clear();
  for (size_t i = 0; i < tracks.size() && !TrackRegistry::isGpu(tracks[i]); ++i) {
    const Cursor& c = schedule.cursor(i);
    for (size_t at = c.slice; at < c.sliceEnd; ++at) {
      const Slice& s = schedule.slice(at);
      if (s.source != SliceSource::ApiRuntime && s.source != SliceSource::ApiDriver) continue;
      const ApiRecord& r = rec_.api[s.index];
      if (sources.isSource(s.index, r) && w_.gpuDrawn(r.correlationId))
        calls_.emplace_back(r.correlationId, static_cast<uint32_t>(at));
    }
  }
  uint32_t lo = UINT32_MAX, hi = 0;
  for (const auto& call : calls_) {
    lo = std::min(lo, call.first);
    hi = std::max(hi, call.first);
  }
  const bool dense = !calls_.empty() && hi - lo <= 4 * uint64_t{calls_.size()} + 4096;
  if (dense) {
    callAt_.assign(size_t{hi - lo} + 1, kNoCall);
    for (const auto& call : calls_) callAt_[call.first - lo] = call.second;
  } else if (!std::is_sorted(calls_.begin(), calls_.end())) {
    std::sort(calls_.begin(), calls_.end());
  }
  auto callOf = [&](uint32_t correlation) {
    if (dense) return correlation >= lo && correlation <= hi ? callAt_[correlation - lo] : kNoCall;
    const auto it = std::lower_bound(calls_.begin(), calls_.end(), std::make_pair(correlation, 0u));
    return it != calls_.end() && it->first == correlation ? it->second : kNoCall;
  };
  for (size_t i = 0; i < tracks.size(); ++i) {
    if (tracks[i].kind != TrackKind::Stream) continue;
    const Cursor& c = schedule.cursor(i);
    for (size_t at = c.slice; at < c.sliceEnd; ++at) {
      const uint32_t correlation = w_.arrowCorrelation(schedule.slice(at));
      if (!sources.hasSource(correlation)) continue;
      if (callsBefore_.contains(correlation)) {
        ++flows_;
        continue;
      }
      const uint32_t call = callOf(correlation);
      if (call != kNoCall && schedule.slice(call).start <= schedule.slice(at).start) ++flows_;
    }
  }
  for (const auto& call : calls_) callsBefore_.insert(call.first);
}

}  // namespace cuptitrace::pftrace
