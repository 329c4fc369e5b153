#include "reports/op_tree.h"

#include <algorithm>
#include <unordered_map>

#include "core/demangle.h"
#include "reports/kernel_traits.h"
#include "timeline/launching_calls.h"

namespace cuptitrace::reports {

OpTree::OpTree(const Trace& trace) : trace_(trace) {
  TorchRanges roles(trace);
  ranges_ = ThreadRanges::build(trace, [&](const NvtxRecord& r) {
    const RangeRole role = roles.role(r);
    return role == RangeRole::Operator || role == RangeRole::Optimizer || role == RangeRole::DataLoader;
  });
  if (ranges_.empty()) return;
  const auto& rs = ranges_.ranges();
  times_.resize(rs.size());
  for (uint32_t i = 0; i < rs.size(); ++i) times_[i].hostSelf += rs[i].end - rs[i].start;
  for (uint32_t i = 0; i < rs.size(); ++i) {
    const uint32_t p = rs[i].parent;
    if (p == kNoRange) continue;
    const uint64_t d = rs[i].end - rs[i].start;
    times_[p].hostSelf -= std::min(times_[p].hostSelf, d);
  }

  const LaunchingCalls launches(trace);
  DemangleCache demangler;
  std::unordered_map<StringId, bool> tensorByName;
  // kernel: 0 for a copy or set, 1 for a kernel, 2 for a kernel on Tensor Cores.
  auto attribute = [&](uint32_t correlationId, uint64_t start, uint64_t end, int kernel) {
    if (end == 0 || end < start) return;
    const uint64_t d = end - start;
    const LaunchingCall* call = launches.find(correlationId);
    const uint32_t op = call != nullptr ? ranges_.innermost(call->threadId, call->start) : kNoRange;
    if (op == kNoRange) {
      ++outsideRecords_;
      outsideTime_ += d;
      return;
    }
    insideTime_ += d;
    times_[op].deviceSelf += d;
    if (kernel != 0) {
      ++times_[op].kernelsSelf;
      times_[op].kernelTimeSelf += d;
      if (kernel == 2) times_[op].tensorTimeSelf += d;
    }
    for (uint32_t p = op; p != kNoRange; p = rs[p].parent) {
      times_[p].deviceTotal += d;
      if (kernel != 0) times_[p].kernelTimeTotal += d;
      if (kernel == 2) times_[p].tensorTimeTotal += d;
    }
  };
  trace.store.records<KernelRecord>().forEach([&](const KernelRecord& k) {
    auto [it, added] = tensorByName.try_emplace(k.name, false);
    if (added) it->second = usesTensorCores(demangler.get(trace.strings.get(k.name)));
    attribute(k.correlationId, k.start, k.end, it->second ? 2 : 1);
  });
  trace.store.records<MemcpyRecord>().forEach(
      [&](const MemcpyRecord& m) { attribute(m.correlationId, m.start, m.end, 0); });
  trace.store.records<MemsetRecord>().forEach(
      [&](const MemsetRecord& m) { attribute(m.correlationId, m.start, m.end, 0); });

  // Backward nodes to forward operators. Every operator run with autograd on
  // carries the number the next backward node will get, so several do (the
  // ones before the node is made, and those nested in its maker); the node's
  // maker is the last outermost forward operator with its number (nested:
  // inside an operator with the same number).
  std::vector<uint32_t> byStart(rs.size());
  for (uint32_t i = 0; i < byStart.size(); ++i) byStart[i] = i;
  std::sort(byStart.begin(), byStart.end(), [&](uint32_t a, uint32_t b) {
    return rs[a].start < rs[b].start || (rs[a].start == rs[b].start && rs[a].end > rs[b].end);
  });
  std::vector<int64_t> seqs(rs.size(), -1);
  std::vector<uint8_t> backward(rs.size(), 0);
  for (uint32_t i = 0; i < rs.size(); ++i) {
    const TorchRange t = parsed(i);
    seqs[i] = t.seq;
    backward[i] = t.backward ? 1 : 0;
  }
  std::unordered_map<int64_t, uint32_t> forwardBySeq;
  for (const uint32_t i : byStart) {
    if (seqs[i] < 0 || backward[i]) continue;
    const uint32_t p = rs[i].parent;
    if (p != kNoRange && seqs[p] == seqs[i] && !backward[p]) continue;
    forwardBySeq[seqs[i]] = i;
  }
  for (uint32_t i = 0; i < rs.size(); ++i) {
    if (seqs[i] < 0 || !backward[i]) continue;
    const auto it = forwardBySeq.find(seqs[i]);
    if (it == forwardBySeq.end() || rs[it->second].start > rs[i].start) continue;
    times_[i].forward = it->second;
    ++linked_;
  }
}

TorchRange OpTree::parsed(uint32_t i) const { return parseTorchRange(trace_.strings.get(ranges_.ranges()[i].message)); }

}  // namespace cuptitrace::reports
