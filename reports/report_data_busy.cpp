// ReportData's device and time views: how busy each device was, the
// timeline of work, and the split of time by kind of work in windows.
#include "reports/report_data.h"

#include "core/nccl_kernel.h"
#include "reports/busy_sweep.h"
#include "reports/kernel_traits.h"
#include "timeline/torch_ops.h"
#include "timeline/slice_windows.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace cuptitrace::reports {

namespace {

bool isSyncCall(std::string_view name) {
  return name.find("Synchronize") != std::string_view::npos;
}

// Visits the timed kernels, copies and sets (f(start, end, device, kind,
// kernel), the kernel's record or null) that start in a window of the plan,
// and with them (when `withCalls`) the API calls and synchronization
// records, as kinds of the breakdown (Category).
class TimedWork {
 public:
  TimedWork(const Trace& trace, SweepPlan& plan, bool withCalls)
      : trace_(trace), plan_(plan), withCalls_(withCalls) {}

  template <typename F>
  void visit(uint64_t from, uint64_t to, F&& f) {
    const TraceStore& store = trace_.store;
    scanStartIn(store.records<KernelRecord>(), plan_.starts[0], plan_.planned, from, to, hasTime,
                   [&](const KernelRecord& r, size_t) {
                     f(r.start, r.end, r.deviceId,
                       withCalls_ && isNccl(r.name) ? Category::Communication : Category::Kernel, &r);
                   });
    scanStartIn(store.records<MemcpyRecord>(), plan_.starts[1], plan_.planned, from, to, hasTime,
                   [&](const MemcpyRecord& r, size_t) { f(r.start, r.end, r.deviceId, Category::Memcpy, nullptr); });
    scanStartIn(store.records<MemsetRecord>(), plan_.starts[2], plan_.planned, from, to, hasTime,
                   [&](const MemsetRecord& r, size_t) { f(r.start, r.end, r.deviceId, Category::Memset, nullptr); });
    if (!withCalls_) return;
    // API calls: those that wait for the GPU are Sync, the rest Runtime API.
    scanStartIn(store.records<ApiRecord>(), plan_.starts[3], plan_.planned, from, to, hasTime,
                   [&](const ApiRecord& a, size_t) {
                     if (a.name >= syncName_.size()) syncName_.resize(a.name + 1, -1);
                     int8_t& isSync = syncName_[a.name];
                     if (isSync < 0) isSync = isSyncCall(trace_.strings.get(a.name)) ? 1 : 0;
                     f(a.start, a.end, 0, isSync ? Category::Sync : Category::RuntimeApi, nullptr);
                   });
    scanStartIn(store.records<SyncRecord>(), plan_.starts[4], plan_.planned, from, to, hasTime,
                   [&](const SyncRecord& r, size_t) { f(r.start, r.end, 0, Category::Sync, nullptr); });
    // PyTorch's operators: the data loader's, and the rest as CPU Exec.
    scanStartIn(store.records<NvtxRecord>(), plan_.starts[5], plan_.planned, from, to, hasTime,
                   [&](const NvtxRecord& n, size_t) {
                     const RangeRole role = torch_.role(n);
                     if (role == RangeRole::DataLoader) f(n.start, n.end, 0, Category::DataLoader, nullptr);
                     else if (role == RangeRole::Operator || role == RangeRole::Optimizer)
                       f(n.start, n.end, 0, Category::CpuExec, nullptr);
                   });
  }

 private:
  bool isNccl(StringId name) {
    if (name >= ncclName_.size()) ncclName_.resize(static_cast<size_t>(name) + 1, -1);
    int8_t& v = ncclName_[name];
    if (v < 0) v = isNcclKernel(trace_.strings.get(name)) ? 1 : 0;
    return v == 1;
  }

  const Trace& trace_;
  SweepPlan& plan_;
  const bool withCalls_;
  std::vector<int8_t> syncName_;  // by name: 1 a call that waits, 0 not, -1 not known yet
  std::vector<int8_t> ncclName_;  // by kernel name: 1 NCCL's, 0 not, -1 not known yet
  TorchRanges torch_{trace_};
};

// Intervals of one kind of work in a window, put in start order to be
// measured; records of a kind arrive nearly in order, so most need no sort.
void sortByStart(std::vector<Interval>& v) {
  const auto byStart = [](const Interval& a, const Interval& b) { return a.start < b.start; };
  if (!std::is_sorted(v.begin(), v.end(), byStart)) std::sort(v.begin(), v.end(), byStart);
}

// A kernel of the GPU summary's span, cut to it, with its SM-efficiency units.
struct SpanKernel {
  uint64_t start, end, units;
};

}  // namespace

