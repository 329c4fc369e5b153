// A PM sampling backend that fails on purpose, for the GPU tests of the
// paths a lent machine never takes by itself: CUPTITRACE_TEST_GPU_METRICS_FAULT
// set to "permission" (the counters are for administrators), "unsupported"
// (a device that cannot sample) or "overflow" (every other decode overflows
// and loses the samples it decoded).
#include <cupti.h>

#include "collectors/pm_backend.h"

namespace cuptitrace {
namespace {

class FaultyPmBackend final : public PmBackend {
 public:
  FaultyPmBackend(std::string fault, std::unique_ptr<PmBackend> real)
      : fault_(std::move(fault)), real_(std::move(real)) {}

  std::string chip(uint32_t device) override { return real_->chip(device); }
  PmStatus supported(uint32_t device) override {
    if (fault_ == "permission")
      return PmStatus::fail(
          PmStatus::NoPermission, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
          "cuptiPmSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (forced by the test)");
    if (fault_ == "unsupported")
      return PmStatus::fail(PmStatus::NotSupported, CUPTI_ERROR_NOT_SUPPORTED,
                            "cuptiProfilerDeviceSupported: not supported (forced by the test)");
    return real_->supported(device);
  }
  bool fits(uint32_t device, const std::vector<std::string>& metrics) override {
    return real_->fits(device, metrics);
  }
  std::vector<std::string> knownMetrics(uint32_t device) override {
    return real_->knownMetrics(device);
  }
  PmStatus start(uint32_t device, const std::vector<std::string>& metrics, uint64_t intervalNs,
                 uint64_t bufferBytes, PmImageSize& image) override {
    return real_->start(device, metrics, intervalNs, bufferBytes, image);
  }
  PmStatus decode(uint32_t device, std::vector<PmSample>& out, PmDecodeInfo& info,
                  std::unique_ptr<PmImage>& image) override {
    const size_t before = out.size();
    PmStatus s = real_->decode(device, out, info, image);
    if (fault_ == "overflow" && s.ok() && (++decodes_ % 2) == 0 && out.size() > before) {
      out.resize(before);
      image.reset();
      info.overflow = true;
    }
    return s;
  }
  PmStatus stop(uint32_t device) override { return real_->stop(device); }
  PmStatus resume(uint32_t device) override { return real_->resume(device); }
  void close(uint32_t device) override { real_->close(device); }
  uint64_t toTraceClock(uint32_t device, uint64_t t) override {
    return real_->toTraceClock(device, t);
  }

 private:
  std::string fault_;
  std::unique_ptr<PmBackend> real_;
  uint64_t decodes_ = 0;
};

}  // namespace

std::unique_ptr<PmBackend> makeFaultyPmBackend(const std::string& fault,
                                               std::unique_ptr<PmBackend> real) {
  if (fault != "permission" && fault != "unsupported" && fault != "overflow") return nullptr;
  return std::make_unique<FaultyPmBackend>(fault, std::move(real));
}

}  // namespace cuptitrace
