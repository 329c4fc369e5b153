// The `api` activity (the lean set of runtime and driver calls) in the
// configuration, and what a trace says about the calls it holds.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/api_set.h"
#include "core/config.h"

using namespace cuptitrace;

namespace {

Config parseActivities(const char* value, std::vector<std::string>& messages) {
  return parseConfig(
      [value](const char* name) -> const char* {
        return std::string(name) == "CUPTITRACE_ACTIVITIES" ? value : nullptr;
      },
      messages);
}

ApiSets setsOf(const Config& config, uint64_t runtimeIds, uint64_t driverIds) {
  Trace t;
  t.meta.config = describeConfig(config);
  t.counters[kLeanRuntimeCounter] = runtimeIds;
  t.counters[kLeanDriverCounter] = driverIds;
  return recordedApiSets(t);
}

}  // namespace

TEST_CASE("activities: the default records the lean API set, not every call", "[config][api]") {
  std::vector<std::string> messages;
  const Config byDefault = parseActivities(nullptr, messages);
  CHECK((byDefault.activities & kActivityApi) != 0);
  CHECK((byDefault.activities & (kActivityRuntime | kActivityDriver)) == 0);
  CHECK(parseActivities("default", messages).activities == byDefault.activities);
  CHECK(parseActivities("api", messages).activities == kActivityApi);
  CHECK(parseActivities("kernel,runtime", messages).activities ==
        (kActivityKernel | kActivityRuntime));
  const uint32_t all = parseActivities("all", messages).activities;
  CHECK((all & kActivityRuntime) != 0);
  CHECK((all & kActivityDriver) != 0);
  CHECK((all & kActivityApi) != 0);
  CHECK(messages.empty());
  CHECK(activityNames(kActivityDefault) == "kernel,memcpy,memset,nvtx,api,openacc");
}

TEST_CASE("api set: read back from the trace's configuration and counters", "[config][api]") {
  std::vector<std::string> messages;
  {
    const ApiSets s = setsOf(parseActivities("default", messages), 120, 190);
    CHECK(s.known);
    CHECK(s.runtime == ApiSet::Lean);
    CHECK(s.driver == ApiSet::Lean);
    CHECK(s.runtimeIds == 120);
    CHECK(s.driverIds == 190);
    CHECK(describeApiSets(s).rfind("lean set: 120 runtime + 190 driver callback ids, ", 0) == 0);
  }
  {
    // A whole kind wins over the lean set of that API.
    const ApiSets s = setsOf(parseActivities("default,driver", messages), 120, 0);
    CHECK(s.runtime == ApiSet::Lean);
    CHECK(s.driver == ApiSet::All);
    CHECK(describeApiSets(s).rfind("every driver call; lean set: 120 runtime callback ids, ", 0) ==
          0);
  }
  {
    const ApiSets s = setsOf(parseActivities("all", messages), 0, 0);
    CHECK(s.runtime == ApiSet::All);
    CHECK(s.driver == ApiSet::All);
    CHECK(describeApiSets(s) == "every runtime and driver call");
  }
  {
    const ApiSets s = setsOf(parseActivities("kernel", messages), 0, 0);
    CHECK(s.runtime == ApiSet::None);
    CHECK(describeApiSets(s) == "no runtime or driver calls");
  }
  CHECK(messages.empty());
  Trace silent;  // a trace that does not say
  CHECK(describeApiSets(recordedApiSets(silent)).empty());
  CHECK(std::string(apiSetName(ApiSet::Lean)) == "lean");
  CHECK(std::string(apiSetName(ApiSet::All)) == "all");
}