// One sweep of each device's kernels, copies and sets in start order, a
// window of start times at a time: the busy times and gaps (devices()) and
// the GPU summary over the steps' span (deviceSummaries()).
void ReportData::computeDevices() {
  // The summary's span: the steps', else all time.
  uint64_t from = 0, to = UINT64_MAX;
  const Steps& found = steps();
  const bool overSteps = !found.steps.empty();
  if (overSteps) {
    from = found.steps.front().start;
    to = 0;
    for (const Step& st : found.steps) to = std::max(to, st.end);
  }
  struct Slot {
    DeviceBusy d;
    UnionMeter kernels, all;
    std::array<std::vector<Interval>, 3> window;  // kernels, copies, sets starting in the window
    // The GPU summary.
    const DeviceInfo* info = nullptr;
    DeviceSummary s;
    uint64_t first = UINT64_MAX, last = 0;
    double occWeighted = 0, occTime = 0;
    UnionMeter spanBusy;
    CappedLevelSweep sm{1};
    std::vector<SpanKernel> spanWindow;  // the span's kernels starting in the window
  };
  std::vector<Slot> slots;
  size_t last = 0;
  auto slotFor = [&](uint32_t deviceId) -> Slot& {
    if (last < slots.size() && slots[last].d.deviceId == deviceId) return slots[last];
    for (last = 0; last < slots.size(); ++last)
      if (slots[last].d.deviceId == deviceId) return slots[last];
    slots.emplace_back();
    Slot& s = slots.back();
    s.d.deviceId = deviceId;
    s.d.firstStart = s.d.kernelFirstStart = UINT64_MAX;
    s.info = trace_.findDevice(deviceId);
    s.sm = CappedLevelSweep(s.info != nullptr ? s.info->multiprocessors : 1);
    return s;
  };
  std::vector<int8_t> tensor;  // by kernel name: 1 on Tensor Cores, 0 not, -1 not known yet
  OccupancyCache occupancy;
  // The order-free parts of the summary; the span's interval for the sweep.
  auto summarize = [&](Slot& s, const KernelRecord& k) {
    if (k.end <= from || k.start >= to) return;
    const uint64_t start = std::max(k.start, from), end = std::min(k.end, to);
    const uint64_t dur = end - start;
    ++s.s.kernels;
    s.s.kernelTime += dur;
    s.first = std::min(s.first, start);
    s.last = std::max(s.last, end);
    if (k.name >= tensor.size()) tensor.resize(std::max<size_t>(k.name + 1, trace_.strings.size()), -1);
    if (tensor[k.name] < 0)
      tensor[k.name] = usesTensorCores(devicesDemangler_.get(trace_.strings.get(k.name))) ? 1 : 0;
    if (tensor[k.name] == 1) s.s.tensorTime += dur;
    uint64_t units = 0;
    if (s.info != nullptr) {
      const KernelOccupancy& o = occupancy.get(k, *s.info);
      if (o.known) {
        s.s.occupancyKnown = true;
        // min(grid blocks, SMs): the kernel's SM efficiency times the SMs.
        const uint64_t sms = s.info->multiprocessors;
        units = o.gridBlocksPerSm >= 1.0 ? sms : static_cast<uint64_t>(k.gridX) * k.gridY * k.gridZ;
        s.occWeighted += o.achieved * static_cast<double>(dur);
        s.occTime += static_cast<double>(dur);
      }
    }
    s.spanWindow.push_back({start, end, units});
  };
  TimedWork gpu(trace_, sweepPlan(), false);
  const std::vector<uint64_t>& windows = sweepPlan().bounds;
  for (size_t w = 0; w + 1 < windows.size(); ++w) {
    gpu.visit(windows[w], windows[w + 1],
              [&](uint64_t start, uint64_t end, uint32_t device, Category c, const KernelRecord* k) {
                Slot& s = slotFor(device);
                DeviceBusy& d = s.d;
                // The first start and last end, zero-length records included.
                ++d.records;
                d.firstStart = std::min(d.firstStart, start);
                d.lastEnd = std::max(d.lastEnd, end);
                if (c == Category::Kernel) {
                  ++d.kernels;
                  d.kernelFirstStart = std::min(d.kernelFirstStart, start);
                  d.kernelLastEnd = std::max(d.kernelLastEnd, end);
                  summarize(s, *k);
                }
                s.window[static_cast<size_t>(c)].push_back({start, end});
              });
    for (Slot& s : slots) {
      for (auto& v : s.window) sortByStart(v);
      for (const Interval& i : s.window[0]) s.kernels.add(i.start, i.end);
      // All GPU work in start order: the three kinds merged as they are read
      // (as they are, when only one kind has any).
      const size_t kinds = !s.window[0].empty() + !s.window[1].empty() + !s.window[2].empty();
      for (size_t k = 0; k < 3 && kinds == 1; ++k)
        for (const Interval& i : s.window[k]) s.all.add(i.start, i.end);
      size_t at[3] = {0, 0, 0};
      while (kinds > 1) {
        size_t pick = 3;
        for (size_t k = 0; k < 3; ++k)
          if (at[k] < s.window[k].size() &&
              (pick == 3 || s.window[k][at[k]].start < s.window[pick][at[pick]].start))
            pick = k;
        if (pick == 3) break;
        const Interval& i = s.window[pick][at[pick]++];
        s.all.add(i.start, i.end);
      }
      for (auto& v : s.window) v.clear();
      const auto byStart = [](const SpanKernel& a, const SpanKernel& b) { return a.start < b.start; };
      if (!std::is_sorted(s.spanWindow.begin(), s.spanWindow.end(), byStart))
        std::sort(s.spanWindow.begin(), s.spanWindow.end(), byStart);
      for (const SpanKernel& k : s.spanWindow) {
        s.spanBusy.add(k.start, k.end);
        s.sm.add(k.start, k.end, k.units);
      }
      s.spanWindow.clear();
    }
  }
  std::sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) { return a.d.deviceId < b.d.deviceId; });
  std::vector<DeviceBusy> devices;
  std::vector<DeviceSummary> summaries;
  for (Slot& s : slots) {
    DeviceBusy& d = s.d;
    if (d.kernels == 0) d.kernelFirstStart = 0;
    d.kernelBusy = s.kernels.covered();
    d.kernelGaps = s.kernels.gaps();
    d.gpuBusy = s.all.covered();
    d.gaps = s.all.gaps();
    devices.push_back(d);
    if (s.s.kernels == 0) continue;  // none in the span
    DeviceSummary sum = s.s;
    sum.deviceId = d.deviceId;
    sum.overSteps = overSteps;
    sum.span = overSteps ? to - from : s.last - s.first;
    sum.busy = s.spanBusy.covered();
    if (sum.span && s.info != nullptr && s.info->multiprocessors != 0)
      sum.smEfficiency = static_cast<double>(s.sm.total()) / s.info->multiprocessors / static_cast<double>(sum.span);
    if (s.occTime > 0) sum.achievedOccupancy = s.occWeighted / s.occTime;
    summaries.push_back(sum);
  }
  devices_ = std::move(devices);
  deviceSummaries_ = std::move(summaries);
}

