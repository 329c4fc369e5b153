#include "exporters/pftrace/pftrace_flows.h"

#include <algorithm>

#include "core/ordered_work.h"

namespace cuptitrace::pftrace {

void WindowCalls::index(const std::vector<uint32_t>& ids) {
  uint32_t lo = UINT32_MAX, hi = 0;
  for (const uint32_t id : ids) {
    lo = std::min(lo, id);
    hi = std::max(hi, id);
  }
  const uint64_t range = ids.empty() ? 0 : uint64_t{hi} - lo + 1;
  dense_ = range <= 8 * uint64_t{ids.size()} + 4096;
  if (dense_) {
    lo_ = lo;
    byId_.assign(range, 0);
    for (size_t k = 0; k < ids.size(); ++k) byId_[ids[k] - lo] = static_cast<uint32_t>(k + 1);
    return;
  }
  byId_.clear();
  sparse_.clear();
  sparse_.reserve(ids.size());
  for (size_t k = 0; k < ids.size(); ++k) sparse_[ids[k]] = static_cast<uint32_t>(k);
}

FlowWriter::FlowWriter(const Trace& trace, const TimelineRecords& rec) : trace_(trace), rec_(rec) {}

void FlowWriter::plan() {
  parts_ = std::make_unique<const Parts>(trace_, rec_);
  const FlowSources& sources = parts_->sources;
  gpuDrawn_ = IdSet(sources.lo(), sources.hi(), sources.calls());
  parts_->bodies.forEachGpuWork([&](uint32_t correlation, const auto& r) {
    if (!drawable(r.start, r.end) || !sources.hasSource(correlation)) return;
    if (!gpuDrawn_.insert(correlation)) {
      const uint32_t more = ++moreGpu_[correlation];
      maxFlows_ = std::max(maxFlows_, more + 1);
    }
  });
  lo_ = sources.lo();
  span_ = sources.hi() >= sources.lo() ? uint64_t{sources.hi()} - sources.lo() + 1 : 1;
}

uint64_t FlowWriter::idCount() const {
  return (uint64_t{maxFlows_} + (parts_->accFlows.empty() ? 0 : 1)) * span_;
}

void FlowWriter::readIds(const Slice* slices, size_t n, unsigned threads) {
  info_.assign(n, 0);
  const FlowSources& sources = parts_->sources;
  constexpr size_t kPart = 65536;
  const size_t parts = (n + kPart - 1) / kPart;
  struct Nothing {};
  runInOrder<Nothing>(
      parts, threads, 2 * size_t{threads},
      [&](unsigned, size_t part, Nothing&) {
        const size_t end = std::min(n, (part + 1) * kPart);
        for (size_t i = part * kPart; i < end; ++i) {
          const Slice& s = slices[i];
          const auto gpu = [&](const auto& records) {
            info_[i] = parts_->bodies.correlation(records[s.index], s.index);
          };
          switch (s.source) {
            case SliceSource::ApiRuntime:
            case SliceSource::ApiDriver: {
              const ApiRecord& r = rec_.api[s.index];
              if (sources.isSource(s.index, r) && gpuDrawn_.contains(r.correlationId)) info_[i] = r.correlationId;
              break;
            }
            case SliceSource::Kernel: gpu(rec_.kernels); break;
            case SliceSource::Memcpy: gpu(rec_.memcpys); break;
            case SliceSource::Memset: gpu(rec_.memsets); break;
            case SliceSource::Graph: gpu(rec_.graphs); break;
            default:
              break;
          }
        }
      },
      [](size_t, Nothing&) {});
}

void FlowWriter::decideGpu(uint32_t c, size_t slot, uint64_t start, const Slice* slices) {
  // The arrow from the OpenACC event that made the call, if it began no later.
  if (!accPending_.empty()) {
    const auto it = accPending_.find(c);
    if (it != accPending_.end() && it->second.first <= start) {
      info_[slot] |= kAccEnd;
      if (--it->second.second == 0) accPending_.erase(it);
    }
  }
  if (!parts_->sources.hasSource(c)) return;
  const int64_t k = windowCalls_.find(c);
  if (k >= 0) {  // its call began in this window
    const uint32_t call = callSlots_[k];
    if (slices[call].start <= start) {
      info_[slot] |= ++callTaken_[k];
      ++written_;
    } else {  // after it: the call starts one flow fewer
      --info_[call];
    }
    return;
  }
  if (!pending_.empty()) {
    const auto it = pending_.find(c);
    if (it != pending_.end()) {  // its call began in an earlier window
      info_[slot] |= ++it->second.next;
      ++written_;
      if (--it->second.remaining == 0) pending_.erase(it);
      return;
    }
  }
  ++early_[c];  // its call comes in a later window, or is not drawn
}

void FlowWriter::decide(const WindowLayout& layout, unsigned threads) {
  const size_t n = layout.tracks() == 0 ? 0 : layout.end(layout.tracks() - 1);
  const Slice* slices = layout.slices();
  // info_ holds each slot's id (readIds) until the passes below put their
  // answers in its place, the calls' in the first, the GPU slices' in the second.
  readIds(slices, n, threads);
  callIds_.clear();
  callSlots_.clear();
  callIds_.reserve(n);  // pages are touched only as the calls fill them: no copy as they grow
  callSlots_.reserve(n);
  // The window's calls first: a GPU slice of the window may follow a call
  // of the window on any track.
  for (size_t i = 0; i < n; ++i) {
    const Slice& s = slices[i];
    if (s.source == SliceSource::ApiRuntime || s.source == SliceSource::ApiDriver) {
      const uint32_t c = info_[i];
      if (c == 0) continue;
      uint32_t flows = 1;
      if (!moreGpu_.empty()) {
        const auto it = moreGpu_.find(c);
        if (it != moreGpu_.end()) flows += it->second;
      }
      if (!early_.empty()) {
        const auto it = early_.find(c);
        if (it != early_.end()) {
          flows -= it->second;
          early_.erase(it);
        }
      }
      info_[i] = flows;
      if (flows == 0) continue;
      callIds_.push_back(c);
      callSlots_.push_back(static_cast<uint32_t>(i));
    } else if (s.source == SliceSource::OpenAcc && !parts_->accFlows.empty()) {
      const std::vector<uint32_t>* calls = parts_->accFlows.callsOf(rec_.openacc[s.index].externalId);
      if (calls == nullptr) continue;
      for (const uint32_t c : *calls) {
        if (!gpuDrawn_.contains(c)) continue;
        auto [it, added] = accPending_.try_emplace(c, s.start, 0);
        if (!added) it->second.first = std::min(it->second.first, s.start);
        ++it->second.second;
      }
    }
  }
  windowCalls_.index(callIds_);
  callTaken_.assign(callIds_.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    const Slice& s = slices[i];
    switch (s.source) {
      case SliceSource::Kernel:
      case SliceSource::Memcpy:
      case SliceSource::Memset:
      case SliceSource::Graph: {
        const uint32_t c = info_[i];
        info_[i] = 0;
        decideGpu(c, i, s.start, slices);
        break;
      }
      default:
        break;
    }
  }
  // The calls whose GPU slices come in later windows wait for them.
  for (size_t k = 0; k < callIds_.size(); ++k) {
    const uint32_t flows = info_[callSlots_[k]];
    if (flows <= callTaken_[k]) continue;
    pending_[callIds_[k]] = Pending{callTaken_[k], flows - callTaken_[k]};
  }
}

}  // namespace cuptitrace::pftrace
