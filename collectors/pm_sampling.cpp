#include "collectors/pm_sampling.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "core/log.h"
#include "core/own_threads.h"

namespace cuptitrace {
std::string pmDeviceText(uint32_t id, const std::string& chip) {
  return "device " + std::to_string(id) + (chip.empty() ? "" : " (" + chip + ")");
}

uint32_t PmSampler::imageSamples(uint64_t intervalNs, uint64_t roomNs) {
  const uint64_t samples = roomNs / std::max<uint64_t>(intervalNs, 1) + 1;
  return static_cast<uint32_t>(std::clamp<uint64_t>(samples, kMinImageSamples, kMaxImageSamples));
}

uint64_t PmSampler::decodePeriodNs(uint64_t intervalNs, uint32_t samples) {
  const uint64_t room = uint64_t{samples} * std::max<uint64_t>(intervalNs, 1);
  return std::clamp<uint64_t>(room / kImagePeriods, kMinDecodePeriodNs, kMaxDecodePeriodNs);
}

uint64_t PmSampler::maxImageBytes(const Config& config) {
  return config.maxMemory != 0 ? std::min<uint64_t>(kMaxImageBytes, config.maxMemory / 8) : kMaxImageBytes;
}

namespace {
uint64_t nsBetween(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return b > a ? static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count()) : 0;
}
}  // namespace

PmSampler::PmSampler(StringTable& strings, const Config& config, std::unique_ptr<PmBackend> backend,
                     std::function<void(const std::string&)> say, Tuning tuning)
    : strings_(strings),
      config_(config),
      backend_(std::move(backend)),
      say_(std::move(say)),
      decodePeriodNs_(tuning.decodePeriodNs != 0
                          ? tuning.decodePeriodNs
                          : decodePeriodNs(config.gpuMetricsIntervalNs,
                                           imageSamples(config.gpuMetricsIntervalNs,
                                                        tuning.imageRoomNs != 0 ? tuning.imageRoomNs
                                                                                : kImageRoomNs))),
      periodTuned_(tuning.decodePeriodNs != 0),
      hardwareBufferBytes_(tuning.hardwareBufferBytes != 0 ? tuning.hardwareBufferBytes : kHardwareBufferBytes),
      imageRoomNs_(tuning.imageRoomNs != 0 ? tuning.imageRoomNs : kImageRoomNs) {}

PmSampler::~PmSampler() { stop(); }

void PmSampler::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  evaluator_.start();
  thread_ = std::thread([this] { run(); });
}

void PmSampler::addDevice(uint32_t device) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    // Another context on a device that samples already changes nothing.
    if (++contexts_[device] > 1) return;
    setUp_.erase(device);
    newDevices_.push_back(device);
    if (!thread_.joinable()) return;  // no thread to wait for: pollOnce() sets it up
  }
  cv_.notify_all();
  std::unique_lock<std::mutex> lock(mutex_);
  if (!cv_.wait_for(lock, std::chrono::nanoseconds(kSetUpWaitNs),
                    [&] { return stopping_ || setUp_.count(device) != 0; }))
    logger().info("gpu_metrics: device {}: set-up takes longer than {} s: the program goes on, sampling starts "
                  "when it is done",
                  device, kSetUpWaitNs / 1'000'000'000);
}

void PmSampler::setCapturing(bool on) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || capturing_ == on) return;
    capturing_ = on;
    ++captureAsked_;
  }
  cv_.notify_all();
}

void PmSampler::waitCapturing() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!thread_.joinable()) return;  // no thread: pollOnce() follows it
  const uint64_t asked = captureAsked_;
  if (!cv_.wait_for(lock, std::chrono::nanoseconds(kSetUpWaitNs),
                    [&] { return stopping_ || finished_ || captureApplied_ >= asked; }))
    logger().info("gpu_metrics: sampling takes longer than {} s to start for a capture window: the program "
                  "goes on, sampling starts when it is done",
                  kSetUpWaitNs / 1'000'000'000);
}

