#include "timeline/launching_calls.h"

#include <algorithm>

namespace cuptitrace {

LaunchingCalls::LaunchingCalls(const Trace& trace) {
  const auto& api = trace.store.records<ApiRecord>();
  calls_.reserve(api.size());
  std::vector<uint8_t> runtime;  // by place in calls_: 1 for a runtime call
  api.scan([&](const ApiRecord& a) {
    const auto domain = static_cast<ApiDomain>(a.domain);
    if (domain != ApiDomain::Runtime && domain != ApiDomain::Driver) return;
    calls_.push_back({a.correlationId, a.threadId, a.start});
    runtime.push_back(domain == ApiDomain::Runtime ? 1 : 0);
  });
  std::vector<uint32_t> order(calls_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (calls_[a].correlationId != calls_[b].correlationId) return calls_[a].correlationId < calls_[b].correlationId;
    return runtime[a] > runtime[b];
  });
  std::vector<LaunchingCall> sorted;
  sorted.reserve(calls_.size());
  for (const uint32_t i : order)
    if (sorted.empty() || sorted.back().correlationId != calls_[i].correlationId) sorted.push_back(calls_[i]);
  calls_ = std::move(sorted);
}

const LaunchingCall* LaunchingCalls::find(uint32_t correlationId) const {
  const auto it = std::lower_bound(calls_.begin(), calls_.end(), correlationId,
                                   [](const LaunchingCall& c, uint32_t id) { return c.correlationId < id; });
  return it != calls_.end() && it->correlationId == correlationId ? &*it : nullptr;
}

}  // namespace cuptitrace
