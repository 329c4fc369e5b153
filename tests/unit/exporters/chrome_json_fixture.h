// What the Chrome JSON tests share: a trace written and parsed back with
// nlohmann_json, and small queries over its events.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/trace.h"
#include "exporters/json/chrome_json.h"
#include "timeline/track_layout.h"
#include "trace_fixture.h"

namespace cuptitrace::testing::chrome {

inline constexpr uint32_t kHostPid = kSamplePid;
inline constexpr uint32_t kGpuPid = gpuProcessId(kHostPid, 0);

struct Exported {
  std::string text;
  nlohmann::json doc;
  JsonExportStats stats;
  const nlohmann::json& events() const { return doc.at("traceEvents"); }
  // A copy: [] on it never hits a missing key.
  nlohmann::json meta() const { return doc.at("metadata"); }
};

inline Exported exportTrace(const Trace& trace) {
  std::ostringstream out;
  Exported e;
  e.stats = writeChromeJson(trace, out);
  e.text = out.str();
  e.doc = nlohmann::json::parse(e.text);  // throws, failing the test, on invalid JSON or UTF-8
  return e;
}

inline Exported exportSample() {
  Trace t;
  fillSampleTrace(t);
  return exportTrace(t);
}

// Microseconds back to ns as Perfetto reads them (rounded to the nanosecond).
inline int64_t ns(const nlohmann::json& micros) {
  return std::llround(micros.get<double>() * 1000.0);
}

inline std::vector<nlohmann::json> where(
    const nlohmann::json& events, const std::function<bool(const nlohmann::json&)>& pred) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& e : events)
    if (pred(e)) out.push_back(e);
  return out;
}
inline std::vector<nlohmann::json> slices(const nlohmann::json& events, const std::string& cat) {
  return where(events, [&](const nlohmann::json& e) {
    return e["ph"] == "X" && e.value("cat", "") == cat;
  });
}
// The one X slice of `cat` whose args.correlation is `correlation`.
inline nlohmann::json sliceByCorrelation(const nlohmann::json& events, const std::string& cat,
                                         uint32_t correlation) {
  auto found = where(events, [&](const nlohmann::json& e) {
    return e["ph"] == "X" && e.value("cat", "") == cat &&
           e["args"].value("correlation", 0u) == correlation;
  });
  REQUIRE(found.size() == 1);
  return found[0];
}
// args.name of the metadata event `what` ("process_name", "thread_name") on (pid, tid).
inline std::string nameOf(const nlohmann::json& events, const std::string& what, uint32_t pid,
                          uint32_t tid) {
  auto found = where(events, [&](const nlohmann::json& e) {
    return e["ph"] == "M" && e["name"] == what && e["pid"] == pid && e["tid"] == tid;
  });
  if (found.size() != 1) return "<" + std::to_string(found.size()) + " events>";
  return found[0]["args"]["name"].get<std::string>();
}

}  // namespace cuptitrace::testing::chrome