// One plan for every sweep: the timeline gives the span of the starts, and
// one pass over the timed records counts them in a histogram (the windows)
// and notes each chunk's starts (what a window's pass may skip).
SweepPlan& ReportData::sweepPlan() {
  if (plan_) return *plan_;
  SweepPlan plan;
  const TraceStore& store = trace_.store;
  WindowPlanner planner(options_.windowRecords);
  if (timeline().any) {
    uint64_t records = 0;
    for (const RecordKind k : {RecordKind::Kernel, RecordKind::Memcpy, RecordKind::Memset, RecordKind::Api,
                               RecordKind::Sync, RecordKind::Nvtx})
      records += store.count(k);
    planner.assume(timeline().start, timeline().end, records);
  }
  if (planner.needsSecondPass()) {
    const auto note = [&](const auto& r, size_t) { planner.second(r.start); };
    scanStartIn(store.records<KernelRecord>(), plan.starts[0], false, 0, UINT64_MAX, hasTime, note);
    scanStartIn(store.records<MemcpyRecord>(), plan.starts[1], false, 0, UINT64_MAX, hasTime, note);
    scanStartIn(store.records<MemsetRecord>(), plan.starts[2], false, 0, UINT64_MAX, hasTime, note);
    scanStartIn(store.records<ApiRecord>(), plan.starts[3], false, 0, UINT64_MAX, hasTime, note);
    scanStartIn(store.records<SyncRecord>(), plan.starts[4], false, 0, UINT64_MAX, hasTime, note);
    scanStartIn(store.records<NvtxRecord>(), plan.starts[5], false, 0, UINT64_MAX, hasTime, note);
    plan.planned = true;
  }
  plan.bounds = planner.bounds();
  plan_ = std::move(plan);
  return *plan_;
}

const std::vector<DeviceBusy>& ReportData::devices() {
  ensureDevices();
  return *devices_;
}

