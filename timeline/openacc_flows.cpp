#include "timeline/openacc_flows.h"

#include <unordered_set>

namespace cuptitrace {

OpenAccFlows::OpenAccFlows(const Trace& trace) {
  const auto& events = trace.store.records<OpenAccRecord>();
  if (events.empty()) return;
  // Only ids of events in the trace and drawn: an arrow needs its source.
  std::unordered_set<uint32_t> drawn;
  events.forEach([&](const OpenAccRecord& r) {
    if (r.externalId != 0 && r.end != 0 && r.end >= r.start) drawn.insert(r.externalId);
  });
  trace.store.records<ExternalIdRecord>().forEach([&](const ExternalIdRecord& e) {
    if (e.externalKind != static_cast<uint8_t>(ExternalKind::OpenAcc) || e.correlationId == 0) return;
    if (e.externalId > UINT32_MAX) return;
    const auto id = static_cast<uint32_t>(e.externalId);
    if (drawn.count(id) == 0) return;
    // A call has one arrow from OpenACC: when several events claim it, the last record's.
    const auto [it, added] = byCall_.emplace(e.correlationId, id);
    if (!added) {
      auto& previous = byEvent_[it->second];
      for (auto& c : previous)
        if (c == e.correlationId) c = 0;
      it->second = id;
    }
    byEvent_[id].push_back(e.correlationId);
  });
  for (auto& [id, calls] : byEvent_) {
    std::vector<uint32_t> kept;
    for (uint32_t c : calls)
      if (c != 0) kept.push_back(c);
    calls.swap(kept);
  }
}

}  // namespace cuptitrace
