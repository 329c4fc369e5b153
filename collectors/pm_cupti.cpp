// The PM sampling backend on CUPTI (CUDA 12.6 and later): the profiler host
// API (cupti_profiler_host.h) builds a metric set's configuration image from
// names and evaluates decoded samples; the PM sampling API
// (cupti_pmsampling.h) enables sampling on a device, starts it on a timer of
// GPU time, and decodes the hardware buffer into a counter data image.
//
// Decoding: each decode fills a fresh counter data image (a copy of one
// initialized once) with what the hardware buffer holds; its completed
// samples are evaluated. A buffer that overflowed ends the session: CUPTI
// decodes nothing more from it, so a new one is started.
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "collectors/pm_backend.h"

namespace cuptitrace {
namespace {

// How often the sampler decodes (PmSampler::kDecodePeriodNs): sizes the counter data image.
constexpr uint64_t kDecodePeriodNs = 20'000'000;

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

struct DeviceState {
  bool probed = false;
  std::string chip;
  std::vector<uint8_t> availability;
  PmStatus availabilityStatus;       // when the counter availability image could not be had
  std::map<std::string, bool> fits;  // metric list (joined) -> one pass
  // While sampling:
  std::unique_ptr<HostObject> host;  // the one the configuration came from: it evaluates
  std::vector<std::string> metrics;
  std::vector<const char*> names;
  std::vector<uint8_t> config;
  CUpti_PmSampling_Object* pm = nullptr;
  std::vector<uint8_t> data, blank;
  uint64_t interval = 0;
  uint64_t bufferBytes = 0;
};

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
                 uint64_t bufferBytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceState& d = probeLocked(device);
    d.host = std::make_unique<HostObject>(d.chip, d.availability);
    size_t passes = 0;
    const PmStatus s = d.host->configure(metrics, d.config, passes);
    if (!s.ok()) return s;
    if (passes != 1)
      return PmStatus::fail(PmStatus::UnknownMetric, 0, "the metrics need " + std::to_string(passes) + " passes");
    d.metrics = metrics;
    d.names.clear();
    for (const auto& m : d.metrics) d.names.push_back(m.c_str());
    d.interval = intervalNs;
    d.bufferBytes = bufferBytes;
    return begin(device, d);
  }

  PmStatus decode(uint32_t device, std::vector<PmSample>& out, PmDecodeInfo& info) override {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceState& d = devices_[device];
    if (d.pm == nullptr) return {};
    auto p = CUPTI_PARAMS(CUpti_PmSampling_DecodeData_Params);
    p.pPmSamplingObject = d.pm;
    p.pCounterDataImage = d.data.data();
    p.counterDataImageSize = d.data.size();
    const CUptiResult r = cuptiPmSamplingDecodeData(&p);
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
    if (r != CUPTI_SUCCESS) return status(r, "cuptiPmSamplingDecodeData");
    auto di = CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params);
    di.pCounterDataImage = d.data.data();
    di.counterDataImageSize = d.data.size();
    CUptiResult q = cuptiPmSamplingGetCounterDataInfo(&di);
    if (q != CUPTI_SUCCESS) return status(q, "cuptiPmSamplingGetCounterDataInfo");
    for (size_t i = 0; i < di.numCompletedSamples; ++i) {
      PmSample sample;
      auto si = CUPTI_PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params);
      si.pPmSamplingObject = d.pm;
      si.pCounterDataImage = d.data.data();
      si.counterDataImageSize = d.data.size();
      si.sampleIndex = i;
      if ((q = cuptiPmSamplingCounterDataGetSampleInfo(&si)) != CUPTI_SUCCESS) break;
      sample.start = si.startTimestamp;
      sample.end = si.endTimestamp;
      sample.values.assign(d.names.size(), std::nan(""));
      auto ev = CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
      ev.pHostObject = d.host->get();
      ev.pCounterDataImage = d.data.data();
      ev.counterDataImageSize = d.data.size();
      ev.rangeIndex = i;
      ev.ppMetricNames = d.names.data();
      ev.numMetrics = d.names.size();
      ev.pMetricValues = sample.values.data();
      if (cuptiProfilerHostEvaluateToGpuValues(&ev) != CUPTI_SUCCESS)
        sample.values.assign(d.names.size(), std::nan(""));
      out.push_back(std::move(sample));
    }
    // Begun but not complete: lost with the image.
    if (di.numPopulatedSamples > di.numCompletedSamples)
      info.incomplete = di.numPopulatedSamples - di.numCompletedSamples;
    // A fresh image for every decode: decoding on into one image loses the
    // sample at each point it fills (seen on the lent H100), resetting loses none.
    d.data = d.blank;
    info.more = p.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
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
      // About 22 KB a sample with the default set on GH100: room for a decode
      // period and a half of samples (64 to 1024), copied fresh before each
      // decode. Made for each session: the image is initialized by its object.
      const uint64_t perDecode = kDecodePeriodNs / std::max<uint64_t>(d.interval, 1);
      auto size = CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataSize_Params);
      size.pPmSamplingObject = d.pm;
      size.pMetricNames = d.names.data();
      size.numMetrics = d.names.size();
      size.maxSamples = static_cast<uint32_t>(std::clamp<uint64_t>(perDecode + perDecode / 2, 64, 1024));
      if ((r = cuptiPmSamplingGetCounterDataSize(&size)) != CUPTI_SUCCESS)
        return fail(d, r, "cuptiPmSamplingGetCounterDataSize");
      d.data.assign(size.counterDataSize, 0);
      auto init = CUPTI_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params);
      init.pPmSamplingObject = d.pm;
      init.counterDataSize = d.data.size();
      init.pCounterData = d.data.data();
      if ((r = cuptiPmSamplingCounterDataImageInitialize(&init)) != CUPTI_SUCCESS)
        return fail(d, r, "cuptiPmSamplingCounterDataImageInitialize");
      d.blank = d.data;
    }
    d.data = d.blank;
    auto go = CUPTI_PARAMS(CUpti_PmSampling_Start_Params);
    go.pPmSamplingObject = d.pm;
    if ((r = cuptiPmSamplingStart(&go)) != CUPTI_SUCCESS) return fail(d, r, "cuptiPmSamplingStart");
    return {};
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
