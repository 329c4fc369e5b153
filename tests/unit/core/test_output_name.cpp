// Output name templates: every escape, missing variables, unknown escapes,
// and %n among files that exist and processes that claim at once.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "core/output_name.h"
#include "temp_dir.h"

using namespace cuptitrace;
using cuptitrace::testing::TempDir;

namespace {

OutputNameInputs inputs(std::map<std::string, std::string> env = {}) {
  OutputNameInputs in;
  in.pid = 4242;
  in.host = "node7";
  auto vars = std::make_shared<std::map<std::string, std::string>>(std::move(env));
  in.env = [vars](const char* name) -> const char* {
    auto it = vars->find(name);
    return it == vars->end() ? nullptr : it->second.c_str();
  };
  return in;
}

void touch(const TempDir& dir, const std::string& name) { std::ofstream(dir.path(name)) << "x"; }
bool exists(const TempDir& dir, const std::string& name) {
  return ::access(dir.path(name).c_str(), F_OK) == 0;
}

}  // namespace

TEST_CASE("output name: every escape expands") {
  std::vector<std::string> messages;
  const auto in = inputs({{"OMPI_COMM_WORLD_RANK", "3"}, {"JOB", "train"}});
  CHECK(expandOutputName("t-%h-%p", in, 1, &messages) == "t-node7-4242");
  CHECK(expandOutputName("r%q{OMPI_COMM_WORLD_RANK}-%q{JOB}", in, 1, &messages) == "r3-train");
  CHECK(expandOutputName("run-%n", in, 17, &messages) == "run-17");
  CHECK(expandOutputName("run-%n-%n", in, 2, &messages) == "run-2-2");
  CHECK(expandOutputName("100%%", in, 1, &messages) == "100%");
  CHECK(expandOutputName("%%n", in, 5, &messages) == "%n");  // an escaped percent, then n
  CHECK(messages.empty());
  // The short form without %q and %n.
  CHECK(expandOutputName("trace-%h-%p", 1234, "node7") == "trace-node7-1234");
  // Control characters from outside become '_' in a file name.
  CHECK(expandOutputName("%q{X}", inputs({{"X", "a\nb"}}), 1, nullptr) == "a_b");
}

TEST_CASE("output name: a missing variable expands to nothing, with one message") {
  std::vector<std::string> messages;
  const auto in = inputs();
  CHECK(expandOutputName("trace-%q{RANK}-%q{RANK}-%p", in, 1, &messages) == "trace---4242");
  REQUIRE(messages.size() == 1);
  CHECK_THAT(messages[0], Catch::Contains("RANK") && Catch::Contains("not set"));
  // No lookup at all: every variable is missing.
  OutputNameInputs none;
  CHECK(expandOutputName("a%q{HOME}b", none, 1, nullptr) == "ab");
  // Set but empty: no message.
  messages.clear();
  CHECK(expandOutputName("a%q{E}b", inputs({{"E", ""}}), 1, &messages) == "ab");
  CHECK(messages.empty());
}

TEST_CASE("output name: unknown escapes are kept when expanding and refused by the check") {
  CHECK(expandOutputName("x%qy%", 1, "h") == "x%qy%");
  CHECK(expandOutputName("a%tb", 1, "h") == "a%tb");
  std::string why;
  CHECK(checkOutputTemplate("run-%h-%p-%q{SLURM_PROCID}-%n%%"));
  CHECK(checkOutputTemplate("dir/sub/trace"));
  for (const char* bad : {"a%t", "a%", "%q", "%qX", "%q{", "%q{}", "%q{1A}", "%q{A-B}", "%q{A", "run%n/trace"}) {
    INFO(bad);
    why.clear();
    CHECK_FALSE(checkOutputTemplate(bad, &why));
    CHECK_FALSE(why.empty());
  }
  CHECK(checkOutputTemplate("dir%%n/x"));  // %%n is a percent sign and n, not a sequence
  CHECK(usesSequence("a-%n"));
  CHECK_FALSE(usesSequence("a-%%n"));
  CHECK_FALSE(usesSequence("a-%p"));
}

TEST_CASE("output name: %n takes the smallest number no file of the prefix uses") {
  TempDir dir;
  const auto in = inputs();
  const std::string pattern = dir.path("run-%n");
  ClaimedPrefix a = claimOutputPrefix(pattern, in);
  CHECK(a.prefix == dir.path("run-1"));
  CHECK(exists(dir, "run-1.lock"));
  // While claimed, another process gets the next number.
  ClaimedPrefix b = claimOutputPrefix(pattern, in);
  CHECK(b.prefix == dir.path("run-2"));
  // The first writes its outputs and releases: 1 stays taken, by its files.
  touch(dir, "run-1.json");
  releaseOutputPrefix(a);
  CHECK_FALSE(exists(dir, "run-1.lock"));
  CHECK(a.lockPath.empty());
  releaseOutputPrefix(b);  // wrote nothing: 2 is free again
  ClaimedPrefix c = claimOutputPrefix(pattern, in);
  CHECK(c.prefix == dir.path("run-2"));
  releaseOutputPrefix(c);
  // Any file of the prefix counts (a CSV table, one being written); a longer
  // number sharing the digits does not.
  touch(dir, "run-2.kernels.csv");
  touch(dir, "run-3.json.partial-abc123");
  touch(dir, "run-40.json");
  touch(dir, "run-4");  // no suffix: not an output of prefix run-4
  ClaimedPrefix d = claimOutputPrefix(pattern, in);
  CHECK(d.prefix == dir.path("run-4"));
  releaseOutputPrefix(d);
  CHECK(outputPrefixInUse(dir.path("run-40")));
  CHECK_FALSE(outputPrefixInUse(dir.path("run-5")));
  // Without %n nothing is claimed.
  ClaimedPrefix e = claimOutputPrefix(dir.path("fixed-%p"), in);
  CHECK(e.prefix == dir.path("fixed-4242"));
  CHECK(e.lockPath.empty());
}

TEST_CASE("output name: processes claiming at once get distinct numbers") {
  TempDir dir;
  const std::string pattern = dir.path("t-%n");
  constexpr int kClaims = 8;
  std::vector<ClaimedPrefix> claims(kClaims);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClaims; ++i)
    threads.emplace_back([&, i] { claims[i] = claimOutputPrefix(pattern, inputs()); });
  for (auto& t : threads) t.join();
  std::set<std::string> prefixes;
  for (auto& c : claims) {
    CHECK_FALSE(c.lockPath.empty());
    prefixes.insert(c.prefix);
  }
  CHECK(prefixes.size() == kClaims);
  CHECK(prefixes.count(dir.path("t-1")) == 1);
  CHECK(prefixes.count(dir.path("t-8")) == 1);
  for (auto& c : claims) releaseOutputPrefix(c);
}

TEST_CASE("output name: a directory that cannot be written gives the first number, unclaimed") {
  const auto c = claimOutputPrefix("/nonexistent-dir-for-test/run-%n", inputs());
  CHECK(c.prefix == "/nonexistent-dir-for-test/run-1");
  CHECK(c.lockPath.empty());
}
