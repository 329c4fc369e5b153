#include "timeline/nested_calls.h"

#include <algorithm>

namespace cuptitrace {

NestedDriverCalls::NestedDriverCalls(const ChunkedVector<ApiRecord>& api) {
  const auto isRuntime = [](const ApiRecord& r) {
    return r.domain == static_cast<uint8_t>(ApiDomain::Runtime) && r.correlationId != 0;
  };
  uint32_t lo = UINT32_MAX, hi = 0;
  size_t runtime = 0, driver = 0;
  api.scan([&](const ApiRecord& r) {
    if (r.domain == static_cast<uint8_t>(ApiDomain::Driver)) ++driver;
    if (!isRuntime(r)) return;
    lo = std::min(lo, r.correlationId);
    hi = std::max(hi, r.correlationId);
    ++runtime;
  });
  if (runtime == 0 || driver == 0) return;  // nothing can nest: no set to build
  runtime_ = IdSet(lo, hi, runtime);
  api.scan([&](const ApiRecord& r) {
    if (isRuntime(r)) runtime_.insert(r.correlationId);
  });
  api.scan([&](const ApiRecord& r) { count_ += contains(r); });
}

}  // namespace cuptitrace
