// GPU metrics (the gpu_metrics activity): each device's performance
// monitors sampled at a fixed rate of GPU time by CUPTI's PM sampling, while
// the program runs.
//
// One thread of the tracer's own ("gpu metrics") decodes: once a context
// exists on a device, it chooses the metrics (CUPTITRACE_GPU_METRICS_LIST or
// the default set, core/gpu_metrics.h), sets sampling up and starts it; then
// every few tens of milliseconds it decodes what the hardware buffer holds
// into a counter data image with room for a quarter of a second of samples
// or more (so that a late decode does not fill it) and reads the samples'
// spans, nothing more. Their values are evaluated on a second
// thread (pm_evaluator.h), which queues the finished GpuMetricRecords; the
// drain thread moves them into the store (collect), so the store keeps one
// writer and the samples count against CUPTITRACE_MAX_MEMORY and spill like
// any record.
//
// Contexts are counted per device: sampling stops when the device's last
// context is destroyed (while it still lives) and starts again, a new
// session, when a context is made there again (gpu_metrics.sessions_resumed).
// Capture windows likewise: outside them no device samples; each window's
// end stops every device, and the next starts them again, each on its own
// session where it still can (gpu_metrics.capture_pauses).
//
// It never stops the program: what cannot be done (no permission to the
// counters, a device that cannot sample, a metric the device does not know,
// a buffer that overflowed) is said in one line on stderr and counted in
// the trace's counters (gpu_metrics.*), and the trace is written without
// what is missing. Samples lost are counted from the gaps they leave.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "collectors/pm_backend.h"
#include "collectors/pm_evaluator.h"
#include "core/config.h"
#include "core/gpu_metrics.h"
#include "core/trace.h"

namespace cuptitrace {

// "device 0 (GH100)": how the lines said name a device.
std::string pmDeviceText(uint32_t id, const std::string& chip);

class PmSampler {
 public:
  // What the GPU tests may change to compare (0, as Tuning{} has it: the default).
  struct Tuning {
    uint64_t hardwareBufferBytes;
    uint64_t decodePeriodNs;
    uint64_t imageRoomNs;  // the time of samples an image has room for
  };
  // `say` prints one line (stderr in the tracer; tests collect them).
  PmSampler(StringTable& strings, const Config& config, std::unique_ptr<PmBackend> backend,
            std::function<void(const std::string&)> say, Tuning tuning = Tuning{});
  ~PmSampler();
  PmSampler(const PmSampler&) = delete;
  PmSampler& operator=(const PmSampler&) = delete;

  // Starts the sampling thread.
  void start();
  // A context was made on `device` (on a program thread, in CUPTI's
  // callback). The device's first (or first since its last went): the
  // thread sets sampling up there, or starts it again, and this waits for it
  // (at most kSetUpWaitNs) so that sampling covers the context's first
  // kernels. No CUPTI call here.
  void addDevice(uint32_t device);
  // A context of `device` is being destroyed (on a program thread, in
  // CUPTI's callback). Its last: sampling stops now, while the context
  // lives, and what its buffer holds is decoded; this waits for the thread's
  // work at most kRemoveWaitNs (past it the device is left to the driver,
  // not touched again in this session, and counted).
  void removeDevice(uint32_t device);
  // A capture window opens (true) or closes (false): asks the thread to
  // start or stop sampling, and returns. No CUPTI call here.
  void setCapturing(bool on);
  // Once a window opened, on the thread that opened it with no lock held:
  // waits (at most kSetUpWaitNs) until the thread followed the last change,
  // so that sampling covers the window's first kernels. A window's end is
  // not waited for (the samples past it leave the trace).
  void waitCapturing();
  // Stops sampling on every device, decodes what is left and ends the
  // thread. Once; later calls do nothing. `atExit`: the process is ending
  // and its contexts may be gone already: devices still sampling are left to
  // the driver, without a CUPTI call (their last, undecoded samples are lost
  // and counted).
  void stop(bool atExit = false);
  // The drain thread (or the writer, once everything stopped): moves the
  // samples evaluated so far into the store.
  void collect(TraceStore& store) { evaluator_.collect(store); }
  // Samples and images waiting, in bytes (they count against the memory cap).
  uint64_t bytesInMemory() const { return evaluator_.bytesInMemory(); }
  // Counters and what failed, into the trace.
  void publish(Trace& trace) const;

