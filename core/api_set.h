// Which runtime and driver calls a trace holds: every call of an API, the
// lean set chosen per callback id (the `api` activity), or none. Tables of
// API calls say it, so that a table of the lean set is never read as every
// call the program made.
#pragma once

#include <cstdint>
#include <string>

#include "core/trace.h"

namespace cuptitrace {

enum class ApiSet : uint8_t { None, Lean, All };

// Counters the collector sets: how many callback ids of each API it enabled
// for the lean set.
inline constexpr const char* kLeanRuntimeCounter = "api_set.runtime_callbacks";
inline constexpr const char* kLeanDriverCounter = "api_set.driver_callbacks";

struct ApiSets {
  bool known = false;  // false: the trace does not say (no CUPTITRACE_ACTIVITIES in its metadata)
  ApiSet runtime = ApiSet::None;
  ApiSet driver = ApiSet::None;
  uint64_t runtimeIds = 0;  // lean set: callback ids enabled
  uint64_t driverIds = 0;
};

// Read from the trace's configuration and counters.
ApiSets recordedApiSets(const Trace& trace);

// "lean", "all" or "none".
const char* apiSetName(ApiSet set);

// One sentence: "every runtime call; lean set of driver calls (194 callback
// ids: ...)"; empty when not known.
std::string describeApiSets(const ApiSets& sets);

}  // namespace cuptitrace
