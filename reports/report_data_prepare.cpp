// ReportData's two sweeps over the timed records on threads of their own
// (prepare), and the accessors that wait for them: the devices' busy times
// and GPU summaries, the steps' splits of time by category and the whole
// run's. Each sweep reads the records, the planned windows and the steps,
// all made before the threads start, and writes only its own results.
#include <system_error>
#include <utility>

#include "core/ordered_work.h"
#include "reports/report_data.h"

namespace cuptitrace::reports {
namespace {

// Waits for `t`, and throws again what it threw.
void wait(std::thread& t, std::exception_ptr& error) {
  if (t.joinable()) t.join();
  if (!error) return;
  const std::exception_ptr e = std::exchange(error, nullptr);
  std::rethrow_exception(e);
}

// Runs `work` on thread `t`, what it throws kept in `error`; nothing when no
// thread is to be had (the accessor then does the work when asked).
template <typename Work>
void start(std::thread& t, std::exception_ptr& error, Work work) {
  try {
    t = std::thread([&error, work] {
      const OwnThread own("trace writer");
      try {
        work();
      } catch (...) {
        error = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
  }
}

}  // namespace

ReportData::~ReportData() {
  if (devicesThread_.joinable()) devicesThread_.join();
  if (splitsThread_.joinable()) splitsThread_.join();
}

void ReportData::prepare() {
  if (devicesThread_.joinable() || splitsThread_.joinable() || devices_ || stepSplits_) return;
  // What both sweeps read, made first: then neither changes anything shared.
  timeline();
  steps();
  if (!sweepPlan().planned) return;
  start(devicesThread_, devicesError_, [this] { computeDevices(); });
  start(splitsThread_, splitsError_, [this] { computeSplits(); });
}

void ReportData::ensureDevices() {
  wait(devicesThread_, devicesError_);
  if (!devices_) computeDevices();
}

void ReportData::computeSplits() {
  const std::vector<Interval> windows = stepWindows();
  stepSplits_ = windows.empty() ? std::vector<CategoryTimes>{} : splitTime(windows);
  // The utilization report's one row when there are no steps.
  if (windows.empty() && timeline().any) wholeSplit_ = splitTime({{timeline().start, timeline().end}}).front();
}

const std::vector<CategoryTimes>& ReportData::stepSplits() {
  wait(splitsThread_, splitsError_);
  if (!stepSplits_) {
    const std::vector<Interval> windows = stepWindows();
    stepSplits_ = windows.empty() ? std::vector<CategoryTimes>{} : splitTime(windows);
  }
  return *stepSplits_;
}

const CategoryTimes& ReportData::wholeSplit() {
  wait(splitsThread_, splitsError_);
  if (!wholeSplit_) wholeSplit_ = splitTime({{timeline().start, timeline().end}}).front();
  return *wholeSplit_;
}

}  // namespace cuptitrace::reports
