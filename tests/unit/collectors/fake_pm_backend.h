// A fake of CUPTI's PM sampling for the sampler's tests (pm_sampling.h):
// devices whose samples, decodes, failures and stops the tests set and read.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collectors/pm_sampling.h"
#include "core/gpu_metrics.h"

namespace cuptitrace::pm_test {

struct FakeDevice {
  PmStatus support;
  PmStatus startStatus;
  std::vector<std::string> started;  // metrics of the last start
  uint64_t interval = 0;
  uint32_t imageSamples = 0;    // asked for
  uint64_t imageMaxBytes = 0;   // asked for
  uint64_t bytesPerSample = 0;  // when set: images are made within imageMaxBytes
  uint64_t bufferBytes = 0;
  uint64_t decodeSleepNs = 0;   // each decode takes this long (a slow CUPTI call)
  uint64_t next = 1'000'000;  // GPU time of the next sample
  int decodes = 0;
  int starts = 0;
  int closes = 0;
  int resumes = 0;
  PmStatus resumeStatus;  // what resume() answers
  bool running = false;
  bool stopped = false;
  std::vector<int> skipAt;  // decodes after which a sample goes missing (an overflow)
  std::vector<int> fullAt;  // decodes that fill their image (more to decode at once)
  uint64_t firstSpan = 0;   // when set: the first sample's span (it began before sampling did)
  std::thread::id decodedOn;
};

// What the fake decodes into: each sample's metric m evaluates to 10m + 1.
class FakeImage final : public PmImage {
 public:
  FakeImage(size_t metrics, std::atomic<int>* evaluations, std::thread::id* evaluatedOn, std::mutex* mutex)
      : metrics_(metrics), evaluations_(evaluations), evaluatedOn_(evaluatedOn), mutex_(mutex) {}
  bool evaluate(size_t, std::vector<double>& values) override {
    values.clear();
    for (size_t m = 0; m < metrics_; ++m) values.push_back(10.0 * static_cast<double>(m) + 1);
    ++*evaluations_;
    std::lock_guard<std::mutex> lock(*mutex_);
    *evaluatedOn_ = std::this_thread::get_id();
    return true;
  }
  uint64_t bytes() const override { return 1000; }

 private:
  size_t metrics_;
  std::atomic<int>* evaluations_;
  std::thread::id* evaluatedOn_;
  std::mutex* mutex_;
};

class FakeBackend final : public PmBackend {
 public:
  std::map<uint32_t, FakeDevice>& devices;
  std::mutex mutex;  // the sampler's threads and the test read the devices
  int64_t clockOffset = 0;
  size_t perDecode = 10;
  std::atomic<int> evaluations{0};
  std::thread::id evaluatedOn;
  // While set, decode waits until it is cleared (a CUPTI call that does not return).
  std::atomic<bool> hold{false};
  std::atomic<bool> holding{false};
  explicit FakeBackend(std::map<uint32_t, FakeDevice>& d) : devices(d) {}