const Timeline& ReportData::timeline() {
  if (timeline_) return *timeline_;
  Timeline t;
  uint64_t first = UINT64_MAX, last = 0;
  auto see = [&](uint64_t start, uint64_t end) {
    if (!hasTime(start, end)) return;
    first = std::min(first, start);
    last = std::max(last, end);
  };
  const TraceStore& store = trace_.store;
  store.records<KernelRecord>().scan([&](const KernelRecord& r) { see(r.start, r.end); });
  store.records<MemcpyRecord>().scan([&](const MemcpyRecord& r) { see(r.start, r.end); });
  store.records<MemsetRecord>().scan([&](const MemsetRecord& r) { see(r.start, r.end); });
  store.records<NvtxRecord>().scan([&](const NvtxRecord& r) { see(r.start, r.end); });
  store.records<ApiRecord>().scan([&](const ApiRecord& r) { see(r.start, r.end); });
  store.records<SyncRecord>().scan([&](const SyncRecord& r) { see(r.start, r.end); });
  t.any = first != UINT64_MAX;
  t.start = t.any ? first : 0;
  t.end = t.any ? last : 0;
  timeline_ = t;
  return *timeline_;
}

const Steps& ReportData::steps() {
  if (!steps_) steps_ = findSteps(trace_, options_.stepRange);
  return *steps_;
}

// The split over each step, the warm-up's last; none without steps.
std::vector<CategoryTimes> ReportData::makeStepSplits() {
  std::vector<Interval> windows;
  windows.reserve(steps().steps.size());
  for (const Step& s : steps().steps) windows.push_back({s.start, s.end});
  if (steps().warmup) windows.push_back({steps().warmup->start, steps().warmup->end});  // last, after the steps
  return windows.empty() ? std::vector<CategoryTimes>{} : splitTime(windows);
}

CategoryTimes ReportData::makeWholeSplit() { return splitTime({{timeline().start, timeline().end}}).front(); }

const std::vector<DeviceSummary>& ReportData::deviceSummaries() {
  ensureDevices();
  return *deviceSummaries_;
}

std::vector<CategoryTimes> ReportData::splitTime(const std::vector<Interval>& windows) {
  std::vector<CategoryTimes> total(windows.size(), CategoryTimes{});
  TimedWork all(trace_, sweepPlan(), true);
  const std::vector<uint64_t>& bounds = sweepPlan().bounds;
  // Per category: its merged intervals not yet swept, the last still growing.
  std::array<std::vector<Interval>, kCategories> merged;
  std::array<std::vector<Interval>, kCategories> window;  // starting in the window
  uint64_t swept = 0;
  for (size_t b = 0; b + 1 < bounds.size(); ++b) {
    all.visit(bounds[b], bounds[b + 1], [&](uint64_t start, uint64_t end, uint32_t, Category c, const KernelRecord*) {
      if (end > start) window[static_cast<size_t>(c)].push_back({start, end});
    });
    for (size_t c = 0; c < kCategories; ++c) {
      sortByStart(window[c]);
      std::vector<Interval>& m = merged[c];
      for (const Interval& i : window[c]) {
        if (!m.empty() && i.start <= m.back().end) {
          m.back().end = std::max(m.back().end, i.end);
        } else {
          m.push_back(i);
        }
      }
      window[c].clear();
    }
    // Everything starting later starts at or after `until`: each category's
    // time before it is final, and is swept now.
    // Only the first merged interval can start before `swept` (carried from
    // the window before) and only the last end after `until`: both are cut
    // to [swept, until) in place, and the last is kept whole for later.
    const uint64_t until = bounds[b + 1];
    std::array<std::optional<Interval>, kCategories> carried;
    for (size_t c = 0; c < kCategories; ++c) {
      std::vector<Interval>& m = merged[c];
      if (m.empty()) continue;
      carried[c] = m.back();
      m.front().start = std::max(m.front().start, swept);
      m.back().end = std::min(m.back().end, until);
      if (m.back().end <= m.back().start) m.pop_back();
      if (!m.empty() && m.front().end <= m.front().start) m.erase(m.begin());
    }
    const std::vector<CategoryTimes> part = splitByCategory(merged, windows, swept, until);
    for (size_t w = 0; w < windows.size(); ++w)
      for (size_t c = 0; c <= kCategories; ++c) total[w][c] += part[w][c];
    for (size_t c = 0; c < kCategories; ++c) {
      merged[c].clear();
      if (carried[c]) merged[c].push_back(*carried[c]);
    }
    swept = until;
  }
  return total;
}

}  // namespace cuptitrace::reports
