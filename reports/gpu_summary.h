// The GPU summary's numbers per device (report_gpu_kernels.cpp), shared by
// the gpu_summary report and the findings. They are made in ReportData's
// sweep of the devices' work (report_data_busy.cpp), in start order, with
// the busy times of the utilization report: one pass over the kernels.
#pragma once

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

namespace cuptitrace::reports {

struct DeviceSummary {
  uint32_t deviceId = 0;
  uint64_t kernels = 0;
  uint64_t span = 0;        // the steps' span, or the device's first kernel to its last
  uint64_t busy = 0;        // union of kernel intervals in the span
  uint64_t kernelTime = 0;  // summed kernel time in the span
  uint64_t tensorTime = 0;  // of which on Tensor Cores
  bool occupancyKnown = false;
  double smEfficiency = 0;  // 0..1 over the span
  double achievedOccupancy = 0;  // 0..1, kernel-time weighted
  bool overSteps = false;
};

// The time integral of min(level, cap), where each interval adds its units
// to the level while it runs; the intervals come in start order, and only
// those still running are held (a heap of their ends). The estimated SM
// efficiency: a kernel's units are min(grid blocks, SMs), the cap the SMs,
// so that overlapping kernels fill the SMs, never more than fill them; in
// integers, so the sum is exact whatever the order of equal times.
class CappedLevelSweep {
 public:
  explicit CappedLevelSweep(uint64_t cap) : cap_(cap) {}

  void add(uint64_t start, uint64_t end, uint64_t units) {
    if (end <= start || units == 0) return;
    if (!running_.empty()) advance(start);  // ends what ended by `start`
    if (!running_.empty()) {
      level_ += units;
      running_.push({end, units});
      return;
    }
    // Nothing in the heap. One interval at a time, as kernels on one stream
    // run, is held alone and needs no heap; a second one running with it
    // puts both there.
    if (alone_ && aloneEnd_ > start) {
      alone_ = false;
      level_ += aloneUnits_;
      running_.push({aloneEnd_, aloneUnits_});
      advance(start);
      level_ += units;
      running_.push({end, units});
      return;
    }
    endAlone();
    alone_ = true;
    now_ = start;
    aloneEnd_ = end;
    aloneUnits_ = units;
  }
  // The integral so far, every interval ended.
  uint64_t total() {
    endAlone();
    while (!running_.empty()) advance(running_.top().first);
    return total_;
  }

 private:
  void endAlone() {
    if (!alone_) return;
    total_ += (aloneUnits_ < cap_ ? aloneUnits_ : cap_) * (aloneEnd_ - now_);
    now_ = aloneEnd_;
    alone_ = false;
  }
  // Moves the sweep to `t`, ending the intervals that end by then.
  void advance(uint64_t t) {
    while (!running_.empty() && running_.top().first <= t) {
      const auto [end, units] = running_.top();
      running_.pop();
      move(end);
      level_ -= units;
    }
    move(t);
  }
  void move(uint64_t t) {
    if (t > now_) total_ += (level_ < cap_ ? level_ : cap_) * (t - now_);
    now_ = t;
  }

  using End = std::pair<uint64_t, uint64_t>;  // end, units
  uint64_t cap_;
  uint64_t level_ = 0, now_ = 0, total_ = 0;
  bool alone_ = false;  // one interval runs, from now_, outside the heap (empty; level_ 0)
  uint64_t aloneEnd_ = 0, aloneUnits_ = 0;
  std::priority_queue<End, std::vector<End>, std::greater<End>> running_;
};

}  // namespace cuptitrace::reports
