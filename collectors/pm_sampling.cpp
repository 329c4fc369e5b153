#include "collectors/pm_sampling.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "core/log.h"
#include "core/own_threads.h"

namespace cuptitrace {
namespace {

std::string deviceText(uint32_t id, const std::string& chip) {
  return "device " + std::to_string(id) + (chip.empty() ? "" : " (" + chip + ")");
}

std::string joined(const std::vector<std::string>& names, size_t limit) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > limit) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

}  // namespace

PmSampler::PmSampler(StringTable& strings, const Config& config, std::unique_ptr<PmBackend> backend,
                     std::function<void(const std::string&)> say)
    : strings_(strings), config_(config), backend_(std::move(backend)), say_(std::move(say)) {}

PmSampler::~PmSampler() { stop(); }

void PmSampler::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void PmSampler::addDevice(uint32_t device) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || !seen_.insert(device).second) return;
    newDevices_.push_back(device);
  }
  cv_.notify_all();
  std::unique_lock<std::mutex> lock(mutex_);
  if (!cv_.wait_for(lock, std::chrono::nanoseconds(kSetUpWaitNs),
                    [&] { return stopping_ || setUp_.count(device) != 0; }))
    logger().info("gpu_metrics: device {}: set-up takes longer than {} s: the program goes on, sampling starts "
                  "when it is done",
                  device, kSetUpWaitNs / 1'000'000'000);
}

void PmSampler::removeDevice(uint32_t device) {
  if (stopped_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> work(workMutex_);
  for (Device& d : devices_)
    if (d.id == device && d.running) stopDevice(d);
}

void PmSampler::stopDevice(Device& d) {
  const PmStatus s = backend_->stop(d.id);
  if (!s.ok()) logger().warn("gpu_metrics: {}: {}", deviceText(d.id, d.chip), s.text);
  decode(d);  // what the buffer still holds
  d.running = false;
}

void PmSampler::run() noexcept {
  registerOwnThread("gpu metrics");
  try {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      pollOnce();
      lock.lock();
      cv_.wait_for(lock, std::chrono::nanoseconds(kDecodePeriodNs),
                   [this] { return stopping_ || !newDevices_.empty(); });
    }
  } catch (...) {
    // Nothing thrown here reaches the program; what was decoded stays.
    logger().warn("gpu_metrics: sampling stopped after an unexpected error");
  }
  unregisterOwnThread();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  cv_.notify_all();
}

void PmSampler::pollOnce() {
  std::vector<uint32_t> fresh;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fresh.swap(newDevices_);
  }
  std::lock_guard<std::mutex> work(workMutex_);
  for (const uint32_t d : fresh) {
    const auto began = std::chrono::steady_clock::now();
    setUp(d);
    logger().debug("gpu_metrics: device {}: set up in {} ms", d,
                   std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began)
                       .count());
    {
      std::lock_guard<std::mutex> lock(mutex_);
      setUp_.insert(d);
    }
    cv_.notify_all();
  }
  for (Device& d : devices_)
    if (d.running) decode(d);
}

void PmSampler::stop(bool atExit) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) {
    // Bounded: a thread stuck in a CUPTI call must not keep the program from
    // ending. It is let go, and its devices are not touched again.
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_for(lock, std::chrono::nanoseconds(kStopWaitNs), [this] { return finished_; })) {
      lock.unlock();
      thread_.detach();
      const std::string line =
          "gpu_metrics: the sampling thread did not stop within " + std::to_string(kStopWaitNs / 1'000'000'000) +
          " s (a CUPTI call did not return): the samples not yet decoded are lost";
      failures_.push_back(line);
      ++abandoned_;
      if (say_) say_(line);
      stopped_.store(true, std::memory_order_release);
      return;
    }
    lock.unlock();
    thread_.join();
  }
  std::lock_guard<std::mutex> work(workMutex_);
  for (Device& d : devices_) {
    if (!d.running) continue;
    if (atExit) {
      // CUPTI's stop crashed or spun here once the runtime had torn the
      // context down at exit; the samples decoded until now are kept.
      ++leftAtExit_;
      d.running = false;
      continue;
    }
    stopDevice(d);
  }
  stopped_.store(true, std::memory_order_release);
}

void PmSampler::fail(Device& d, const PmStatus& s, const char* doing) {
  ++failedDevices_;
  std::string line = "gpu_metrics: " + deviceText(d.id, d.chip) + ": ";
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
  const PmStatus s = backend_->start(
      device,
      [&] {
        std::vector<std::string> names;
        for (const GpuMetric& m : d.metrics) names.push_back(m.name);
        return names;
      }(),
      config_.gpuMetricsIntervalNs, kHardwareBufferBytes);
  if (!s.ok()) return fail(d, s, "starting the sampling");
  d.running = true;
  d.fresh = true;
  logger().info("gpu_metrics: {} sampled every {} ns: {} metrics", deviceText(d.id, d.chip),
                config_.gpuMetricsIntervalNs, d.metrics.size());
}

