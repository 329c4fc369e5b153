// The PM sampler on a fake backend: devices set up once their context
// exists, the default set chosen by what fits, samples decoded onto the
// trace clock and into the store, and every failure said in one line and
// counted, with the trace still whole.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>

#include "collectors/pm_sampling.h"
#include "core/gpu_metrics.h"

using namespace cuptitrace;

namespace {

struct FakeDevice {
  PmStatus support;
  PmStatus startStatus;
  std::vector<std::string> started;  // metrics of the last start
  uint64_t interval = 0;
  uint64_t next = 1'000'000;  // GPU time of the next sample
  int decodes = 0;
  bool stopped = false;
  std::vector<int> skipAt;  // decodes after which a sample goes missing (an overflow)
  uint64_t firstSpan = 0;   // when set: the first sample's span (it began before sampling did)
};

class FakeBackend final : public PmBackend {
 public:
  std::map<uint32_t, FakeDevice>& devices;
  int64_t clockOffset = 0;
  size_t perDecode = 10;
  explicit FakeBackend(std::map<uint32_t, FakeDevice>& d) : devices(d) {}

  std::string chip(uint32_t) override { return "GH100"; }
  PmStatus supported(uint32_t d) override { return devices[d].support; }
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
  PmStatus start(uint32_t d, const std::vector<std::string>& metrics, uint64_t interval,
                 uint64_t) override {
    FakeDevice& f = devices[d];
    if (!f.startStatus.ok()) return f.startStatus;
    f.started = metrics;
    f.interval = interval;
    return {};
  }
  PmStatus decode(uint32_t d, std::vector<PmSample>& out, PmDecodeInfo& info) override {
    FakeDevice& f = devices[d];
    ++f.decodes;
    for (size_t i = 0; i < perDecode; ++i) {
      PmSample s;
      if (f.firstSpan != 0 && f.decodes == 1 && i == 0) {
        s.start = f.next - f.firstSpan + f.interval;
        s.end = f.next + f.interval;
        f.next = s.end;
        for (size_t m = 0; m < f.started.size(); ++m) s.values.push_back(0);
        out.push_back(s);
        continue;
      }
      s.start = f.next;
      s.end = f.next + f.interval;
      f.next = s.end;
      for (size_t m = 0; m < f.started.size(); ++m)
        s.values.push_back(10.0 * static_cast<double>(m) + 1);
      out.push_back(s);
    }
    for (const int at : f.skipAt)
      if (at == f.decodes) {
        f.next += 3 * f.interval;  // three samples lost
        info.overflow = true;
      }
    return {};
  }
  PmStatus stop(uint32_t d) override {
    devices[d].stopped = true;
    return {};
  }
  uint64_t toTraceClock(uint32_t, uint64_t t) override {
    return static_cast<uint64_t>(static_cast<int64_t>(t) + clockOffset);
  }
};

struct Run {
  std::map<uint32_t, FakeDevice> devices;
  Trace trace;
  Config config;
  std::vector<std::string> lines;
  FakeBackend* backend = nullptr;
  std::unique_ptr<PmSampler> sampler;

  void make() {
    auto b = std::make_unique<FakeBackend>(devices);
    backend = b.get();
    sampler = std::make_unique<PmSampler>(trace.strings, config, std::move(b),
                                          [this](const std::string& l) { lines.push_back(l); });
  }
};

}  // namespace

