// GPU metrics (the gpu_metrics activity): each device's performance
// monitors sampled at a fixed rate of GPU time by CUPTI's PM sampling, while
// the program runs.
//
// One thread of the tracer's own ("gpu metrics") does all of it: once a
// context exists on a device, it chooses the metrics (CUPTITRACE_GPU_METRICS_LIST
// or the default set, core/gpu_metrics.h), sets sampling up and starts it;
// then every few milliseconds it decodes what the hardware buffer holds into
// samples (values evaluated, times moved onto the trace clock) and queues
// them as GpuMetricRecords. The drain thread moves them into the store
// (collect), so the store keeps one writer and the samples count against
// CUPTITRACE_MAX_MEMORY and spill like any record.
//
// It never stops the program: what cannot be done (no permission to the
// counters, a device that cannot sample, a metric the device does not know,
// a buffer that overflowed) is said in one line on stderr and counted in
// the trace's counters (gpu_metrics.*), and the trace is written without
// what is missing. Samples lost are counted from the gaps they leave.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "collectors/pm_backend.h"
#include "core/config.h"
#include "core/gpu_metrics.h"
#include "core/trace.h"

namespace cuptitrace {

class PmSampler {
 public:
  // `say` prints one line (stderr in the tracer; tests collect them).
  PmSampler(StringTable& strings, const Config& config, std::unique_ptr<PmBackend> backend,
            std::function<void(const std::string&)> say);
  ~PmSampler();
  PmSampler(const PmSampler&) = delete;
  PmSampler& operator=(const PmSampler&) = delete;

  // Starts the sampling thread.
  void start();
  // A context was made on `device` (on a program thread, in CUPTI's
  // callback): the thread sets sampling up there, and this waits for it (at
  // most kSetUpWaitNs) so that sampling covers the program's first kernels.
  // No CUPTI call here.
  void addDevice(uint32_t device);
  // The device's context is being destroyed (on a program thread, in CUPTI's
  // callback): its sampling stops now, and what its buffer holds is decoded.
  void removeDevice(uint32_t device);
  // Stops sampling on every device, decodes what is left and ends the
  // thread. Once; later calls do nothing.
  // Stops sampling. `atExit`: the process is ending and its contexts may be
  // gone already: devices still sampling are left to the driver, without a
  // CUPTI call (their last, undecoded samples are lost and counted).
  void stop(bool atExit = false);
  // The drain thread (or the writer, once everything stopped): moves the
  // samples decoded so far into the store.
  void collect(TraceStore& store);
  // Samples waiting for collect(), in bytes (they count against the memory cap).
  uint64_t bytesInMemory() const { return pendingBytes_.load(std::memory_order_relaxed); }
  // Counters and what failed, into the trace.
  void publish(Trace& trace) const;

  // One round of the thread's work, on the calling thread (tests).
  void pollOnce();

  // How often the hardware buffer is decoded, and its size.
  static constexpr uint64_t kDecodePeriodNs = 20'000'000;
  // The longest a program thread waits in addDevice for a device's set-up.
  static constexpr uint64_t kSetUpWaitNs = 5'000'000'000;
  // The longest stop() waits for the thread.
  static constexpr uint64_t kStopWaitNs = 10'000'000'000;
  static constexpr uint64_t kHardwareBufferBytes = uint64_t{64} << 20;
  // Samples held for collect() at most; past it they are dropped and counted
  // (a drain thread that no longer runs).
  static constexpr size_t kMaxPending = size_t{1} << 20;

 private:
  struct Device {
    uint32_t id = 0;
    std::string chip;
    std::vector<GpuMetric> metrics;
    StringId set = kNoString;
    bool running = false;
    bool fresh = false;    // a session just began: its first sample is not the program's
    uint64_t lastEnd = 0;  // trace clock: the end of the last sample
    uint64_t samples = 0;
    uint64_t lost = 0;
  };

  void run() noexcept;
  void setUp(uint32_t device);
  // Chooses the device's metrics; false (and a line said) when they cannot be had.
  bool chooseMetrics(Device& d);
  void decode(Device& d);
  // Stops a running device's sampling and decodes what its buffer holds (under workMutex_).
  void stopDevice(Device& d);
  void fail(Device& d, const PmStatus& s, const char* doing);

  StringTable& strings_;
  const Config config_;
  std::unique_ptr<PmBackend> backend_;
  std::function<void(const std::string&)> say_;

  std::mutex mutex_;  // newDevices_, stopping_; the thread waits on cv_
  std::condition_variable cv_;
  std::vector<uint32_t> newDevices_;
  bool stopping_ = false;
  bool finished_ = false;  // the thread's loop is over (under mutex_)
  std::thread thread_;
  std::atomic<bool> stopped_{false};
  std::mutex workMutex_;  // the thread's work and stop()'s last round

  std::set<uint32_t> seen_;      // devices asked for (under mutex_)
  std::set<uint32_t> setUp_;     // devices whose set-up is over, done or failed (under mutex_)
  std::vector<Device> devices_;  // set up (under workMutex_)
  std::vector<PmSample> batch_;

  std::mutex pendingMutex_;
  std::vector<GpuMetricRecord> pending_;
  std::atomic<uint64_t> pendingBytes_{0};

  // Counters (under workMutex_, read by publish once stopped).
  uint64_t samples_ = 0, lost_ = 0, overflows_ = 0, incomplete_ = 0, dropped_ = 0,
           decodeErrors_ = 0;
  uint64_t abandoned_ = 0;  // the thread let go at stop (counted in the metadata)
  uint64_t leftAtExit_ = 0;  // devices still sampling when the process ended
  uint64_t failedDevices_ = 0, noPermission_ = 0, unsupported_ = 0, unknownMetrics_ = 0;
  std::vector<std::string> failures_;  // the lines said
};

}  // namespace cuptitrace
