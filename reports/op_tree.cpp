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
  trace.store.records<KernelRecord>().scan([&](const KernelRecord& k) {
    auto [it, added] = tensorByName.try_emplace(k.name, false);
    if (added) it->second = usesTensorCores(demangler.get(trace.strings.get(k.name)));
    attribute(k.correlationId, k.start, k.end, it->second ? 2 : 1);
  });
  trace.store.records<MemcpyRecord>().scan(
      [&](const MemcpyRecord& m) { attribute(m.correlationId, m.start, m.end, 0); });
  trace.store.records<MemsetRecord>().scan(
      [&](const MemsetRecord& m) { attribute(m.correlationId, m.start, m.end, 0); });

  std::vector<TorchRange> texts(rs.size());
  for (uint32_t i = 0; i < rs.size(); ++i) texts[i] = parsed(i);
  mergeSameNamedChildren(texts);
  linkBackward(texts);
}

void OpTree::mergeSameNamedChildren(const std::vector<TorchRange>& texts) {
  // As PyTorch's profiler does before it counts (EventList's removal of duplicate nodes): an
  // operator whose only child has its name is one call with it ("aten::set_" of a tensor calling
  // aten::set_ of its storage), the child's children and GPU work its own. Ranges are in
  // thread order, each parent before its children, so a chain folds into its top.
  const auto& rs = ranges_.ranges();
  std::vector<uint32_t> children(rs.size(), 0);
  for (const ThreadRange& r : rs)
    if (r.parent != kNoRange) ++children[r.parent];
  for (uint32_t i = 0; i < rs.size(); ++i) {
    if (rs[i].parent == kNoRange) continue;
    const uint32_t p = times_[rs[i].parent].mergedInto != kNoRange ? times_[rs[i].parent].mergedInto : rs[i].parent;
    if (children[p] != 1 || texts[p].name != texts[i].name) continue;
    times_[i].mergedInto = p;
    children[p] = children[i];
    times_[p].hostSelf += times_[i].hostSelf;
    times_[p].deviceSelf += times_[i].deviceSelf;
    times_[p].kernelsSelf += times_[i].kernelsSelf;
    times_[p].kernelTimeSelf += times_[i].kernelTimeSelf;
    times_[p].tensorTimeSelf += times_[i].tensorTimeSelf;
    ++merged_;
  }
}

void OpTree::linkBackward(const std::vector<TorchRange>& texts) {
  // Backward nodes to forward operators. PyTorch numbers the backward nodes
  // a thread makes in sequence, each thread on its own, and every operator
  // run with autograd on carries the number the thread's next node will get,
  // so several do (the ones before the node is made, and those nested in its
  // maker); the node's maker is the last outermost forward operator of its
  // thread with its number (nested: inside an operator with the same number).
  // PyTorch links a node to its maker by the forward thread and the number;
  // the node's range names the number only, so the forward thread is the
  // node's own where it ran operators with that number before (backward on
  // the CPU runs on the calling thread), else, of the threads that did, one
  // that was running no operator when the node started (blocked in
  // backward()), the one whose candidate came last.
  const auto& rs = ranges_.ranges();
  std::unordered_map<int64_t, std::vector<uint32_t>> forwardBySeq;  // candidates, by start
  for (uint32_t i = 0; i < rs.size(); ++i) {
    if (texts[i].seq < 0 || texts[i].backward || times_[i].mergedInto != kNoRange) continue;
    const uint32_t p = rs[i].parent;
    if (p != kNoRange && texts[p].seq == texts[i].seq && !texts[p].backward) continue;
    forwardBySeq[texts[i].seq].push_back(i);
  }
  for (auto& [seq, list] : forwardBySeq)
    std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) { return rs[a].start < rs[b].start; });
  for (uint32_t i = 0; i < rs.size(); ++i) {
    if (texts[i].seq < 0 || !texts[i].backward) continue;
    const auto it = forwardBySeq.find(texts[i].seq);
    if (it == forwardBySeq.end()) continue;
    // Each thread's last candidate started at or before the node.
    std::unordered_map<uint32_t, uint32_t> lastByThread;
    for (const uint32_t f : it->second) {
      if (rs[f].start > rs[i].start) break;
      lastByThread[rs[f].threadId] = f;
    }
    uint32_t pick = kNoRange;
    if (const auto own = lastByThread.find(rs[i].threadId); own != lastByThread.end()) {
      pick = own->second;
    } else {
      bool pickIdle = false;
      for (const auto& [thread, f] : lastByThread) {
        const bool idle = ranges_.innermost(thread, rs[i].start) == kNoRange;
        if (pick == kNoRange || idle > pickIdle || (idle == pickIdle && rs[f].start > rs[pick].start))
          pick = f, pickIdle = idle;
      }
    }
    if (pick == kNoRange) continue;
    times_[i].forward = pick;
    ++linked_;
  }
}

TorchRange OpTree::parsed(uint32_t i) const { return parseTorchRange(trace_.strings.get(ranges_.ranges()[i].message)); }

}  // namespace cuptitrace::reports
