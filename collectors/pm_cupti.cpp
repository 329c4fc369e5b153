// The PM sampling backend on CUPTI (CUDA 12.6 and later): the profiler host
// API (cupti_profiler_host.h) builds a metric set's configuration image from
// names and evaluates decoded samples; the PM sampling API
// (cupti_pmsampling.h) enables sampling on a device, starts it on a timer of
// GPU time, and decodes the hardware buffer into a counter data image.
//
// Decoding: each decode fills a fresh counter data image (a copy of one
// initialized once per session, taken from the session's pool) with what the
// hardware buffer holds, and reads its samples' spans; the image is handed
// over, and its values are evaluated elsewhere (CuptiImage, on the sampler's
// evaluation thread), which also resets it for the pool. A buffer that
// overflowed ends the session: CUPTI decodes nothing more from it, so a new
// one is started.
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "collectors/pm_backend.h"

namespace cuptitrace {
namespace {

std::string resultText(CUptiResult r) {
  const char* s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == nullptr)
    return "CUPTI error " + std::to_string(r);
  return s;
}

PmStatus status(CUptiResult r, const char* call) {
  if (r == CUPTI_SUCCESS) return {};
  PmStatus::Code code = PmStatus::Error;
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
      r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
    code = PmStatus::NoPermission;
  else if (r == CUPTI_ERROR_NOT_SUPPORTED || r == CUPTI_ERROR_NOT_COMPATIBLE ||
           r == CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED ||
           r == CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED ||
           r == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED ||
           r == CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED ||
           r == CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED || r == CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED ||
           r == CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED)
    code = PmStatus::NotSupported;
  else if (r == CUPTI_ERROR_INVALID_METRIC_NAME)
    code = PmStatus::UnknownMetric;
  return PmStatus::fail(code, static_cast<int>(r), std::string(call) + ": " + resultText(r));
}

template <typename P>
P params(size_t size) {
  P p{};
  p.structSize = size;
  return p;
}
#define CUPTI_PARAMS(T) params<T>(T##_STRUCT_SIZE)

// A profiler host object for one chip, deinitialized with it.
class HostObject {
 public:
  HostObject(const std::string& chip, const std::vector<uint8_t>& availability) {
    auto p = CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    result_ = cuptiProfilerHostInitialize(&p);
    if (result_ == CUPTI_SUCCESS) obj_ = p.pHostObject;
  }
  ~HostObject() {
    if (obj_ == nullptr) return;
    auto p = CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    p.pHostObject = obj_;
    cuptiProfilerHostDeinitialize(&p);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const { return obj_; }
  CUptiResult result() const { return result_; }

  // Adds the metrics and builds the configuration image; its passes in `passes`.
  PmStatus configure(const std::vector<std::string>& metrics, std::vector<uint8_t>& image,
                     size_t& passes) {
    if (obj_ == nullptr) return status(result_, "cuptiProfilerHostInitialize");
    std::vector<const char*> names;
    for (const auto& m : metrics) names.push_back(m.c_str());
    auto add = CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    add.pHostObject = obj_;
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
    if (r != CUPTI_SUCCESS)
      return status(r == CUPTI_ERROR_INVALID_PARAMETER ? CUPTI_ERROR_INVALID_METRIC_NAME : r,
                    "cuptiProfilerHostConfigAddMetrics");
    auto size = CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    size.pHostObject = obj_;
    if ((r = cuptiProfilerHostGetConfigImageSize(&size)) != CUPTI_SUCCESS)
      return status(r, "cuptiProfilerHostGetConfigImageSize");
    image.assign(size.configImageSize, 0);
    auto get = CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    get.pHostObject = obj_;
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    if ((r = cuptiProfilerHostGetConfigImage(&get)) != CUPTI_SUCCESS)
      return status(r, "cuptiProfilerHostGetConfigImage");
    auto np = CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
    np.configImageSize = image.size();
    np.pConfigImage = image.data();
    if ((r = cuptiProfilerHostGetNumOfPasses(&np)) != CUPTI_SUCCESS)
      return status(r, "cuptiProfilerHostGetNumOfPasses");
    passes = np.numOfPasses;
    return {};
  }

 private:
  CUpti_Profiler_Host_Object* obj_ = nullptr;
  CUptiResult result_ = CUPTI_SUCCESS;
};

// What evaluates a device's images: the host object the configuration came
// from, and the metric names; kept while an image of it waits.
struct Evaluation {
  std::unique_ptr<HostObject> host;
  std::vector<std::string> metrics;
  std::vector<const char*> names;
  std::mutex mutex;  // one evaluation at a time on a host object
};

// A session's counter data images: the initialized one, copied to make a
// fresh one, and the ones evaluated and reset, to decode into again.
struct ImagePool {
  std::vector<uint8_t> blank;
  std::mutex mutex;
  std::vector<std::vector<uint8_t>> free;
  // Images hold a quarter of a second of samples or more (tens of MiB at
  // high rates): a few are kept, enough for the one or two in flight.
  static constexpr size_t kKeep = 3;

