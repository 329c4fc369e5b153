// CUPTITRACE_JOURNAL_PERIOD: how often the spill journal takes the records
// of chunks still filling.
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

TEST_CASE("config: CUPTITRACE_JOURNAL_PERIOD takes 0 or a duration from 10ms to 1h") {
  std::vector<std::string> messages;
  CHECK(parse({}, messages).journalPeriodNs == 1000000000ull);
  const std::map<std::string, uint64_t> good = {
      {"0", 0}, {"off", 0}, {"OFF", 0}, {"10ms", 10000000}, {"500ms", 500000000}, {"2s", 2000000000},
      {"3600s", 3600000000000ull}, {"250000us", 250000000}};
  for (const auto& [text, ns] : good) {
    INFO(text);
    messages.clear();
    CHECK(parse({{"CUPTITRACE_JOURNAL_PERIOD", text}}, messages).journalPeriodNs == ns);
    CHECK(messages.empty());
  }
  for (const char* bad : {"", "9ms", "1000", "3601s", "1.5s", "-1s", "1 s", "1h", "s", "soon"}) {
    INFO(bad);
    messages.clear();
    CHECK(parse({{"CUPTITRACE_JOURNAL_PERIOD", bad}}, messages).journalPeriodNs == 1000000000ull);
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("CUPTITRACE_JOURNAL_PERIOD") != std::string::npos);
  }
  // What the trace's metadata says reads back to the same period.
  for (const uint64_t ns : {0ull, 10000000ull, 1000000000ull, 1500000000ull}) {
    Config c;
    c.journalPeriodNs = ns;
    std::string text;
    for (const auto& [name, value] : describeConfig(c))
      if (name == "CUPTITRACE_JOURNAL_PERIOD") text = value;
    messages.clear();
    CHECK(parse({{"CUPTITRACE_JOURNAL_PERIOD", text}}, messages).journalPeriodNs == ns);
  }
}