bool PmSampler::hasContext(uint32_t device) {
  std::lock_guard<std::mutex> lock(mutex_);
  return contexts_[device] > 0 && !stopping_;
}

void PmSampler::followCapture(bool capturing) {
  for (Device& d : devices_) {
    if (gone(d.id)) continue;
    const auto began = std::chrono::steady_clock::now();
    if (!capturing && d.running) {
      // Stopped, its buffer decoded; the session stays set up for the next window.
      stopDevice(d);
      d.paused = true;
      ++capturePauses_;
      logger().debug("gpu_metrics: {}: a capture window ends: sampling stopped in {} us", pmDeviceText(d.id, d.chip),
                     nsBetween(began, std::chrono::steady_clock::now()) / 1000);
    } else if (capturing && d.paused && d.chosen && !d.running && hasContext(d.id)) {
      if (restart(d))
        logger().debug("gpu_metrics: {}: a capture window: sampling again in {} us", pmDeviceText(d.id, d.chip),
                       nsBetween(began, std::chrono::steady_clock::now()) / 1000);
    }
  }
}

bool PmSampler::restart(Device& d) {
  d.paused = false;
  if (d.open) {
    const PmStatus s = backend_->resume(d.id);
    if (s.ok()) {
      beginSamples(d);
      d.running = true;
      return true;
    }
    // Not started again: a new session takes over.
    logger().debug("gpu_metrics: {}: {}", pmDeviceText(d.id, d.chip), s.text);
    closeSession(d);
  }
  return startSession(d);
}

void PmSampler::closeSession(Device& d) {
  backend_->close(d.id);
  d.open = false;
}

void PmSampler::removeDevice(uint32_t device) {
  if (stopped_.load(std::memory_order_acquire)) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    int& n = contexts_[device];
    if (n > 0) --n;
    if (n > 0) return;  // the device has other contexts: it samples on
  }
  // Bounded, as every wait of a program thread: the thread may be stuck in a
  // CUPTI call. Then the device is left to the driver: no CUPTI call touches
  // it once its context is gone (PM sampling's calls crash or spin then).
  // Polled with try_lock, not a timed lock: std::timed_mutex's timed wait is
  // pthread_mutex_clocklock, which ThreadSanitizer (GCC 12) does not follow.
  std::unique_lock<std::mutex> work(workMutex_, std::defer_lock);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(kRemoveWaitNs);
  while (!work.try_lock() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!work.owns_lock()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      gone_.insert(device);
    }
    logger().warn("gpu_metrics: device {}: its last context goes while sampling is held up in CUPTI for more "
                  "than {} s: the device is no longer sampled, its last samples are lost",
                  device, kRemoveWaitNs / 1'000'000'000);
    return;
  }
  for (Device& d : devices_) {
    if (d.id != device) continue;
    if (d.running) stopDevice(d);
    // A new context starts a new session; a paused device stays paused, and
    // with no context the next window leaves it be.
    if (d.open) closeSession(d);
  }
}

void PmSampler::stopDevice(Device& d) {
  const PmStatus s = backend_->stop(d.id);
  if (!s.ok()) logger().warn("gpu_metrics: {}: {}", pmDeviceText(d.id, d.chip), s.text);
  const uint64_t cpu = threadCpuNs();
  decode(d);  // what the buffer still holds
  samplerCpuNs_ += threadCpuNs() - cpu;
  d.running = false;
}

bool PmSampler::gone(uint32_t device) {
  std::lock_guard<std::mutex> lock(mutex_);
  return gone_.count(device) != 0;
}

void PmSampler::dropGoneDevices() {
  std::set<uint32_t> gone;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    gone.swap(gone_);
  }
  for (Device& d : devices_)
    if (gone.count(d.id) != 0 && (d.running || d.open)) {
      d.running = false;
      d.open = false;    // left to the driver: no CUPTI call touches it again
      d.chosen = false;  // its session was never closed: not started again
      ++goneUnstopped_;
    }
}

