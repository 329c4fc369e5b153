#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "core/config.h"

using namespace cuptitrace;

namespace {
Config parse(const std::map<std::string, std::string>& env, std::vector<std::string>& messages) {
  return parseConfig(
      [&](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      messages);
}
}  // namespace

TEST_CASE("config: osrt is an activity of its own, off by default and not in all") {
  std::vector<std::string> messages;
  CHECK((parse({}, messages).activities & kActivityOsrt) == 0);
  CHECK((parse({{"CUPTITRACE_ACTIVITIES", "all"}}, messages).activities & kActivityOsrt) == 0);
  const Config c = parse({{"CUPTITRACE_ACTIVITIES", "default,osrt"}}, messages);
  CHECK((c.activities & kActivityOsrt) != 0);
  CHECK((c.activities & kActivityKernel) != 0);
  CHECK(messages.empty());
  CHECK(activityNames(kActivityOsrt) == "osrt");
}

TEST_CASE("config: CUPTITRACE_OSRT_THRESHOLD takes whole durations up to 10s") {
  std::vector<std::string> messages;
  CHECK(parse({}, messages).osrtThresholdNs == 1000);
  const std::map<std::string, uint64_t> good = {
      {"0", 0}, {"1", 1}, {"500ns", 500}, {"1us", 1000}, {"250us", 250000}, {"2ms", 2000000},
      {"10s", 10000000000ull}, {"1000", 1000}};
  for (const auto& [text, ns] : good) {
    INFO(text);
    messages.clear();
    CHECK(parse({{"CUPTITRACE_OSRT_THRESHOLD", text}}, messages).osrtThresholdNs == ns);
    CHECK(messages.empty());
  }
  for (const char* bad : {"", "1.5us", "-1", "1 us", "11s", "1h", "us", "1usx", "99999999999999999999"}) {
    INFO(bad);
    messages.clear();
    CHECK(parse({{"CUPTITRACE_OSRT_THRESHOLD", bad}}, messages).osrtThresholdNs == 1000);
    CHECK(messages.size() == 1);
  }
  // What the trace's metadata says reads back to the same threshold.
  for (const uint64_t ns : {0ull, 999ull, 1000ull, 3000000ull, 2000000000ull}) {
    Config c;
    c.osrtThresholdNs = ns;
    std::string text;
    for (const auto& [name, value] : describeConfig(c))
      if (name == "CUPTITRACE_OSRT_THRESHOLD") text = value;
    messages.clear();
    CHECK(parse({{"CUPTITRACE_OSRT_THRESHOLD", text}}, messages).osrtThresholdNs == ns);
  }
}
