// What PM sampling asks of CUPTI, one device at a time, behind an interface:
// pm_cupti.cpp implements it with CUPTI's PM sampling and profiler host
// APIs; the unit tests give the sampler (pm_sampling.h) a fake one, and the
// GPU tests force its failures (CUPTITRACE_TEST_GPU_METRICS_FAULT).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cuptitrace {

struct PmStatus {
  enum Code : uint8_t {
    Ok = 0,
    NotSupported,   // the device (or this CUPTI) cannot sample
    NoPermission,   // the counters are for administrators (NVreg_RestrictProfilingToAdminUsers)
    UnknownMetric,  // a metric the device does not know, or that needs more than one pass
    Overflow,       // the hardware buffer filled before it was decoded: samples lost
    Error,          // anything else CUPTI refused
  };
  Code code = Ok;
  int cupti = 0;     // CUPTI's result code, 0 when none
  std::string text;  // what failed, in words ("cuptiPmSamplingEnable: CUPTI_ERROR_...")
  bool ok() const { return code == Ok; }
  static PmStatus fail(Code c, int cuptiCode, std::string what) {
    return {c, cuptiCode, std::move(what)};
  }
};

// One decoded sample: its span on the GPU's clock, as CUPTI gives it. Its
// values are evaluated later, from the image it was decoded into (PmImage).
struct PmSample {
  uint64_t start = 0;
  uint64_t end = 0;
};

// What one decode filled (a counter data image): the values of its samples
// are evaluated from it, on any thread, after the decode that made it and
// without the sampling session (which may have ended by then). Dropped once
// evaluated: its memory goes back to be decoded into again.
class PmImage {
 public:
  virtual ~PmImage() = default;
  // The values of the image's `index`th sample (that decode's order), one per
  // metric of the device's set; false when they cannot be had.
  virtual bool evaluate(size_t index, std::vector<double>& values) = 0;
  // Its size in memory, bytes.
  virtual uint64_t bytes() const = 0;
};

struct PmDecodeInfo {
  bool overflow = false;    // the hardware buffer overflowed since the last decode
  bool more = false;        // the counter data image filled: decode again at once
  uint64_t incomplete = 0;  // samples begun but not complete when decoded (dropped)
  bool imageMade = false;   // no image to reuse: a fresh one was made (copied) for it
  uint64_t decodeDataNs = 0;  // wall time of the decode proper (cuptiPmSamplingDecodeData)
  uint64_t spansNs = 0;       // wall time reading the samples' spans
};

// A session's counter data images: the sampler asks for room for `samples`
// in at most `maxBytes`; the backend says what it made (fewer samples when
// that many do not fit) and their size.
struct PmImageSize {
  uint32_t samples = 0;
  uint64_t maxBytes = 0;  // 0: no limit
  uint64_t bytes = 0;     // out: one image's size
};

class PmBackend {
 public:
  virtual ~PmBackend() = default;
  // The device's name for the chip ("GH100"); empty when it cannot be had.
  virtual std::string chip(uint32_t device) = 0;
  // Whether the device can be sampled at all (architecture, vGPU, permission).
  virtual PmStatus supported(uint32_t device) = 0;
  // True when the device knows every metric of `metrics` and collects them in one pass.
  virtual bool fits(uint32_t device, const std::vector<std::string>& metrics) = 0;
  // The metric names the device knows (base names with their usual suffixes), for an error line.
  virtual std::vector<std::string> knownMetrics(uint32_t device) = 0;
  // Sets sampling of `metrics` on `device` up, every `intervalNs` of GPU
  // time, with a hardware buffer of `bufferBytes` and images of
  // `image.samples` samples each (fewer when those do not fit in
  // `image.maxBytes`: `image` says what was made), and starts it. Again
  // after close(): a new session on the device's new context.
  virtual PmStatus start(uint32_t device, const std::vector<std::string>& metrics,
                         uint64_t intervalNs, uint64_t bufferBytes, PmImageSize& image) = 0;
  // Decodes what the hardware buffer holds, and no more than an image takes,
  // into a fresh image: appends the spans of the samples completed to `out`
  // and hands the image over in `image` (null when nothing was decoded). Only
  // the decode: the values are the image's to evaluate, elsewhere.
  virtual PmStatus decode(uint32_t device, std::vector<PmSample>& out, PmDecodeInfo& info,
                          std::unique_ptr<PmImage>& image) = 0;
  // Stops sampling (what the buffer holds can still be decoded).
  virtual PmStatus stop(uint32_t device) = 0;
  // Starts a stopped session again (a capture window's start), its set-up
  // and images kept; an error when it cannot be (then close() and start()).
  virtual PmStatus resume(uint32_t device) = 0;
  // Ends the stopped session for good (its last decode done), while the
  // device's context still lives: a later start() begins a new one.
  virtual void close(uint32_t device) = 0;
  // The GPU timestamp of a sample, on the trace clock.
  virtual uint64_t toTraceClock(uint32_t device, uint64_t gpuTimestamp) = 0;
};

// The CUPTI implementation (pm_cupti.cpp).
std::unique_ptr<PmBackend> makeCuptiPmBackend();
// A backend that fails as a test asks: "permission", "unsupported",
// "overflow" (decodes report overflows); nullptr for anything else.
std::unique_ptr<PmBackend> makeFaultyPmBackend(const std::string& fault,
                                               std::unique_ptr<PmBackend> real);

}  // namespace cuptitrace
