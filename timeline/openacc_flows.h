// The arrows from OpenACC events to the GPU work they caused. CUPTI ties each
// CUDA call an OpenACC event made to the event by an external correlation
// record (kind OpenACC): its externalId is the event's externalId, its
// correlationId the call's, which the GPU work shares. Both timeline
// exporters draw an arrow from the event's slice to each such GPU slice, on
// top of the call's own arrow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/trace.h"

namespace cuptitrace {

class OpenAccFlows {
 public:
  explicit OpenAccFlows(const Trace& trace);

  bool empty() const { return byEvent_.empty(); }
  // How many CUDA calls are tied to an event: at most one arrow each, so at
  // most this many distinct arrow ids.
  size_t calls() const { return byCall_.size(); }
  // The correlation ids of the CUDA calls the event with `externalId` made;
  // nullptr for none (or externalId 0).
  const std::vector<uint32_t>* callsOf(uint32_t externalId) const {
    const auto it = byEvent_.find(externalId);
    return it == byEvent_.end() ? nullptr : &it->second;
  }
  // The OpenACC event whose calls include `correlationId` (its externalId), or 0.
  uint32_t eventOf(uint32_t correlationId) const {
    const auto it = byCall_.find(correlationId);
    return it == byCall_.end() ? 0 : it->second;
  }

 private:
  std::unordered_map<uint32_t, std::vector<uint32_t>> byEvent_;
  std::unordered_map<uint32_t, uint32_t> byCall_;
};

}  // namespace cuptitrace
