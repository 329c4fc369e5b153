// Driver calls made inside a runtime call: with both APIs recorded, a driver
// call that shares its correlation id with a runtime call is one the runtime
// call made, and the work they launched is one launch. The timeline draws the
// driver call nested under its runtime call and the arrow from the runtime
// call only (FlowSources); the API calls report leaves the driver call out,
// its time being part of the runtime call's, and says how many it left out.
#pragma once

#include <cstdint>

#include "core/chunked_vector.h"
#include "core/records.h"
#include "timeline/flow_sources.h"

namespace cuptitrace {

class NestedDriverCalls {
 public:
  explicit NestedDriverCalls(const ChunkedVector<ApiRecord>& api);

  // `r` is a driver call that shares its correlation id with a runtime call.
  bool contains(const ApiRecord& r) const {
    return r.domain == static_cast<uint8_t>(ApiDomain::Driver) && r.correlationId != 0 &&
           runtime_.contains(r.correlationId);
  }
  // How many of the driver calls are nested.
  uint64_t count() const { return count_; }

 private:
  IdSet runtime_;  // correlation ids of runtime calls, when there are driver calls too
  uint64_t count_ = 0;
};

}  // namespace cuptitrace