void PmSampler::decode(Device& d) {
  const uint64_t interval = config_.gpuMetricsIntervalNs;
  for (int round = 0; round < 64; ++round) {
    batch_.clear();
    PmDecodeInfo info;
    const PmStatus s = backend_->decode(d.id, batch_, info);
    incomplete_ += info.incomplete;
    if (info.overflow || s.code == PmStatus::Overflow) {
      ++overflows_;
      d.fresh = true;  // a new session: its first sample may span the gap
      if (overflows_ == 1)
        logger().warn("gpu_metrics: {}: the counters' buffer overflowed, samples were lost (lower "
                      "CUPTITRACE_GPU_METRICS_RATE or sample fewer metrics)",
                      deviceText(d.id, d.chip));
    }
    if (!s.ok() && s.code != PmStatus::Overflow) {
      ++decodeErrors_;
      logger().warn("gpu_metrics: {}: decoding: {}", deviceText(d.id, d.chip), s.text);
      return;
    }
    std::vector<GpuMetricRecord> records;
    records.reserve(batch_.size());
    for (const PmSample& p : batch_) {
      // A session's first sample runs from before it started (about a second
      // on the lent H100): it measures nothing of the program's.
      const bool first = d.fresh;
      d.fresh = false;
      if (first && p.end - p.start > 2 * interval) continue;
      GpuMetricRecord r{};
      r.start = backend_->toTraceClock(d.id, p.start);
      r.end = backend_->toTraceClock(d.id, p.end);
      r.deviceId = d.id;
      r.metricSet = d.set;
      for (size_t i = 0; i < d.metrics.size() && i < p.values.size(); ++i)
        r.values[i] = static_cast<float>(p.values[i] * d.metrics[i].scale);
      for (size_t i = p.values.size(); i < d.metrics.size(); ++i) r.values[i] = std::nanf("");
      // A gap between samples is samples lost (an overflow, or a sample CUPTI could not complete).
      if (d.lastEnd != 0 && r.start > d.lastEnd + interval / 2) {
        const uint64_t gap = (r.start - d.lastEnd + interval / 2) / interval;
        d.lost += gap;
        lost_ += gap;
      }
      if (r.end > d.lastEnd) d.lastEnd = r.end;
      records.push_back(r);
    }
    d.samples += records.size();
    samples_ += records.size();
    if (!records.empty()) {
      std::lock_guard<std::mutex> lock(pendingMutex_);
      const size_t room = kMaxPending > pending_.size() ? kMaxPending - pending_.size() : 0;
      const size_t take = std::min(room, records.size());
      pending_.insert(pending_.end(), records.begin(), records.begin() + static_cast<std::ptrdiff_t>(take));
      dropped_ += records.size() - take;
      pendingBytes_.store(pending_.size() * sizeof(GpuMetricRecord), std::memory_order_relaxed);
    }
    if (!info.more) return;
  }
}

void PmSampler::collect(TraceStore& store) {
  std::vector<GpuMetricRecord> records;
  {
    std::lock_guard<std::mutex> lock(pendingMutex_);
    records.swap(pending_);
    pendingBytes_.store(0, std::memory_order_relaxed);
  }
  for (const GpuMetricRecord& r : records)
    store.add(r);  // past the budget: spilled, or dropped and counted
}

void PmSampler::publish(Trace& trace) const {
  auto& c = trace.counters;
  uint64_t sampled = 0;
  for (const Device& d : devices_) sampled += d.running || d.samples != 0 ? 1 : 0;
  c["gpu_metrics.devices"] = sampled;
  c["gpu_metrics.samples"] = samples_;
  // Lost: gaps between samples, samples begun but never completed, and
  // samples dropped for want of memory before they reached the store.
  c["gpu_metrics.samples_lost"] = lost_ + incomplete_ + dropped_;
  if (overflows_) c["gpu_metrics.overflows"] = overflows_;
  if (dropped_) c["dropped.gpu_metrics"] = dropped_;
  if (decodeErrors_) c["gpu_metrics.decode_errors"] = decodeErrors_;
  if (failedDevices_) c["gpu_metrics.failed_devices"] = failedDevices_;
  if (noPermission_) c["gpu_metrics.no_permission"] = noPermission_;
  if (unsupported_) c["gpu_metrics.unsupported_devices"] = unsupported_;
  if (unknownMetrics_) c["gpu_metrics.unknown_metrics"] = unknownMetrics_;
  if (abandoned_) c["gpu_metrics.thread_abandoned"] = abandoned_;
  if (leftAtExit_) c["gpu_metrics.devices_left_at_exit"] = leftAtExit_;
}

}  // namespace cuptitrace
