// ReportData's two sweeps over the timed records on threads of their own
// (prepare), and the accessors that wait for them: the devices' busy times
// and GPU summaries, the steps' splits of time by category and the whole
// run's. Each sweep reads the records, the planned windows and the steps,
// all made before the threads start, and writes only its own results.
#include <optional>

#include "core/side_task.h"
#include "reports/report_data.h"

namespace cuptitrace::reports {

ReportData::~ReportData() = default;  // the tasks wait for their threads

void ReportData::prepare() {
  if (devicesTask_ || splitsTask_ || devices_ || stepSplits_) return;
  // What both sweeps read, made first: then neither changes anything shared.
  timeline();
  steps();
  if (!sweepPlan().planned) return;
  devicesTask_.emplace(true, [this] { computeDevices(); });
  splitsTask_.emplace(true, [this] { computeSplits(); });
}

void ReportData::ensureDevices() {
  finishSideTask(devicesTask_);
  if (!devices_) computeDevices();
}

void ReportData::computeSplits() {
  const std::vector<Interval> windows = stepWindows();
  stepSplits_ = windows.empty() ? std::vector<CategoryTimes>{} : splitTime(windows);
  // The utilization report's one row when there are no steps.
  if (windows.empty() && timeline().any) wholeSplit_ = splitTime({{timeline().start, timeline().end}}).front();
}

const std::vector<CategoryTimes>& ReportData::stepSplits() {
  finishSideTask(splitsTask_);
  if (!stepSplits_) {
    const std::vector<Interval> windows = stepWindows();
    stepSplits_ = windows.empty() ? std::vector<CategoryTimes>{} : splitTime(windows);
  }
  return *stepSplits_;
}

const CategoryTimes& ReportData::wholeSplit() {
  finishSideTask(splitsTask_);
  if (!wholeSplit_) wholeSplit_ = splitTime({{timeline().start, timeline().end}}).front();
  return *wholeSplit_;
}

}  // namespace cuptitrace::reports
