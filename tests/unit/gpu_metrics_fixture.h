// GPU metric samples built by hand: a device sampled every 100 us while four
// kernels of known character run one after another, with idle time between:
// a DRAM-streaming copy, an FMA loop, a tensor-core loop and a sleeping kernel.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "core/gpu_metrics.h"
#include "core/trace.h"

namespace cuptitrace::testing {

inline constexpr uint64_t kMetricBase = 5'000'000'000ull;
inline constexpr uint64_t kMetricInterval = 100'000;  // 10 kHz

// The default set's first metrics, in catalog order.
inline std::vector<GpuMetric> fixtureMetrics() {
  std::vector<GpuMetric> m;
  for (const char* name :
       {"gr__cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
        "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed",
        "dramc__write_throughput.avg.pct_of_peak_sustained_elapsed",
        "dram__bytes_read.sum.per_second", "dram__bytes_write.sum.per_second",
        "gpc__cycles_elapsed.avg.per_second"})
    m.push_back(describeGpuMetric(name));
  return m;
}

// Values in set order: GR, SM active, SM issue, tensor, DRAM read %, DRAM write %, read B/s, write
// B/s, MHz.
struct Character {
  const char* kernel;
  float values[9];
};
inline const Character kCopy = {"stream_copy", {100, 99, 12, 0, 45, 44, 1.5e12f, 1.5e12f, 1755}};
inline const Character kFma = {"fma_loop", {100, 98, 92, 0, 0.2f, 0.1f, 6e9f, 3e9f, 1755}};
inline const Character kMma = {"mma_loop", {100, 97, 30, 85, 0.3f, 0.1f, 9e9f, 3e9f, 1755}};
inline const Character kSleep = {"sleep_kernel", {100, 96, 0.5f, 0, 0.1f, 0.1f, 3e9f, 3e9f, 1755}};
inline const Character kIdle = {"", {0, 0, 0, 0, 0.1f, 0.1f, 3e9f, 3e9f, 1755}};

inline void addSample(Trace& t, StringId set, uint32_t device, uint64_t start,
                      const float (&v)[9]) {
  GpuMetricRecord r{};
  r.start = start;
  r.end = start + kMetricInterval;
  r.deviceId = device;
  r.metricSet = set;
  for (int i = 0; i < 9; ++i) r.values[i] = v[i];
  t.store.add(r);
}

inline void addKernel(Trace& t, const char* name, uint64_t start, uint64_t end,
                      uint32_t correlation, uint32_t device = 0) {
  KernelRecord k{};
  k.start = start;
  k.end = end;
  k.name = t.strings.intern(name);
  k.correlationId = correlation;
  k.deviceId = device;
  k.contextId = 1;
  k.streamId = 7;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = 128;
  k.blockY = k.blockZ = 1;
  t.store.add(k);
}

// Each kernel runs 50 ms (500 samples), with 10 ms of idle device before it
// and after the last; every kernel starts half a sample after a sample
// boundary, as real ones do. 2,454 samples in all.
inline void gpuMetricsTrace(Trace& t) {
  t.meta.pid = 777;
  t.meta.processName = "gpu_metrics_kernels";
  t.meta.baseTimestampNs = kMetricBase;
  t.meta.startTimestampNs = kMetricBase;
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 80ull << 30, 1980000, "GPU-0"});
  const StringId set = t.strings.intern(encodeGpuMetricSet(fixtureMetrics()));
  const Character* order[] = {&kCopy, &kFma, &kMma, &kSleep};
  uint64_t ts = kMetricBase;
  uint32_t correlation = 1;
  for (const Character* c : order) {
    for (int i = 0; i < 100; ++i, ts += kMetricInterval) addSample(t, set, 0, ts, kIdle.values);
    const uint64_t kStart = ts + kMetricInterval / 2;
    const uint64_t kEnd = kStart + 500 * kMetricInterval;
    addKernel(t, c->kernel, kStart, kEnd, correlation++);
    // The samples the kernel starts and ends in are half the kernel's, half idle.
    float half[9];
    for (int m = 0; m < 9; ++m) half[m] = (c->values[m] + kIdle.values[m]) / 2;
    addSample(t, set, 0, ts, half);
    ts += kMetricInterval;
    for (int i = 0; i < 499; ++i, ts += kMetricInterval) addSample(t, set, 0, ts, c->values);
    addSample(t, set, 0, ts, half);
    ts += kMetricInterval;
  }
  for (int i = 0; i < 50; ++i, ts += kMetricInterval) addSample(t, set, 0, ts, kIdle.values);
  t.meta.endTimestampNs = ts;
  t.counters["gpu_metrics.samples"] = t.store.count(RecordKind::GpuMetric);
  t.counters["gpu_metrics.samples_lost"] = 0;
}

}  // namespace cuptitrace::testing