  // `made`: none was free, the blank was copied (on the caller's thread).
  std::vector<uint8_t> take(bool& made) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!free.empty()) {
        std::vector<uint8_t> image = std::move(free.back());
        free.pop_back();
        made = false;
        return image;
      }
    }
    made = true;
    return blank;
  }
  // Reset on the caller's thread (the evaluating one), not the decoding one.
  void give(std::vector<uint8_t>&& image) {
    if (image.size() != blank.size()) return;
    std::memcpy(image.data(), blank.data(), blank.size());
    std::lock_guard<std::mutex> lock(mutex);
    if (free.size() < kKeep) free.push_back(std::move(image));
  }
};

class CuptiImage final : public PmImage {
 public:
  CuptiImage(std::shared_ptr<Evaluation> e, std::shared_ptr<ImagePool> pool, std::vector<uint8_t>&& data)
      : evaluation_(std::move(e)), pool_(std::move(pool)), data_(std::move(data)) {}
  ~CuptiImage() override { pool_->give(std::move(data_)); }
  bool evaluate(size_t index, std::vector<double>& values) override {
    Evaluation& e = *evaluation_;
    values.assign(e.names.size(), std::nan(""));
    if (e.host == nullptr || e.host->get() == nullptr) return false;
    std::lock_guard<std::mutex> lock(e.mutex);
    auto ev = CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    ev.pHostObject = e.host->get();
    ev.pCounterDataImage = data_.data();
    ev.counterDataImageSize = data_.size();
    ev.rangeIndex = index;
    ev.ppMetricNames = e.names.data();
    ev.numMetrics = e.names.size();
    ev.pMetricValues = values.data();
    if (cuptiProfilerHostEvaluateToGpuValues(&ev) == CUPTI_SUCCESS) return true;
    values.assign(e.names.size(), std::nan(""));
    return false;
  }
  uint64_t bytes() const override { return data_.size(); }

 private:
  std::shared_ptr<Evaluation> evaluation_;
  std::shared_ptr<ImagePool> pool_;
  std::vector<uint8_t> data_;
};

struct DeviceState {
  bool probed = false;
  std::string chip;
  std::vector<uint8_t> availability;
  PmStatus availabilityStatus;       // when the counter availability image could not be had
  std::map<std::string, bool> fits;  // metric list (joined) -> one pass
  // While sampling:
  std::shared_ptr<Evaluation> evaluation;  // shared with the images in flight
  std::vector<uint8_t> config;
  CUpti_PmSampling_Object* pm = nullptr;
  std::shared_ptr<ImagePool> pool;  // the session's images (initialized by its object)
  uint64_t interval = 0;
  uint64_t bufferBytes = 0;
  uint32_t imageSamples = 0;    // asked for
  uint64_t imageMaxBytes = 0;   // 0: no limit
  uint32_t imageMade = 0;       // what the last session's images hold
};

uint64_t nsSince(std::chrono::steady_clock::time_point t) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t).count());
}

class CuptiPmBackend final : public PmBackend {
 public:
  std::string chip(uint32_t device) override { return probe(device).chip; }

