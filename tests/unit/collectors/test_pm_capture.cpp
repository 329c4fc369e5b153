// The PM sampler and capture windows: outside them no device samples; each
// window starts the device's session again (or a new one), and the time
// between windows is not samples lost.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "collectors/pm_sampling.h"
#include "fake_pm_backend.h"

using namespace cuptitrace;
using namespace cuptitrace::pm_test;

TEST_CASE("pm sampling: outside capture windows no device samples, started again by each window") {
  Run r;
  r.config.gpuMetricsIntervalNs = 100'000;
  r.make();
  FakeBackend& b = *r.backend;
  r.sampler->start();
  r.sampler->setCapturing(false);  // collection starts off (a window mode)
  r.sampler->addDevice(0);         // set up (metrics chosen), then stopped at once
  // Stopped, then what its buffer held decoded, once.
  REQUIRE(waitFor([&] { return b.get(0).stopped && b.get(0).decodes == 1; }));
  CHECK(b.get(0).starts == 1);
  const int idle = b.get(0).decodes;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  CHECK(b.get(0).decodes == idle);  // nothing decoded outside a window

  for (int window = 1; window <= 2; ++window) {
    r.sampler->setCapturing(true);
    r.sampler->waitCapturing();  // returns once sampling started again
    CHECK(b.get(0).resumes == window);
    CHECK_FALSE(b.get(0).stopped);
    const int at = b.get(0).decodes;
    CHECK(waitFor([&] { return b.get(0).decodes >= at + 2; }));
    r.sampler->setCapturing(false);  // asks; the thread stops it and decodes what is left
    CHECK(waitFor([&] { return b.get(0).stopped; }));
  }
  CHECK(b.get(0).starts == 1);  // one session, its set-up kept
  CHECK(b.get(0).closes == 0);
  // The context's end while stopped ends the session; a new context outside a window stays stopped.
  r.sampler->removeDevice(0);
  CHECK(b.get(0).closes == 1);
  r.sampler->addDevice(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK(b.get(0).starts == 1);
  // A window with no context on the device: nothing starts; its next context in a window does.
  r.sampler->removeDevice(0);
  CHECK(b.get(0).closes == 1);
  r.sampler->setCapturing(true);
  r.sampler->waitCapturing();
  CHECK(b.get(0).starts == 1);
  r.sampler->addDevice(0);
  CHECK(b.get(0).starts == 2);
  CHECK(b.get(0).running);
  r.sampler->stop();
  r.sampler->collect(r.trace.store);
  r.sampler->publish(r.trace);
  CHECK(r.trace.counters["gpu_metrics.capture_pauses"] == 3);
  // The time between windows is not samples lost, and every sample was kept.
  CHECK(r.trace.counters["gpu_metrics.samples_lost"] == 0);
  CHECK(r.trace.counters["gpu_metrics.samples"] > 0);
  CHECK(r.lines.empty());
}

TEST_CASE("pm sampling: a session that cannot start again gives way to a new one") {
  Run r;
  r.config.gpuMetricsIntervalNs = 100'000;
  r.make();
  FakeBackend& b = *r.backend;
  r.devices[0].resumeStatus = PmStatus::fail(PmStatus::Error, 1, "cuptiPmSamplingStart: refused");
  r.sampler->addDevice(0);
  r.sampler->pollOnce();
  r.sampler->setCapturing(false);  // no thread to wait for: the next round follows it
  r.sampler->pollOnce();
  CHECK(b.get(0).stopped);
  const int decodes = b.get(0).decodes;
  r.sampler->pollOnce();
  CHECK(b.get(0).decodes == decodes);
  r.sampler->setCapturing(true);
  r.sampler->pollOnce();
  CHECK(b.get(0).closes == 1);  // the stopped session ended, a new one began
  CHECK(b.get(0).starts == 2);
  CHECK(b.get(0).running);
  CHECK_FALSE(b.get(0).stopped);
  CHECK(b.get(0).decodes == decodes + 1);
  r.sampler->stop();
  r.sampler->publish(r.trace);
  CHECK(r.trace.counters["gpu_metrics.samples_lost"] == 0);
  CHECK(r.lines.empty());
}
