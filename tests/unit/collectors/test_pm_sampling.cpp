// The PM sampler on a fake backend: devices set up once their context
// exists, the default set chosen by what fits, samples decoded onto the
// trace clock and into the store, and every failure said in one line and
// counted, with the trace still whole.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "collectors/pm_sampling.h"
#include "core/gpu_metrics.h"
#include "fake_pm_backend.h"

using namespace cuptitrace;
using namespace cuptitrace::pm_test;

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

TEST_CASE("pm sampling: a device samples on while it has a context, and again on a new one") {
  Run r;
  r.config.gpuMetricsIntervalNs = 100'000;
  r.make();
  FakeBackend& b = *r.backend;
  r.sampler->start();
  r.sampler->addDevice(0);  // returns once sampling is set up
  r.sampler->addDevice(0);  // a second context on the same device
  REQUIRE(b.get(0).starts == 1);
  REQUIRE(waitFor([&] { return b.get(0).decodes >= 2; }));

  r.sampler->removeDevice(0);  // one of the two goes: the other still runs kernels
  const int before = b.get(0).decodes;
  CHECK(waitFor([&] { return b.get(0).decodes >= before + 3; }));
  CHECK_FALSE(b.get(0).stopped);
  CHECK(b.get(0).closes == 0);

  r.sampler->removeDevice(0);  // the last: stopped and closed before the call returns
  CHECK(b.get(0).stopped);
  CHECK(b.get(0).closes == 1);
  const int idle = b.get(0).decodes;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  CHECK(b.get(0).decodes == idle);  // no CUPTI call without a context

  r.sampler->addDevice(0);  // a context again: a new session, set up before this returns
  CHECK(b.get(0).starts == 2);
  CHECK(b.get(0).running);
  CHECK(waitFor([&] { return b.get(0).decodes >= idle + 3; }));
  r.sampler->stop();
  r.sampler->collect(r.trace.store);
  r.sampler->publish(r.trace);

  // Samples from both sessions, the second's two seconds after the first's.
  uint64_t firstSession = 0, secondSession = 0, last = 0;
  bool ordered = true;
  r.trace.store.records<GpuMetricRecord>().forEach([&](const GpuMetricRecord& m) {
    (m.start < 1'000'000'000 ? firstSession : secondSession) += 1;
    ordered = ordered && m.start >= last;
    last = m.start;
  });
  CHECK(firstSession >= 30);
  CHECK(secondSession >= 20);
  CHECK(ordered);
  CHECK(r.trace.counters["gpu_metrics.sessions_resumed"] == 1);
  // The time without a context is not samples lost.
  CHECK(r.trace.counters["gpu_metrics.samples_lost"] == 0);
  CHECK(r.lines.empty());
}

TEST_CASE("pm sampling: a context that goes while the sampler is held up in CUPTI waits a bounded time") {
  Run r;
  r.make();
  FakeBackend& b = *r.backend;
  r.sampler->start();
  r.sampler->addDevice(0);
  REQUIRE(waitFor([&] { return b.get(0).decodes >= 1; }));
  b.hold = true;  // the next decode does not return
  REQUIRE(waitFor([&] { return b.holding.load(); }));
  const auto began = std::chrono::steady_clock::now();
  r.sampler->removeDevice(0);
  const auto waited = std::chrono::steady_clock::now() - began;
  CHECK(waited >= std::chrono::nanoseconds(PmSampler::kRemoveWaitNs) - std::chrono::milliseconds(50));
  CHECK(waited < std::chrono::nanoseconds(PmSampler::kRemoveWaitNs) + std::chrono::seconds(2));
  b.hold = false;  // the call returns at last: the device is not touched again
  const int decodes = [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    return b.get(0).decodes;
  }();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  CHECK(b.get(0).decodes == decodes);
  r.sampler->stop();
  r.sampler->publish(r.trace);
  CHECK_FALSE(b.get(0).stopped);
  CHECK(b.get(0).closes == 0);
  CHECK(r.trace.counters["gpu_metrics.devices_gone_unstopped"] == 1);
}

TEST_CASE("pm sampling: values are evaluated off the sampling thread, which only decodes") {
  Run r;
  r.make();
  FakeBackend& b = *r.backend;
  r.sampler->start();
  r.sampler->addDevice(0);
  REQUIRE(waitFor([&] { return b.evaluations.load() >= 30; }));
  r.sampler->stop();
  r.sampler->collect(r.trace.store);
  r.sampler->publish(r.trace);
  const FakeDevice d = b.get(0);
  std::thread::id evaluatedOn;
  {
    std::lock_guard<std::mutex> lock(b.mutex);
    evaluatedOn = b.evaluatedOn;
  }
  CHECK(d.decodedOn != std::thread::id());
  CHECK(evaluatedOn != std::thread::id());
  CHECK(evaluatedOn != d.decodedOn);
  const auto& records = r.trace.store.records<GpuMetricRecord>();
  REQUIRE(records.size() >= 30);
  CHECK(records[0].values[0] == Approx(1));
  CHECK(records[records.size() - 1].values[2] == Approx(21));
  auto& c = r.trace.counters;
  CHECK(c["gpu_metrics.samples"] == records.size());
  CHECK(c.count("gpu_metrics.sampler_cpu_ns") == 1);
  CHECK(c["gpu_metrics.evaluate_cpu_ns"] > 0);
  CHECK(c["gpu_metrics.sampling_ns"] > 0);
  CHECK(c["gpu_metrics.decodes"] >= 3);
  CHECK(c["gpu_metrics.decode_period_ns"] == PmSampler::decodePeriodNs(r.config.gpuMetricsIntervalNs));
  CHECK(c["gpu_metrics.longest_gap_ns"] == 0);  // back to back
}

TEST_CASE("pm sampling: images hold a quarter of a second, decoded a few times over") {
  // Every rate from 1 Hz to 1 MHz: an image has room for kImageRoomNs of
  // samples (within its bounds), and is decoded kImagePeriods times or more
  // in that time, every 2 to 50 ms.
  for (const uint64_t interval : {1'000'000'000ull, 1'000'000ull, 100'000ull, 50'000ull, 20'000ull, 1'000ull}) {
    const uint32_t samples = PmSampler::imageSamples(interval);
    const uint64_t period = PmSampler::decodePeriodNs(interval);
    CHECK(samples >= std::min<uint64_t>(PmSampler::kImageRoomNs / interval, PmSampler::kMaxImageSamples));
    CHECK(samples >= PmSampler::kMinImageSamples);
    CHECK(period >= PmSampler::kMinDecodePeriodNs);
    CHECK(period <= PmSampler::kMaxDecodePeriodNs);
    if (period > PmSampler::kMinDecodePeriodNs) CHECK(PmSampler::kImagePeriods * period <= samples * interval);
  }
  // At 10 kHz: images of 2501 samples (250 ms), decoded every 50 ms.
  CHECK(PmSampler::imageSamples(100'000) == 2501);
  CHECK(PmSampler::decodePeriodNs(100'000) == 50'000'000);
  // An eighth of the memory cap at most, 64 MiB at most.
  Config small;
  small.maxMemory = uint64_t{128} << 20;
  CHECK(PmSampler::maxImageBytes(small) == uint64_t{16} << 20);
  small.maxMemory = uint64_t{4} << 30;
  CHECK(PmSampler::maxImageBytes(small) == PmSampler::kMaxImageBytes);

  Run r;
  r.config.gpuMetricsIntervalNs = 100'000;
  r.make();
  r.sampler->addDevice(0);
  r.sampler->pollOnce();
  r.sampler->stop();
  r.sampler->publish(r.trace);
  CHECK(r.devices[0].imageSamples == 2501);
  CHECK(r.devices[0].imageMaxBytes == PmSampler::maxImageBytes(r.config));
  CHECK(r.devices[0].bufferBytes == PmSampler::kHardwareBufferBytes);
  CHECK(r.trace.counters["gpu_metrics.image_samples"] == 2501);
  CHECK(r.trace.counters["gpu_metrics.decode_period_ns"] == 50'000'000);
}

TEST_CASE("pm sampling: images made smaller than asked, to fit their bytes, are decoded more often") {
  Run r;
  r.config.gpuMetricsIntervalNs = 100'000;
  r.config.maxMemory = uint64_t{80} << 20;  // images of 10 MiB at most
  r.make();
  r.devices[0].bytesPerSample = 10'000;     // 1048 samples fit: 104.8 ms of them
  r.sampler->addDevice(0);
  r.sampler->pollOnce();
  r.sampler->stop();
  r.sampler->publish(r.trace);
  CHECK(r.devices[0].imageMaxBytes == uint64_t{10} << 20);
  CHECK(r.trace.counters["gpu_metrics.image_samples"] == 1048);
  CHECK(r.trace.counters["gpu_metrics.image_bytes"] == 10'480'000);
  CHECK(r.trace.counters["gpu_metrics.decode_period_ns"] == 1048 * 100'000 / PmSampler::kImagePeriods);
}

TEST_CASE("pm sampling: a test's own buffer, decode period and images' room") {
  Run t;
  t.config.gpuMetricsIntervalNs = 100'000;
  t.make({uint64_t{32} << 20, 10'000'000, 0});
  t.sampler->addDevice(0);
  t.sampler->pollOnce();
  t.sampler->stop();
  t.sampler->publish(t.trace);
  CHECK(t.devices[0].bufferBytes == uint64_t{32} << 20);
  CHECK(t.devices[0].imageSamples == 2501);  // the default room holds four such periods
  CHECK(t.trace.counters["gpu_metrics.decode_period_ns"] == 10'000'000);
  CHECK(t.trace.counters["gpu_metrics.hardware_buffer_bytes"] == uint64_t{32} << 20);

  // A long decode period: the image grows to hold four of them.
  Run l;
  l.config.gpuMetricsIntervalNs = 100'000;
  l.make({0, 200'000'000, 0});
  l.sampler->addDevice(0);
  l.sampler->pollOnce();
  l.sampler->stop();
  CHECK(l.devices[0].imageSamples == PmSampler::imageSamples(100'000, 4 * 200'100'000));
  CHECK(l.devices[0].imageSamples >= 8000);

  // A small room: smaller images, decoded a quarter of it apart.
  Run m;
  m.config.gpuMetricsIntervalNs = 100'000;
  m.make({0, 0, 20'000'000});
  m.sampler->addDevice(0);
  m.sampler->pollOnce();
  m.sampler->stop();
  m.sampler->publish(m.trace);
  CHECK(m.devices[0].imageSamples == 201);
  CHECK(m.trace.counters["gpu_metrics.decode_period_ns"] == 201 * 100'000 / 4);
}

TEST_CASE("pm sampling: the decodes' cost and lateness are counted") {
  Run r;
  r.make();
  r.devices[0].decodeSleepNs = 5'000'000;  // each decode call takes 5 ms
  r.sampler->addDevice(0);
  r.sampler->pollOnce();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  r.sampler->pollOnce();
  r.sampler->pollOnce();
  // The last context goes, and comes back 100 ms later: that time is not a late decode.
  r.sampler->removeDevice(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  r.sampler->addDevice(0);
  r.sampler->pollOnce();
  r.sampler->pollOnce();
  r.sampler->stop();
  r.sampler->publish(r.trace);
  auto& c = r.trace.counters;
  const uint64_t decodes = c["gpu_metrics.decodes"];
  CHECK(decodes == 7);  // five rounds, and the last decode of each session
  CHECK(c["gpu_metrics.decode_data_ns"] == decodes * 1000);
  CHECK(c["gpu_metrics.decode_spans_ns"] == decodes * 10);
  CHECK(c["gpu_metrics.decode_ns"] >= decodes * 5'000'000);
  CHECK(c["gpu_metrics.longest_decode_ns"] >= 5'000'000);
  CHECK(c["gpu_metrics.longest_decode_ns"] < 100'000'000);
  // From the first decode's start to the second's: its 5 ms and the 30 ms between.
  CHECK(c["gpu_metrics.longest_decode_interval_ns"] >= 35'000'000);
  CHECK(c["gpu_metrics.longest_decode_interval_ns"] < 100'000'000);
  CHECK(c["gpu_metrics.images_made"] == 1);
}

TEST_CASE("pm sampling: a decode that fills its image is decoded on at once, nothing lost") {
  Run r;
  r.make();
  r.devices[0].fullAt = {1};
  r.sampler->addDevice(0);
  r.sampler->pollOnce();  // two decodes: the first filled its image
  CHECK(r.devices[0].decodes == 2);
  r.sampler->stop();
  r.sampler->collect(r.trace.store);
  r.sampler->publish(r.trace);
  CHECK(r.trace.store.count(RecordKind::GpuMetric) == 30);
  CHECK(r.trace.counters["gpu_metrics.images_filled"] == 1);
  CHECK(r.trace.counters["gpu_metrics.samples_lost"] == 0);
  CHECK(r.trace.counters["gpu_metrics.samples_lost_at_fill"] == 0);
}

TEST_CASE("pm sampling: samples a full image lost are told from other losses") {
  Run r;
  r.make();
  // The first decode fills its image, and the samples beyond it are gone;
  // a later overflow loses three more, not at a fill.
  r.devices[0].fullAt = {1};
  r.devices[0].skipAt = {1, 3};
  r.sampler->addDevice(0);
  r.sampler->pollOnce();  // decodes 1 (full) and 2
  r.sampler->pollOnce();  // decode 3
  r.sampler->stop();
  r.sampler->publish(r.trace);
  CHECK(r.trace.counters["gpu_metrics.images_filled"] == 1);
  CHECK(r.trace.counters["gpu_metrics.samples_lost"] == 6);
  CHECK(r.trace.counters["gpu_metrics.samples_lost_at_fill"] == 3);
}