void PmSampler::run() noexcept {
  registerOwnThread("gpu metrics");
  try {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      // The period runs from one wake to the next: the time spent decoding
      // is not added to it.
      const auto next = std::chrono::steady_clock::now() + std::chrono::nanoseconds(decodePeriodNs_.load());
      lock.unlock();
      pollOnce();
      lock.lock();
      cv_.wait_until(lock, next, [this] {
        return stopping_ || !newDevices_.empty() || captureApplied_ != captureAsked_;
      });
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
  std::lock_guard<std::mutex> work(workMutex_);
  dropGoneDevices();
  std::vector<uint32_t> fresh;
  bool capturing = true;
  uint64_t captureAsked = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fresh.swap(newDevices_);
    capturing = capturing_;
    captureAsked = captureAsked_;
  }
  for (const uint32_t id : fresh) {
    bool live = false;
    {
      // Its context may be gone already (made and destroyed before this round).
      std::lock_guard<std::mutex> lock(mutex_);
      live = contexts_[id] > 0 && !stopping_;
    }
    const auto began = std::chrono::steady_clock::now();
    const uint64_t cpu = threadCpuNs();
    Device* known = nullptr;
    for (Device& d : devices_)
      if (d.id == id) known = &d;
    if (live && known == nullptr) {
      setUp(id);
    } else if (live && known->chosen && !known->running) {
      if (!capturing) {
        known->paused = true;  // the next capture window starts it
      } else if (restart(*known)) {
        ++resumed_;
        logger().info("gpu_metrics: {}: a new context: sampling again", pmDeviceText(id, known->chip));
      }
    }
    setUpCpuNs_ += threadCpuNs() - cpu;
    logger().debug("gpu_metrics: device {}: set up in {} ms", id,
                   std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began)
                       .count());
    {
      std::lock_guard<std::mutex> lock(mutex_);
      setUp_.insert(id);
    }
    cv_.notify_all();
  }
  // Outside capture windows nothing samples: a device set up then (its
  // metrics chosen, a session started to check them) is stopped at once.
  followCapture(capturing);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    captureApplied_ = std::max(captureApplied_, captureAsked);
  }
  cv_.notify_all();
  const uint64_t cpu = threadCpuNs();
  for (Device& d : devices_)
    if (d.running && !gone(d.id)) decode(d);
  samplerCpuNs_ += threadCpuNs() - cpu;
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
      evaluator_.stop(kStopWaitNs);
      return;
    }
    lock.unlock();
    thread_.join();
  }
  std::lock_guard<std::mutex> work(workMutex_);
  dropGoneDevices();
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
  if (firstSession_ != std::chrono::steady_clock::time_point{})
    samplingNs_ = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - firstSession_)
            .count());
  stopped_.store(true, std::memory_order_release);
  // What is decoded is evaluated before the trace is written (bounded too).
  if (!evaluator_.stop(kStopWaitNs)) {
    const std::string line = "gpu_metrics: evaluating the samples did not end within " +
                             std::to_string(kStopWaitNs / 1'000'000'000) +
                             " s (a CUPTI call did not return): the samples not yet evaluated are lost";
    failures_.push_back(line);
    ++abandoned_;
    if (say_) say_(line);
  }
}

