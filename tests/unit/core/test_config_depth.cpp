// The memory and uvm activities and CUPTITRACE_GRAPHS.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "core/config.h"

using namespace cuptitrace;

namespace {

Config parseWith(const std::map<std::string, std::string>& env, std::vector<std::string>& messages) {
  return parseConfig(
      [&](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      messages);
}

std::string described(const Config& c, const std::string& name) {
  for (const auto& [key, value] : describeConfig(c))
    if (key == name) return value;
  return "(missing)";
}

}  // namespace

TEST_CASE("config: memory and uvm are activities, off by default, in all") {
  std::vector<std::string> messages;
  const Config byDefault = parseWith({}, messages);
  CHECK((byDefault.activities & (kActivityMemory | kActivityUvm)) == 0);
  const Config all = parseWith({{"CUPTITRACE_ACTIVITIES", "all"}}, messages);
  CHECK((all.activities & kActivityMemory) != 0);
  CHECK((all.activities & kActivityUvm) != 0);
  const Config some = parseWith({{"CUPTITRACE_ACTIVITIES", "default,memory,uvm"}}, messages);
  CHECK(messages.empty());
  CHECK((some.activities & kActivityMemory) != 0);
  CHECK((some.activities & kActivityKernel) != 0);
  CHECK(activityNames(kActivityMemory | kActivityUvm) == "memory,uvm");
  CHECK(described(some, "CUPTITRACE_ACTIVITIES").find("memory,uvm") != std::string::npos);
}

TEST_CASE("config: CUPTITRACE_GRAPHS is node or graph, node by default") {
  std::vector<std::string> messages;
  CHECK(parseWith({}, messages).graphs == GraphMode::Node);
  const Config graph = parseWith({{"CUPTITRACE_GRAPHS", "graph"}}, messages);
  CHECK(messages.empty());
  CHECK(graph.graphs == GraphMode::Graph);
  CHECK(described(graph, "CUPTITRACE_GRAPHS") == "graph");
  CHECK(described(parseWith({}, messages), "CUPTITRACE_GRAPHS") == "node");
  const Config bad = parseWith({{"CUPTITRACE_GRAPHS", "nodes"}}, messages);
  CHECK(bad.graphs == GraphMode::Node);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].find("CUPTITRACE_GRAPHS") != std::string::npos);
  CHECK(messages[0].find("node, graph") != std::string::npos);
}