  FakeDevice get(uint32_t d) {
    std::lock_guard<std::mutex> lock(mutex);
    return devices[d];
  }
  std::string chip(uint32_t) override { return "GH100"; }
  PmStatus supported(uint32_t d) override {
    std::lock_guard<std::mutex> lock(mutex);
    return devices[d].support;
  }
  bool fits(uint32_t, const std::vector<std::string>& metrics) override {
    // No NVLink, at most 12 metrics, and a name must be one of the catalog's or
    // "lts__throughput...".
    if (metrics.size() > 12) return false;
    for (const auto& m : metrics) {
      if (m.rfind("nvl", 0) == 0) return false;
      if (m == "lts__throughput.avg.pct_of_peak_sustained_elapsed") continue;
      if (describeGpuMetric(m).role == GpuMetricRole::Other) return false;
    }
    return true;
  }
  std::vector<std::string> knownMetrics(uint32_t) override {
    return {"sm__cycles_active.sum", "dram__bytes_read.sum",
            "lts__throughput.avg.pct_of_peak_sustained_elapsed"};
  }
  PmStatus start(uint32_t d, const std::vector<std::string>& metrics, uint64_t interval, uint64_t bufferBytes,
                 PmImageSize& image) override {
    std::lock_guard<std::mutex> lock(mutex);
    FakeDevice& f = devices[d];
    if (!f.startStatus.ok()) return f.startStatus;
    f.started = metrics;
    f.interval = interval;
    f.imageSamples = image.samples;
    f.imageMaxBytes = image.maxBytes;
    if (f.bytesPerSample != 0 && image.maxBytes != 0)
      image.samples = static_cast<uint32_t>(std::min<uint64_t>(image.samples, image.maxBytes / f.bytesPerSample));
    image.bytes = image.samples * std::max<uint64_t>(f.bytesPerSample, 1);
    f.bufferBytes = bufferBytes;
    if (f.starts++ > 0) f.next += 2'000'000'000;  // two seconds without a context
    f.running = true;
    f.stopped = false;
    return {};
  }
  PmStatus decode(uint32_t d, std::vector<PmSample>& out, PmDecodeInfo& info,
                  std::unique_ptr<PmImage>& image) override {
    if (hold) {
      holding = true;
      while (hold) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::lock_guard<std::mutex> lock(mutex);
    FakeDevice& f = devices[d];
    if (f.decodeSleepNs != 0) std::this_thread::sleep_for(std::chrono::nanoseconds(f.decodeSleepNs));
    ++f.decodes;
    info.decodeDataNs = 1000;  // of each decode, the part CUPTI's decode proper took
    info.spansNs = 10;
    info.imageMade = f.decodes == 1;  // no image free yet
    f.decodedOn = std::this_thread::get_id();
    for (size_t i = 0; i < perDecode; ++i) {
      PmSample s;
      if (f.firstSpan != 0 && f.decodes == 1 && i == 0) {
        s.start = f.next - f.firstSpan + f.interval;
        s.end = f.next + f.interval;
        f.next = s.end;
        out.push_back(s);
        continue;
      }
      s.start = f.next;
      s.end = f.next + f.interval;
      f.next = s.end;
      out.push_back(s);
    }
    image = std::make_unique<FakeImage>(f.started.size(), &evaluations, &evaluatedOn, &mutex);
    for (const int at : f.skipAt)
      if (at == f.decodes) {
        f.next += 3 * f.interval;  // three samples lost
        info.overflow = true;
      }
    for (const int at : f.fullAt) info.more = info.more || at == f.decodes;
    return {};
  }
  PmStatus stop(uint32_t d) override {
    std::lock_guard<std::mutex> lock(mutex);
    devices[d].stopped = true;
    return {};
  }
  PmStatus resume(uint32_t d) override {
    std::lock_guard<std::mutex> lock(mutex);
    FakeDevice& f = devices[d];
    if (!f.resumeStatus.ok()) return f.resumeStatus;
    if (!f.running) return PmStatus::fail(PmStatus::Error, 0, "closed");
    ++f.resumes;
    f.stopped = false;
    f.next += 1'000'000'000;  // a second between the windows
    return {};
  }
  void close(uint32_t d) override {
    std::lock_guard<std::mutex> lock(mutex);
    ++devices[d].closes;
    devices[d].running = false;
  }
  uint64_t toTraceClock(uint32_t, uint64_t t) override {
    return static_cast<uint64_t>(static_cast<int64_t>(t) + clockOffset);
  }
};

// Waits (at most 5 s) until `done`.
template <typename F>
bool waitFor(F done) {
  for (int i = 0; i < 5000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return done();
}

struct Run {
  std::map<uint32_t, FakeDevice> devices;
  Trace trace;
  Config config;
  std::vector<std::string> lines;
  FakeBackend* backend = nullptr;
  std::unique_ptr<PmSampler> sampler;

  void make(PmSampler::Tuning tuning = PmSampler::Tuning{}) {
    auto b = std::make_unique<FakeBackend>(devices);
    backend = b.get();
    sampler = std::make_unique<PmSampler>(
        trace.strings, config, std::move(b), [this](const std::string& l) { lines.push_back(l); }, tuning);
  }
};

}  // namespace cuptitrace::pm_test