bool PmSampler::startSession(Device& d) {
  std::vector<std::string> names;
  for (const GpuMetric& m : d.metrics) names.push_back(m.name);
  const uint64_t interval = std::max<uint64_t>(config_.gpuMetricsIntervalNs, 1);
  PmImageSize image;
  image.samples = imageSamples(interval, imageRoomNs_);
  // A test's own decode period: room for kImagePeriods of them at least.
  if (periodTuned_)
    image.samples = std::max(image.samples,
                             imageSamples(interval, kImagePeriods * (decodePeriodNs_.load() + interval)));
  image.maxBytes = maxImageBytes(config_);
  const PmStatus s = backend_->start(d.id, names, interval, hardwareBufferBytes_, image);
  if (!s.ok()) {
    fail(d, s, "starting the sampling");
    return false;
  }
  imageSamplesMade_ = image.samples;
  imageBytes_ = image.bytes;
  // Images made smaller than asked (their bytes): decoded more often.
  d.decodePeriodNs = decodePeriodNs(interval, image.samples);
  if (!periodTuned_) {
    uint64_t shortest = d.decodePeriodNs;
    for (const Device& o : devices_)
      if (o.running && o.decodePeriodNs != 0) shortest = std::min(shortest, o.decodePeriodNs);
    decodePeriodNs_.store(shortest);
  }
  d.running = true;
  d.open = true;
  beginSamples(d);
  if (firstSession_ == std::chrono::steady_clock::time_point{}) firstSession_ = std::chrono::steady_clock::now();
  return true;
}

void PmSampler::beginSamples(Device& d) {
  d.lastDecode = {};
  d.fresh = true;
  d.lastEnd = 0;  // the time without a context, or between windows, is not samples lost
}

void PmSampler::decode(Device& d) {
  const uint64_t interval = config_.gpuMetricsIntervalNs;
  for (int round = 0; round < 64; ++round) {
    batch_.clear();
    PmDecodeInfo info;
    PmBatch b;
    const auto began = std::chrono::steady_clock::now();
    // The time since the session's last decode: how late the thread was.
    if (round == 0 && d.lastDecode != std::chrono::steady_clock::time_point{})
      longestDecodeIntervalNs_ = std::max(longestDecodeIntervalNs_, nsBetween(d.lastDecode, began));
    if (round == 0) d.lastDecode = began;
    const PmStatus s = backend_->decode(d.id, batch_, info, b.image);
    const uint64_t took = nsBetween(began, std::chrono::steady_clock::now());
    decodeNs_ += took;
    longestDecodeNs_ = std::max(longestDecodeNs_, took);
    decodeDataNs_ += info.decodeDataNs;
    spansNs_ += info.spansNs;
    imagesMade_ += info.imageMade ? 1 : 0;
    ++decodes_;
    incomplete_ += info.incomplete;
    if (info.overflow || s.code == PmStatus::Overflow) {
      ++overflows_;
      d.fresh = true;  // a new session: its first sample may span the gap
      if (overflows_ == 1)
        logger().warn("gpu_metrics: {}: the counters' buffer overflowed, samples were lost (lower "
                      "CUPTITRACE_GPU_METRICS_RATE or sample fewer metrics)",
                      pmDeviceText(d.id, d.chip));
    }
    if (!s.ok() && s.code != PmStatus::Overflow) {
      ++decodeErrors_;
      logger().warn("gpu_metrics: {}: decoding: {}", pmDeviceText(d.id, d.chip), s.text);
      return;
    }
    b.records.reserve(batch_.size());
    for (size_t i = 0; i < batch_.size(); ++i) {
      const PmSample& p = batch_[i];
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
      // A gap between samples is samples lost (an overflow, or a sample CUPTI could not complete).
      if (d.lastEnd != 0 && r.start > d.lastEnd) {
        longestGapNs_ = std::max(longestGapNs_, r.start - d.lastEnd);
        if (r.start > d.lastEnd + interval / 2) {
          const uint64_t gap = (r.start - d.lastEnd + interval / 2) / interval;
          d.lost += gap;
          lost_ += gap;
          // Whether the samples beyond a full image stay in the hardware buffer.
          if (d.afterFill) lostAtFill_ += gap;
        }
      }
      d.afterFill = false;
      if (r.end > d.lastEnd) d.lastEnd = r.end;
      b.records.push_back(r);
      b.index.push_back(i);
    }
    d.samples += b.records.size();
    samples_ += b.records.size();
    b.scale = d.scale;
    // Even an image without samples: it goes back to its pool off this thread.
    if (b.image || !b.records.empty()) evaluator_.push(std::move(b));
    if (!info.more) return;
    ++imagesFilled_;  // held up past the image's room: decoded again at once
    d.afterFill = true;
  }
}