  // One round of the thread's work, on the calling thread (tests).
  void pollOnce();

  // The samples a counter data image is asked to hold: `roomNs` of samples
  // at the rate (kImageRoomNs unless a test says), within [kMinImageSamples,
  // kMaxImageSamples]. The backend makes fewer when they do not fit in
  // maxImageBytes(): about 22 KB a sample with the default set on GH100.
  static uint32_t imageSamples(uint64_t intervalNs, uint64_t roomNs = kImageRoomNs);
  // How often the hardware buffer is decoded, for images of `samples`: a
  // kImagePeriods-th of the time they hold, within [kMinDecodePeriodNs,
  // kMaxDecodePeriodNs]; so a decode does not fill its image unless the
  // thread was held up for three periods or more. CUPTI's cost is mostly per
  // decode call, so fewer calls, each of more samples.
  static uint64_t decodePeriodNs(uint64_t intervalNs, uint32_t samples);
  static uint64_t decodePeriodNs(uint64_t intervalNs) {
    return decodePeriodNs(intervalNs, imageSamples(intervalNs));
  }
  // The most bytes an image takes: kMaxImageBytes, and an eighth of the
  // memory cap at most (images waiting count against it).
  static uint64_t maxImageBytes(const Config& config);
  static constexpr uint64_t kImageRoomNs = 250'000'000;
  static constexpr uint32_t kMinImageSamples = 64;
  static constexpr uint32_t kMaxImageSamples = 1u << 16;
  static constexpr uint64_t kMaxImageBytes = uint64_t{64} << 20;
  static constexpr uint64_t kMinDecodePeriodNs = 2'000'000;
  static constexpr uint64_t kMaxDecodePeriodNs = 50'000'000;
  static constexpr uint64_t kImagePeriods = 4;
  // The longest a program thread waits in addDevice for a device's set-up.
  static constexpr uint64_t kSetUpWaitNs = 5'000'000'000;
  // The longest a program thread waits in removeDevice for the thread's work.
  static constexpr uint64_t kRemoveWaitNs = 5'000'000'000;
  // The longest stop() waits for each thread.
  static constexpr uint64_t kStopWaitNs = 10'000'000'000;
  // The hardware buffer: room for much more than a decode period (the
  // thread may be held up), as CUPTI's own Python layer defaults to.
  static constexpr uint64_t kHardwareBufferBytes = uint64_t{256} << 20;

 private:
  struct Device {
    uint32_t id = 0;
    std::string chip;
    std::vector<GpuMetric> metrics;
    StringId set = kNoString;
    std::vector<double> scale;  // each metric's factor to its unit
    bool chosen = false;   // metrics chosen and a session started once: it can resume
    bool running = false;
    bool paused = false;   // stopped by the end of a capture window: started again by the next
    bool open = false;     // its session is set up in the backend (stopped or not): close() ends it
    bool fresh = false;    // a session just began: its first sample is not the program's
    bool afterFill = false;  // the last decode filled its image: the next sample shows what it lost
    uint64_t lastEnd = 0;  // trace clock: the end of the last sample
    uint64_t decodePeriodNs = 0;  // for the images of its session
    std::chrono::steady_clock::time_point lastDecode{};  // this session's last decode
    uint64_t samples = 0;
    uint64_t lost = 0;
  };

