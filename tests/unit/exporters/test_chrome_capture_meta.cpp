// Capture windows and the CUPTI detach in the Chrome JSON metadata: listed
// when there are any, absent otherwise.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <sstream>

#include "exporters/json/chrome_json.h"
#include "trace_fixture.h"

using namespace cuptitrace;
using nlohmann::json;

namespace {

json metadataOf(const Trace& trace) {
  std::ostringstream out;
  writeChromeJson(trace, out);
  return json::parse(out.str()).at("metadata");
}

}  // namespace

TEST_CASE("chrome json capture meta: windows in order, and when CUPTI was detached") {
  Trace t;
  testing::fillSampleTrace(t);
  t.meta.captureWindows = {{1'000'010'000ull, 1'000'020'000ull}, {1'000'050'000ull, 1'000'060'000ull}};
  t.meta.cuptiDetachedNs = 1'000'070'000ull;
  const json meta = metadataOf(t);
  const json& windows = meta.at("capture_windows");
  REQUIRE(windows.size() == 2);
  CHECK(windows[0].at("start_ns") == 1'000'010'000ull);
  CHECK(windows[0].at("end_ns") == 1'000'020'000ull);
  CHECK(windows[1].at("start_ns") == 1'000'050'000ull);
  CHECK(windows[1].at("end_ns") == 1'000'060'000ull);
  CHECK(meta.at("cupti_detached_ns") == 1'000'070'000ull);
}

TEST_CASE("chrome json capture meta: none of it for a whole-run trace") {
  Trace t;
  testing::fillSampleTrace(t);
  const json meta = metadataOf(t);
  CHECK_FALSE(meta.contains("capture_windows"));
  CHECK_FALSE(meta.contains("cupti_detached_ns"));
}