void PmSampler::publish(Trace& trace) const {
  auto& c = trace.counters;
  uint64_t sampled = 0;
  for (const Device& d : devices_) sampled += d.running || d.samples != 0 ? 1 : 0;
  c["gpu_metrics.devices"] = sampled;
  c["gpu_metrics.samples"] = samples_;
  // Lost: gaps between samples, samples begun but never completed, and
  // samples dropped for want of memory before they reached the store.
  const uint64_t dropped = evaluator_.dropped();
  c["gpu_metrics.samples_lost"] = lost_ + incomplete_ + dropped;
  if (overflows_) c["gpu_metrics.overflows"] = overflows_;
  if (dropped) c["dropped.gpu_metrics"] = dropped;
  // What the sampling cost, and how it went: the sampling thread's CPU time
  // decoding, the evaluation's, and the time they are measured over.
  c["gpu_metrics.sampler_cpu_ns"] = samplerCpuNs_;
  c["gpu_metrics.evaluate_cpu_ns"] = evaluator_.cpuNs();
  c["gpu_metrics.setup_cpu_ns"] = setUpCpuNs_;
  c["gpu_metrics.sampling_ns"] = samplingNs_;
  c["gpu_metrics.decode_period_ns"] = decodePeriodNs_.load();
  c["gpu_metrics.decode_ns"] = decodeNs_;
  c["gpu_metrics.decode_data_ns"] = decodeDataNs_;
  c["gpu_metrics.decode_spans_ns"] = spansNs_;
  c["gpu_metrics.longest_decode_ns"] = longestDecodeNs_;
  c["gpu_metrics.longest_decode_interval_ns"] = longestDecodeIntervalNs_;
  c["gpu_metrics.images_made"] = imagesMade_;
  c["gpu_metrics.image_samples"] = imageSamplesMade_;
  c["gpu_metrics.image_bytes"] = imageBytes_;
  c["gpu_metrics.hardware_buffer_bytes"] = hardwareBufferBytes_;
  c["gpu_metrics.decodes"] = decodes_;
  c["gpu_metrics.longest_gap_ns"] = longestGapNs_;
  if (imagesFilled_) {
    c["gpu_metrics.images_filled"] = imagesFilled_;
    c["gpu_metrics.samples_lost_at_fill"] = lostAtFill_;
  }
  if (evaluator_.evaluatedInline()) c["gpu_metrics.evaluated_inline"] = evaluator_.evaluatedInline();
  if (evaluator_.failed()) c["gpu_metrics.evaluate_errors"] = evaluator_.failed();
  c["gpu_metrics.eval_queue_max"] = evaluator_.maxQueued();
  c["gpu_metrics.sessions_resumed"] = resumed_;
  if (capturePauses_) c["gpu_metrics.capture_pauses"] = capturePauses_;
  if (goneUnstopped_) c["gpu_metrics.devices_gone_unstopped"] = goneUnstopped_;
  if (decodeErrors_) c["gpu_metrics.decode_errors"] = decodeErrors_;
  if (failedDevices_) c["gpu_metrics.failed_devices"] = failedDevices_;
  if (noPermission_) c["gpu_metrics.no_permission"] = noPermission_;
  if (unsupported_) c["gpu_metrics.unsupported_devices"] = unsupported_;
  if (unknownMetrics_) c["gpu_metrics.unknown_metrics"] = unknownMetrics_;
  if (abandoned_) c["gpu_metrics.thread_abandoned"] = abandoned_;
  if (leftAtExit_) c["gpu_metrics.devices_left_at_exit"] = leftAtExit_;
}

}  // namespace cuptitrace
