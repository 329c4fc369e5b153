// cuptitrace convert with several traces: one SQLite database, and a clear
// refusal for the formats that hold one process.
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/convert_command.h"
#include "exporters/native/native.h"
#include "trace_fixture.h"

namespace cuptitrace {
namespace {

int convert(std::vector<std::string> args) {
  args.insert(args.begin(), "convert");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return cli::convertCommand(static_cast<int>(argv.size()), argv.data());
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_CASE("convert: several traces into one sqlite database", "[cli][convert]") {
  char pattern[] = "/tmp/cuptitrace-convert-XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  const std::string dir = pattern;
  std::vector<std::string> inputs;
  for (const char* rank : {"rank0", "rank1"}) {
    Trace trace;
    testing::fillSampleTrace(trace);
    inputs.push_back(dir + "/" + rank + ".native");
    std::ofstream out(inputs.back(), std::ios::binary);
    writeNative(trace, out);
  }
  CHECK(convert({inputs[0], inputs[1], "--to", "sqlite", "-o", dir + "/all"}) == 0);
  CHECK(readFile(dir + "/all.sqlite").compare(0, 16, std::string("SQLite format 3\0", 16)) == 0);
  // Formats of one process refuse several inputs; a database needs a name.
  CHECK(convert({inputs[0], inputs[1], "--to", "json", "-o", dir + "/all"}) == 2);
  CHECK(convert({inputs[0], inputs[1], "--to", "sqlite"}) == 2);
  // One trace: PREFIX.sqlite beside it.
  CHECK(convert({inputs[0], "--to", "sqlite"}) == 0);
  CHECK(readFile(dir + "/rank0.sqlite").size() > 1000);
  for (const char* f : {"/all.sqlite", "/rank0.sqlite", "/rank0.native", "/rank1.native"})
    std::remove((dir + f).c_str());
  CHECK(::rmdir(dir.c_str()) == 0);
}

}  // namespace
}  // namespace cuptitrace
