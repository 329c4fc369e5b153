#include "core/api_set.h"

#include <algorithm>

#include "core/parse.h"

namespace cuptitrace {

ApiSets recordedApiSets(const Trace& trace) {
  ApiSets sets;
  const auto& config = trace.meta.config;
  const auto it = std::find_if(config.begin(), config.end(),
                               [](const auto& kv) { return kv.first == "CUPTITRACE_ACTIVITIES"; });
  if (it == config.end()) return sets;
  sets.known = true;
  bool lean = false, runtime = false, driver = false;
  // The metadata holds the effective kinds by name ("kernel,memcpy,api,..."),
  // "default" and "all" already spelled out.
  for (const auto& item : splitList(it->second)) {
    lean = lean || item == "api";
    runtime = runtime || item == "runtime";
    driver = driver || item == "driver";
  }
  const auto counter = [&](const char* name) -> uint64_t {
    const auto c = trace.counters.find(name);
    return c == trace.counters.end() ? 0 : c->second;
  };
  sets.runtime = runtime ? ApiSet::All : lean ? ApiSet::Lean : ApiSet::None;
  sets.driver = driver ? ApiSet::All : lean ? ApiSet::Lean : ApiSet::None;
  if (sets.runtime == ApiSet::Lean) sets.runtimeIds = counter(kLeanRuntimeCounter);
  if (sets.driver == ApiSet::Lean) sets.driverIds = counter(kLeanDriverCounter);
  return sets;
}

const char* apiSetName(ApiSet set) {
  switch (set) {
    case ApiSet::Lean:
      return "lean";
    case ApiSet::All:
      return "all";
    case ApiSet::None:
      break;
  }
  return "none";
}

std::string describeApiSets(const ApiSets& sets) {
  if (!sets.known) return {};
  const bool leanRuntime = sets.runtime == ApiSet::Lean, leanDriver = sets.driver == ApiSet::Lean;
  std::string text;
  const auto add = [&text](const std::string& part) {
    if (!text.empty()) text += "; ";
    text += part;
  };
  if (sets.runtime == ApiSet::All && sets.driver == ApiSet::All)
    add("every runtime and driver call");
  else if (sets.runtime == ApiSet::All)
    add("every runtime call");
  else if (sets.driver == ApiSet::All)
    add("every driver call");
  if (leanRuntime || leanDriver) {
    std::string lean = "lean set: ";
    if (leanRuntime) lean += std::to_string(sets.runtimeIds) + " runtime";
    if (leanRuntime && leanDriver) lean += " + ";
    if (leanDriver) lean += std::to_string(sets.driverIds) + " driver";
    lean +=
        " callback ids, the calls that launch, copy, set, wait for, allocate or free GPU work "
        "and memory; queries such as cudaGetDevice are not recorded";
    add(lean);
  }
  if (sets.runtime == ApiSet::None && sets.driver == ApiSet::None)
    add("no runtime or driver calls");
  return text;
}

}  // namespace cuptitrace
