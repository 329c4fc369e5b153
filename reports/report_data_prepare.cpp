// ReportData's two sweeps over the timed records and the kernels' and calls'
// groups on threads of their own (prepare), and the accessors of the sweeps
// that wait for them: the devices' busy times and GPU summaries, the steps'
// splits of time by category and the whole run's. Each sweep reads the
// records, the planned windows and the steps, all made before the threads
// start, and writes only its own results.
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
  // Each writes only its own groups, its kind's untimed records and (the
  // calls') the count of nested driver calls; kernelName() is not used.
  if (!kernels_) {
    kernelsTask_.emplace(true, [this] {
      DemangleCache names;
      ScratchValues scratch;
      kernels_ = makeKernels(names, scratch);
    });
  }
  if (!api_) {
    apiTask_.emplace(true, [this] {
      ScratchValues scratch;
      makeApi(scratch);
    });
  }
}

void ReportData::ensureDevices() {
  finishSideTask(devicesTask_);
  if (!devices_) computeDevices();
}

void ReportData::computeSplits() {
  stepSplits_ = makeStepSplits();
  // The utilization report's one row when there are no steps.
  if (stepSplits_->empty() && timeline().any) wholeSplit_ = makeWholeSplit();
}

const std::vector<CategoryTimes>& ReportData::stepSplits() {
  finishSideTask(splitsTask_);
  if (!stepSplits_) stepSplits_ = makeStepSplits();
  return *stepSplits_;
}

const CategoryTimes& ReportData::wholeSplit() {
  finishSideTask(splitsTask_);
  if (!wholeSplit_) wholeSplit_ = makeWholeSplit();
  return *wholeSplit_;
}

}  // namespace cuptitrace::reports