TEST_CASE(
    "pm sampling: a device's samples reach the store on the trace clock, with their metric set") {
  Run r;
  r.config.gpuMetricsIntervalNs = 100'000;
  r.make();
  r.backend->clockOffset = 5'000;
  r.sampler->addDevice(0);
  r.sampler->addDevice(0);  // a second context on the same device changes nothing
  r.sampler->pollOnce();    // sets up device 0 and decodes once
  r.sampler->pollOnce();
  r.sampler->stop();  // and a last decode
  r.sampler->collect(r.trace.store);
  r.sampler->publish(r.trace);

  const FakeDevice& d = r.devices[0];
  CHECK(d.stopped);
  CHECK(d.interval == 100'000);
  // The default set: a metric for every catalog role but NVLink, which this device lacks.
  CHECK(d.started.size() == 11);
  CHECK(std::find(d.started.begin(), d.started.end(), "nvlrx__bytes.sum.per_second") ==
        d.started.end());
  const auto& records = r.trace.store.records<GpuMetricRecord>();
  REQUIRE(records.size() == 30);
  const std::vector<GpuMetric> set = decodeGpuMetricSet(r.trace.strings.get(records[0].metricSet));
  REQUIRE(set.size() == d.started.size());
  CHECK(records[0].start == 1'005'000);
  CHECK(records[0].end == 1'105'000);
  CHECK(records[29].start == 1'005'000 + 29 * 100'000);
  CHECK(records[0].values[1] == Approx(11));
  // The clock metric is stored in MHz.
  CHECK(set.back().role == GpuMetricRole::GpcClock);
  CHECK(records[0].values[set.size() - 1] == Approx((10.0 * (set.size() - 1) + 1) * 1e-6));
  CHECK(r.trace.counters["gpu_metrics.samples"] == 30);
  CHECK(r.trace.counters["gpu_metrics.samples_lost"] == 0);
  CHECK(r.trace.counters["gpu_metrics.devices"] == 1);
  CHECK(r.lines.empty());
}

TEST_CASE("pm sampling: samples lost to an overflow are counted from the gap they leave") {
  Run r;
  r.make();
  r.devices[0].skipAt = {1};
  r.sampler->addDevice(0);
  r.sampler->pollOnce();
  r.sampler->pollOnce();
  r.sampler->stop();
  r.sampler->collect(r.trace.store);
  r.sampler->publish(r.trace);
  CHECK(r.trace.store.count(RecordKind::GpuMetric) == 30);
  CHECK(r.trace.counters["gpu_metrics.samples_lost"] == 3);
  CHECK(r.trace.counters["gpu_metrics.overflows"] == 1);
}

TEST_CASE(
    "pm sampling: no permission to the counters is one line, counted, and nothing else stops") {
  Run r;
  r.devices[0].support = PmStatus::fail(
      PmStatus::NoPermission, 35, "cuptiPmSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  r.make();
  r.sampler->addDevice(0);
  r.sampler->addDevice(1);  // another device samples
  r.sampler->pollOnce();
  r.sampler->stop();
  r.sampler->collect(r.trace.store);
  r.sampler->publish(r.trace);
  REQUIRE(r.lines.size() == 1);
  CHECK_THAT(r.lines[0], Catch::Contains("device 0 (GH100)"));
  CHECK_THAT(r.lines[0], Catch::Contains("no permission"));
  CHECK_THAT(r.lines[0], Catch::Contains("NVreg_RestrictProfilingToAdminUsers"));
  CHECK_THAT(r.lines[0], Catch::Contains("the trace is written without GPU metrics"));
  CHECK(r.lines[0].find('\n') == std::string::npos);
  CHECK(r.trace.counters["gpu_metrics.no_permission"] == 1);
  CHECK(r.trace.counters["gpu_metrics.failed_devices"] == 1);
  CHECK(r.trace.counters["gpu_metrics.devices"] == 1);
  CHECK(r.trace.store.count(RecordKind::GpuMetric) == 20);
  r.trace.store.records<GpuMetricRecord>().forEach(
      [](const GpuMetricRecord& m) { CHECK(m.deviceId == 1); });
}

TEST_CASE("pm sampling: a device that cannot sample, or refuses to start, is one line each") {
  Run r;
  r.devices[0].support =
      PmStatus::fail(PmStatus::NotSupported, 0, "CUPTI does not support PM sampling here: vGPU");
  r.devices[1].startStatus =
      PmStatus::fail(PmStatus::Error, 999, "cuptiPmSamplingSetConfig: CUPTI_ERROR_UNKNOWN");
  r.make();
  r.sampler->addDevice(0);
  r.sampler->addDevice(1);
  r.sampler->pollOnce();
  r.sampler->stop();
  r.sampler->publish(r.trace);
  REQUIRE(r.lines.size() == 2);
  CHECK_THAT(r.lines[0], Catch::Contains("cannot sample its performance counters"));
  CHECK_THAT(r.lines[1], Catch::Contains("cuptiPmSamplingSetConfig"));
  CHECK(r.trace.counters["gpu_metrics.unsupported_devices"] == 1);
  CHECK(r.trace.counters["gpu_metrics.failed_devices"] == 2);
  CHECK(r.trace.counters["gpu_metrics.devices"] == 0);
}

TEST_CASE("pm sampling: a metric the device does not know is one line naming the ones it knows") {
  Run r;
  r.config.gpuMetrics = {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
                         "made_up__metric.sum"};
  r.make();
  r.sampler->addDevice(0);
  r.sampler->pollOnce();
  r.sampler->stop();
  r.sampler->publish(r.trace);
  REQUIRE(r.lines.size() == 1);
  CHECK_THAT(r.lines[0], Catch::Contains("'made_up__metric.sum'"));
  CHECK_THAT(r.lines[0], Catch::Contains("sm__cycles_active.sum, dram__bytes_read.sum"));
  CHECK(r.trace.counters["gpu_metrics.unknown_metrics"] == 1);
  CHECK(r.devices[0].started.empty());
}

TEST_CASE("pm sampling: a chosen list, with the default set inside it") {
  Run r;
  r.config.gpuMetrics = {"lts__throughput.avg.pct_of_peak_sustained_elapsed", "default"};
  r.make();
  r.sampler->addDevice(0);
  r.sampler->pollOnce();
  r.sampler->stop();
  const std::vector<std::string>& started = r.devices[0].started;
  REQUIRE(started.size() == 12);  // the name asked for, then the default set's eleven
  CHECK(started[0] == "lts__throughput.avg.pct_of_peak_sustained_elapsed");
  CHECK(started[1] == "gr__cycles_active.avg.pct_of_peak_sustained_elapsed");
}

TEST_CASE("pm sampling: the thread samples until stopped") {
  Run r;
  r.make();
  r.sampler->start();
  r.sampler->addDevice(3);
  // The thread sets the device up at once and decodes every period; stop() decodes once more.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  r.sampler->stop();
  r.sampler->collect(r.trace.store);
  CHECK(r.devices[3].stopped);
  CHECK(r.trace.store.count(RecordKind::GpuMetric) >= 10);
  CHECK(r.sampler->bytesInMemory() == 0);
}

TEST_CASE("pm sampling: a session's first sample, begun before it, is left out and not lost") {
  Run r;
  r.make();
  r.devices[0].firstSpan = 900'000'000;  // about a second, as the lent H100 gives it
  r.sampler->addDevice(0);
  r.sampler->pollOnce();
  r.sampler->pollOnce();
  r.sampler->stop();
  r.sampler->collect(r.trace.store);
  r.sampler->publish(r.trace);
  CHECK(r.trace.store.count(RecordKind::GpuMetric) == 29);
  CHECK(r.trace.counters["gpu_metrics.samples_lost"] == 0);
  r.trace.store.records<GpuMetricRecord>().forEach(
      [](const GpuMetricRecord& m) { CHECK(m.end - m.start == 100'000); });
}