  void run() noexcept;
  void setUp(uint32_t device);
  // Starts a session on a device set up before (its metrics chosen).
  bool startSession(Device& d);
  // A session's samples start afresh: its first sample, and the time
  // before it, are not the program's (and not samples lost).
  static void beginSamples(Device& d);
  // Ends a device's session in the backend, while its context lives.
  void closeSession(Device& d);
  // Samples a paused (or stopped) device again: its session started again
  // where it is still set up, a new one otherwise.
  bool restart(Device& d);
  // Stops the running devices when no capture window is open, and starts
  // the paused ones with a context when one is (under workMutex_).
  void followCapture(bool capturing);
  bool hasContext(uint32_t device);
  // Devices whose last context went while the thread's work held them: not
  // touched again (under workMutex_).
  void dropGoneDevices();
  bool gone(uint32_t device);
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

  std::mutex mutex_;  // newDevices_, stopping_, contexts_, gone_; the thread waits on cv_
  std::condition_variable cv_;
  std::vector<uint32_t> newDevices_;
  bool stopping_ = false;
  bool capturing_ = true;          // a capture window is open (or none are asked for)
  uint64_t captureAsked_ = 0;      // changes of capturing_ so far
  uint64_t captureApplied_ = 0;    // of them, those the thread has followed
  bool finished_ = false;  // the thread's loop is over (under mutex_)
  std::thread thread_;
  std::atomic<bool> stopped_{false};
  std::mutex workMutex_;  // the thread's work, removeDevice's and stop()'s last round

  std::map<uint32_t, int> contexts_;  // live contexts per device (under mutex_)
  std::set<uint32_t> setUp_;     // devices whose set-up (or restart) is over, done or failed (under mutex_)
  std::set<uint32_t> gone_;      // last context gone while the work was held up (under mutex_)
  std::vector<Device> devices_;  // set up (under workMutex_)
  std::vector<PmSample> batch_;
  PmEvaluator evaluator_;
  // The shortest of the devices' decode periods (read by the thread's loop).
  std::atomic<uint64_t> decodePeriodNs_;
  const bool periodTuned_;
  uint64_t hardwareBufferBytes_;
  uint64_t imageRoomNs_;

  // Counters (under workMutex_, read by publish once stopped).
  uint64_t samples_ = 0, lost_ = 0, overflows_ = 0, incomplete_ = 0, decodeErrors_ = 0;
  uint64_t resumed_ = 0;         // sessions started again on a device's new context
  uint64_t capturePauses_ = 0;   // sessions stopped at the end of a capture window
  uint64_t goneUnstopped_ = 0;   // devices whose last context went before the work let go of them
  uint64_t decodes_ = 0, imagesFilled_ = 0, longestGapNs_ = 0;
  // How the decodes went: wall time in the backend's decode (all of it,
  // CUPTI's decode proper, reading the spans), the longest call, the longest
  // time between two decodes of a session, images copied for want of a
  // free one, and the images' room (samples, bytes) of the last session.
  uint64_t decodeNs_ = 0, decodeDataNs_ = 0, spansNs_ = 0, longestDecodeNs_ = 0;
  uint64_t longestDecodeIntervalNs_ = 0, imagesMade_ = 0, imageSamplesMade_ = 0, imageBytes_ = 0;
  uint64_t lostAtFill_ = 0;  // of lost_, in the gap right after a full image
  uint64_t samplerCpuNs_ = 0;    // the sampling thread's decoding, CPU time
  uint64_t setUpCpuNs_ = 0;      // setting devices up, CPU time
  std::chrono::steady_clock::time_point firstSession_{};  // when sampling first started
  uint64_t samplingNs_ = 0;      // from then to stop()
  uint64_t abandoned_ = 0;  // the thread let go at stop (counted in the metadata)
  uint64_t leftAtExit_ = 0;  // devices still sampling when the process ended
  uint64_t failedDevices_ = 0, noPermission_ = 0, unsupported_ = 0, unknownMetrics_ = 0;
  std::vector<std::string> failures_;  // the lines said
};

}  // namespace cuptitrace
