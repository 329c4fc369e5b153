// `cuptitrace merge`: saved traces into one timeline, its options and errors.
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/merge_command.h"
#include "exporters/native/native.h"
#include "temp_dir.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

// Two runs of the sample trace (same pid, two hosts) saved as native files
// in a fresh directory, removed with what the test wrote there.
class SavedRuns {
 public:
  SavedRuns() {
    for (const char* host : {"node1", "node2"}) {
      Trace trace;
      testing::fillSampleTrace(trace);
      trace.meta.hostName = host;
      trace.meta.startRealtimeNs = trace.meta.startTimestampNs + 777;
      inputs.push_back(path(std::string(host) + ".native"));
      std::ofstream out(inputs.back(), std::ios::binary);
      writeNative(trace, out);
    }
  }
  std::string path(const std::string& name) const { return dir_.path(name); }

  std::vector<std::string> inputs;

 private:
  testing::TempDir dir_;
};

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int run(const std::vector<std::string>& args, std::string& out, std::string& err) {
  out.clear();
  err.clear();
  return cli::runMerge(args, out, err);
}

}  // namespace

TEST_CASE("merge command: two runs into JSON", "[cli][merge]") {
  SavedRuns runs;
  std::string out, err;
  const std::string output = runs.path("out.json");
  REQUIRE(run({runs.inputs[0], runs.inputs[1], "-o", output}, out, err) == 0);
  CHECK(err.empty());
  CHECK(out == output + "\n");
  const nlohmann::json doc = nlohmann::json::parse(readFile(output));
  REQUIRE(doc["metadata"]["inputs"].size() == 2);
  CHECK(doc["metadata"]["inputs"][1]["file"] == runs.inputs[1]);
  CHECK(doc["metadata"]["inputs"][1]["host"] == "node2");
  CHECK(doc["metadata"]["inputs"][1]["realtime_offset_ns"] == 777);
  std::vector<std::string> names;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name") names.push_back(e["args"]["name"]);
  CHECK(std::count(names.begin(), names.end(), "sample_app (node1:4242)") == 1);
  CHECK(std::count(names.begin(), names.end(), "sample_app (node2:4242)") == 1);
}

TEST_CASE("merge command: an existing output is kept unless --overwrite", "[cli][merge]") {
  SavedRuns runs;
  std::string out, err;
  const std::string output = runs.path("out.pftrace");
  REQUIRE(run({runs.inputs[0], runs.inputs[1], "--output", output}, out, err) == 0);
  const std::string first = readFile(output);
  CHECK(first.size() > 100);
  { std::ofstream(output, std::ios::binary) << "mine"; }
  CHECK(run({runs.inputs[0], runs.inputs[1], "-o", output}, out, err) == 1);
  CHECK(err.find(output) != std::string::npos);
  CHECK(readFile(output) == "mine");
  CHECK(run({runs.inputs[0], runs.inputs[1], "-o", output, "--overwrite"}, out, err) == 0);
  CHECK(readFile(output) == first);  // the same inputs give the same bytes
}

TEST_CASE("merge command: several runs into one SQLite database", "[cli][merge]") {
  SavedRuns runs;
  std::string out, err;
  const std::string output = runs.path("out.sqlite");
  REQUIRE(run({runs.inputs[0], runs.inputs[1], "-o", output}, out, err) == 0);
  CHECK(out == output + "\n");
  CHECK(readFile(output).compare(0, 16, std::string("SQLite format 3\0", 16)) == 0);
  // An existing database is kept without --overwrite.
  CHECK(run({runs.inputs[0], runs.inputs[1], "-o", output}, out, err) == 1);
  CHECK(err.find("already exists") != std::string::npos);
}

TEST_CASE("merge command: usage and errors", "[cli][merge]") {
  SavedRuns runs;
  std::string out, err;
  CHECK(run({"--help"}, out, err) == 0);
  CHECK(out.find("usage: cuptitrace merge") != std::string::npos);
  CHECK(out.find(".pftrace") != std::string::npos);

  CHECK(run({runs.inputs[0], runs.inputs[1]}, out, err) == 2);  // no output
  CHECK(err.find("no output file") != std::string::npos);
  CHECK(run({"-o", runs.path("out.json")}, out, err) == 2);  // no inputs
  CHECK(run({runs.inputs[0], "-o", runs.path("out.csv")}, out, err) == 2);
  CHECK(err.find(".json, .pftrace or .sqlite") != std::string::npos);
  CHECK(run({runs.inputs[0], "--bogus", "-o", runs.path("out.json")}, out, err) == 2);

  CHECK(run({runs.path("missing.native"), "-o", runs.path("out.json")}, out, err) == 1);
  CHECK(err.find("cannot open") != std::string::npos);
  { std::ofstream(runs.path("out.csv")) << "not a trace"; }
  CHECK(run({runs.path("out.csv"), "-o", runs.path("out.json")}, out, err) == 1);
  CHECK(err.find("not a readable cuptitrace trace") != std::string::npos);
  std::ifstream none(runs.path("out.json"));
  CHECK_FALSE(none.good());  // nothing written on failure
}

}  // namespace cuptitrace
