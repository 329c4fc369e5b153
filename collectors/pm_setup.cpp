// A device's set-up for PM sampling: whether it can sample, the metrics
// chosen for it (the list asked for, the default set where it fits), and the
// one line said for each way it fails.
#include <algorithm>

#include "collectors/pm_sampling.h"
#include "core/log.h"

namespace cuptitrace {
namespace {

std::string joined(const std::vector<std::string>& names, size_t limit) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > limit) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

}  // namespace

void PmSampler::fail(Device& d, const PmStatus& s, const char* doing) {
  ++failedDevices_;
  std::string line = "gpu_metrics: " + pmDeviceText(d.id, d.chip) + ": ";
  switch (s.code) {
    case PmStatus::NoPermission:
      ++noPermission_;
      line += "no permission to the GPU's performance counters (" + s.text +
              "): the driver keeps them for administrators "
              "(NVreg_RestrictProfilingToAdminUsers=1); run as "
              "root or ask for the module option NVreg_RestrictProfilingToAdminUsers=0";
      break;
    case PmStatus::NotSupported:
      ++unsupported_;
      line += "cannot sample its performance counters (" + s.text + ")";
      break;
    case PmStatus::UnknownMetric:
      line += s.text;
      break;
    default:
      line += std::string(doing) + " failed (" + s.text + ")";
      break;
  }
  line += "; the trace is written without GPU metrics for it";
  failures_.push_back(line);
  if (say_) say_(line);
}

bool PmSampler::chooseMetrics(Device& d) {
  std::vector<std::string> names;
  for (const std::string& n : config_.gpuMetrics) {
    if (n != "default") {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
      continue;
    }
    for (const std::string& m : chooseDefaultGpuMetrics(
             [&](const std::vector<std::string>& set) { return backend_->fits(d.id, set); }))
      if (std::find(names.begin(), names.end(), m) == names.end()) names.push_back(m);
  }
  if (config_.gpuMetrics.empty())
    names = chooseDefaultGpuMetrics(
        [&](const std::vector<std::string>& set) { return backend_->fits(d.id, set); });
  if (names.empty()) {
    fail(d, PmStatus::fail(PmStatus::NotSupported, 0, "none of the default metrics is known to it"),
         "");
    return false;
  }
  names.resize(std::min(names.size(), static_cast<size_t>(kGpuMetricSlots)));
  // Each name on its own first: an unknown one is named, with what the device knows.
  for (const std::string& n : names) {
    if (backend_->fits(d.id, {n})) continue;
    ++unknownMetrics_;
    const std::vector<std::string> known = backend_->knownMetrics(d.id);
    fail(d,
         PmStatus::fail(
             PmStatus::UnknownMetric, 0,
             "it does not know metric '" + n +
                 "' or cannot sample it; the metrics it knows: " + joined(known, known.size())),
         "choosing the metrics");
    return false;
  }
  if (!backend_->fits(d.id, names)) {
    ++unknownMetrics_;
    fail(d,
         PmStatus::fail(PmStatus::UnknownMetric, 0,
                        "these metrics need more than one pass, and PM sampling takes one: " +
                            joined(names, 16)),
         "choosing the metrics");
    return false;
  }
  for (const std::string& n : names) d.metrics.push_back(describeGpuMetric(n));
  d.set = strings_.intern(encodeGpuMetricSet(d.metrics));
  return true;
}

void PmSampler::setUp(uint32_t device) {
  devices_.emplace_back();
  Device& d = devices_.back();
  d.id = device;
  d.chip = backend_->chip(device);
  const PmStatus supported = backend_->supported(device);
  if (!supported.ok()) return fail(d, supported, "checking support");
  if (!chooseMetrics(d)) return;
  for (const GpuMetric& m : d.metrics) d.scale.push_back(m.scale);
  if (!startSession(d)) return;
  d.chosen = true;
  logger().info("gpu_metrics: {} sampled every {} ns: {} metrics, decoded every {} us into images of {} samples "
                "({} bytes)",
                pmDeviceText(d.id, d.chip), config_.gpuMetricsIntervalNs, d.metrics.size(), decodePeriodNs_.load() / 1000,
                imageSamplesMade_, imageBytes_);
}

}  // namespace cuptitrace