  PmStatus supported(uint32_t device) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!initializeLocked()) return initialization_;
    auto p = CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
    p.cuDevice = static_cast<CUdevice>(device);
    p.api = CUPTI_PROFILER_PM_SAMPLING;
    const CUptiResult r = cuptiProfilerDeviceSupported(&p);
    if (r != CUPTI_SUCCESS) return status(r, "cuptiProfilerDeviceSupported");
    if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
      DeviceState& d = probeLocked(device);
      if (d.chip.empty())
        return PmStatus::fail(PmStatus::NotSupported, 0, "CUPTI does not name its chip");
      if (d.availability.empty()) return d.availabilityStatus;
      return {};
    }
    std::string why;
    auto add = [&](CUpti_Profiler_Support_Level level, const char* what) {
      if (level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        why += (why.empty() ? "" : ", ") + std::string(what);
    };
    add(p.architecture, "its architecture (PM sampling needs Turing or later)");
    add(p.sli, "SLI");
    add(p.vGpu,
        p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED ? "vGPU with profiling disabled" : "vGPU");
    add(p.confidentialCompute, "confidential computing");
    add(p.cmp, "a CMP device");
    add(p.wsl, "WSL");
    return PmStatus::fail(PmStatus::NotSupported, 0,
                          "CUPTI does not support PM sampling here: " + why);
  }

  bool fits(uint32_t device, const std::vector<std::string>& metrics) override {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceState& d = probeLocked(device);
    std::string key;
    for (const auto& m : metrics) key += m + ",";
    const auto known = d.fits.find(key);
    if (known != d.fits.end()) return known->second;
    HostObject host(d.chip, d.availability);
    std::vector<uint8_t> image;
    size_t passes = 0;
    const bool ok = host.configure(metrics, image, passes).ok() && passes == 1;
    d.fits[key] = ok;
    return ok;
  }

  std::vector<std::string> knownMetrics(uint32_t device) override {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceState& d = probeLocked(device);
    HostObject host(d.chip, d.availability);
    std::vector<std::string> names;
    if (host.get() == nullptr) return names;
    for (const auto type :
         {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
      auto p = CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
      p.pHostObject = host.get();
      p.metricType = type;
      if (cuptiProfilerHostGetBaseMetrics(&p) != CUPTI_SUCCESS) continue;
      // Base names: counters take .sum/.avg/.min/.max, ratios .pct/.ratio, throughputs
      // .avg.pct_of_peak_...
      const char* suffix = type == CUPTI_METRIC_TYPE_COUNTER ? ".sum"
                           : type == CUPTI_METRIC_TYPE_RATIO ? ".pct"
                                                             : ".avg.pct_of_peak_sustained_elapsed";
      for (size_t i = 0; i < p.numMetrics; ++i)
        names.push_back(std::string(p.ppMetricNames[i]) + suffix);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  PmStatus start(uint32_t device, const std::vector<std::string>& metrics, uint64_t intervalNs,
                 uint64_t bufferBytes, PmImageSize& image) override {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceState& d = probeLocked(device);
    // A session never closed (its context went while the sampler was held
    // up) is left to the driver: CUPTI's calls on it could crash now.
    d.pm = nullptr;
    auto e = std::make_shared<Evaluation>();
    e->host = std::make_unique<HostObject>(d.chip, d.availability);
    size_t passes = 0;
    const PmStatus s = e->host->configure(metrics, d.config, passes);
    if (!s.ok()) return s;
    if (passes != 1)
      return PmStatus::fail(PmStatus::UnknownMetric, 0, "the metrics need " + std::to_string(passes) + " passes");
    e->metrics = metrics;
    for (const auto& m : e->metrics) e->names.push_back(m.c_str());
    d.evaluation = std::move(e);
    d.interval = intervalNs;
    d.bufferBytes = bufferBytes;
    d.imageSamples = std::max<uint32_t>(image.samples, 1);
    d.imageMaxBytes = image.maxBytes;
    const PmStatus began = begin(device, d);
    if (began.ok()) {
      image.samples = d.imageMade;
      image.bytes = d.pool->blank.size();
    }
    return began;
  }

  PmStatus decode(uint32_t device, std::vector<PmSample>& out, PmDecodeInfo& info,
                  std::unique_ptr<PmImage>& image) override {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceState& d = devices_[device];
    if (d.pm == nullptr || d.pool == nullptr) return {};
    std::vector<uint8_t> data = d.pool->take(info.imageMade);
    auto p = CUPTI_PARAMS(CUpti_PmSampling_DecodeData_Params);
    p.pPmSamplingObject = d.pm;
    p.pCounterDataImage = data.data();
    p.counterDataImageSize = data.size();
    const auto began = std::chrono::steady_clock::now();
    const CUptiResult r = cuptiPmSamplingDecodeData(&p);
    info.decodeDataNs = nsSince(began);
    if (r == CUPTI_ERROR_OUT_OF_MEMORY || p.overflow != 0) {
      // The hardware buffer overflowed: CUPTI decodes nothing more from this
      // session and will not start it again (CUDA 13.0). A new one takes over;
      // the samples between are lost, and counted from the gap they leave.
      info.overflow = true;
      end(d);
      const PmStatus again = begin(device, d);
      if (!again.ok()) return again;
      return PmStatus::fail(PmStatus::Overflow, static_cast<int>(r),
                            "cuptiPmSamplingDecodeData: the hardware buffer overflowed; sampling restarted");
    }
    if (r != CUPTI_SUCCESS) {
      d.pool->give(std::move(data));
      return status(r, "cuptiPmSamplingDecodeData");
    }
    // A full image: CUPTI's documentation does not say whether the records
    // that did not fit stay in the hardware buffer; the sampler decodes again
    // at once (into a fresh image) and counts what the gap shows lost. It
    // sizes images so that this does not happen.
    info.more = p.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
    const auto spans = std::chrono::steady_clock::now();
    auto di = CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params);
    di.pCounterDataImage = data.data();
    di.counterDataImageSize = data.size();
    CUptiResult q = cuptiPmSamplingGetCounterDataInfo(&di);
    if (q != CUPTI_SUCCESS) {
      d.pool->give(std::move(data));
      return status(q, "cuptiPmSamplingGetCounterDataInfo");
    }
    // The spans now, while the session lives (they are read through its
    // object); the values later, from the image alone.
    for (size_t i = 0; i < di.numCompletedSamples; ++i) {
      auto si = CUPTI_PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params);
      si.pPmSamplingObject = d.pm;
      si.pCounterDataImage = data.data();
      si.counterDataImageSize = data.size();
      si.sampleIndex = i;
      if ((q = cuptiPmSamplingCounterDataGetSampleInfo(&si)) != CUPTI_SUCCESS) break;
      out.push_back({si.startTimestamp, si.endTimestamp});
    }
    info.spansNs = nsSince(spans);
    // Begun but not complete: lost with the image.
    if (di.numPopulatedSamples > di.numCompletedSamples)
      info.incomplete = di.numPopulatedSamples - di.numCompletedSamples;
    // A fresh image for every decode: decoding on into one image lost the
    // sample at each point it filled (seen on the lent H100); a fresh one loses none.
    image = std::make_unique<CuptiImage>(d.evaluation, d.pool, std::move(data));
    return {};
  }

  PmStatus stop(uint32_t device) override {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceState& d = devices_[device];
    if (d.pm == nullptr) return {};
    auto p = CUPTI_PARAMS(CUpti_PmSampling_Stop_Params);
    p.pPmSamplingObject = d.pm;
    // Stopped, not disabled: what the buffer holds is decoded after this.
    return status(cuptiPmSamplingStop(&p), "cuptiPmSamplingStop");
  }

  PmStatus resume(uint32_t device) override {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceState& d = devices_[device];
    if (d.pm == nullptr) return PmStatus::fail(PmStatus::Error, 0, "no session to start again");
    auto p = CUPTI_PARAMS(CUpti_PmSampling_Start_Params);
    p.pPmSamplingObject = d.pm;
    return status(cuptiPmSamplingStart(&p), "cuptiPmSamplingStart");
  }

  void close(uint32_t device) override {
    std::lock_guard<std::mutex> lock(mutex_);
    end(devices_[device]);
  }

  uint64_t toTraceClock(uint32_t, uint64_t gpuTimestamp) override { return gpuTimestamp; }

 private:
  DeviceState& probe(uint32_t device) {
    std::lock_guard<std::mutex> lock(mutex_);
    return probeLocked(device);
  }
  // A sampling session: enabled, configured, a counter data image, started.
  PmStatus begin(uint32_t device, DeviceState& d) {
    auto enable = CUPTI_PARAMS(CUpti_PmSampling_Enable_Params);
    enable.deviceIndex = device;
    CUptiResult r = cuptiPmSamplingEnable(&enable);
    if (r != CUPTI_SUCCESS) return status(r, "cuptiPmSamplingEnable");
    d.pm = enable.pPmSamplingObject;
    auto config = CUPTI_PARAMS(CUpti_PmSampling_SetConfig_Params);
    config.pPmSamplingObject = d.pm;
    config.configSize = d.config.size();
    config.pConfig = d.config.data();
    config.hardwareBufferSize = d.bufferBytes;
    config.samplingInterval = d.interval;
    config.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    config.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    if ((r = cuptiPmSamplingSetConfig(&config)) != CUPTI_SUCCESS) return fail(d, r, "cuptiPmSamplingSetConfig");
    {
      // About 22 KB a sample with the default set on GH100; the sampler
      // asks for room for a quarter of a second of samples or more, within
      // a number of bytes: fewer samples when those do not fit. Made for
      // each session: the image is initialized by its object, and the
      // images in flight of the last session keep theirs.
      size_t bytes = 0;
      if ((r = counterDataSize(d, d.imageSamples, bytes)) != CUPTI_SUCCESS)
        return fail(d, r, "cuptiPmSamplingGetCounterDataSize");
      d.imageMade = d.imageSamples;
      if (d.imageMaxBytes != 0 && bytes > d.imageMaxBytes) {
        // The size is a header and so much a sample: as many as fit.
        size_t one = 0, two = 0;
        if ((r = counterDataSize(d, 1, one)) != CUPTI_SUCCESS || (r = counterDataSize(d, 2, two)) != CUPTI_SUCCESS)
          return fail(d, r, "cuptiPmSamplingGetCounterDataSize");
        const uint64_t each = std::max<uint64_t>(two - one, 1);
        const uint64_t header = one > each ? one - each : 0;
        const uint64_t fit = d.imageMaxBytes > header ? (d.imageMaxBytes - header) / each : 1;
        d.imageMade = static_cast<uint32_t>(std::clamp<uint64_t>(fit, 1, d.imageSamples));
        if ((r = counterDataSize(d, d.imageMade, bytes)) != CUPTI_SUCCESS)
          return fail(d, r, "cuptiPmSamplingGetCounterDataSize");
      }
      auto pool = std::make_shared<ImagePool>();
      pool->blank.assign(bytes, 0);
      auto init = CUPTI_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params);
      init.pPmSamplingObject = d.pm;
      init.counterDataSize = pool->blank.size();
      init.pCounterData = pool->blank.data();
      if ((r = cuptiPmSamplingCounterDataImageInitialize(&init)) != CUPTI_SUCCESS)
        return fail(d, r, "cuptiPmSamplingCounterDataImageInitialize");
      d.pool = std::move(pool);
    }
    auto go = CUPTI_PARAMS(CUpti_PmSampling_Start_Params);
    go.pPmSamplingObject = d.pm;
    if ((r = cuptiPmSamplingStart(&go)) != CUPTI_SUCCESS) return fail(d, r, "cuptiPmSamplingStart");
    return {};
  }
  CUptiResult counterDataSize(DeviceState& d, uint32_t samples, size_t& bytes) {
    auto size = CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataSize_Params);
    size.pPmSamplingObject = d.pm;
    size.pMetricNames = d.evaluation->names.data();
    size.numMetrics = d.evaluation->names.size();
    size.maxSamples = samples;
    const CUptiResult r = cuptiPmSamplingGetCounterDataSize(&size);
    bytes = size.counterDataSize;
    return r;
  }
  // Ends a session that failed part way: disabled, so that a later one can be enabled.
  PmStatus fail(DeviceState& d, CUptiResult r, const char* call) {
    end(d);
    return status(r, call);
  }
  void end(DeviceState& d) {
    if (d.pm == nullptr) return;
    auto stop = CUPTI_PARAMS(CUpti_PmSampling_Stop_Params);
    stop.pPmSamplingObject = d.pm;
    cuptiPmSamplingStop(&stop);
    auto off = CUPTI_PARAMS(CUpti_PmSampling_Disable_Params);
    off.pPmSamplingObject = d.pm;
    cuptiPmSamplingDisable(&off);
    d.pm = nullptr;
    d.pool.reset();  // the images in flight keep it until they are evaluated
  }

  // CUPTI's profiler API is initialized before any other call of it: the
  // chip name or counter availability asked for first crash the process
  // (CUDA 13.0, seen on the lent H100).
  bool initializeLocked() {
    if (initialized_) return initialization_.ok();
    initialized_ = true;
    auto p = CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    initialization_ = status(cuptiProfilerInitialize(&p), "cuptiProfilerInitialize");
    return initialization_.ok();
  }

  DeviceState& probeLocked(uint32_t device) {
    DeviceState& d = devices_[device];
    if (d.probed) return d;
    d.probed = true;
    if (!initializeLocked()) {
      d.availabilityStatus = initialization_;
      return d;
    }
    auto name = CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    name.deviceIndex = device;
    if (cuptiDeviceGetChipName(&name) == CUPTI_SUCCESS && name.pChipName != nullptr)
      d.chip = name.pChipName;
    auto a = CUPTI_PARAMS(CUpti_PmSampling_GetCounterAvailability_Params);
    a.deviceIndex = device;
    CUptiResult r = cuptiPmSamplingGetCounterAvailability(&a);
    if (r == CUPTI_SUCCESS) {
      d.availability.assign(a.counterAvailabilityImageSize, 0);
      a.pCounterAvailabilityImage = d.availability.data();
      r = cuptiPmSamplingGetCounterAvailability(&a);
    }
    if (r != CUPTI_SUCCESS) {
      d.availability.clear();
      d.availabilityStatus = status(r, "cuptiPmSamplingGetCounterAvailability");
    }
    return d;
  }

  std::mutex mutex_;
  bool initialized_ = false;
  PmStatus initialization_;
  std::map<uint32_t, DeviceState> devices_;
};

}  // namespace

std::unique_ptr<PmBackend> makeCuptiPmBackend() { return std::make_unique<CuptiPmBackend>(); }

}  // namespace cuptitrace
