// The output directory: made when missing, replaced by a temporary one when
// it cannot be written, and "nowhere" only when neither can.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/output_dir.h"
#include "temp_dir.h"

using namespace cuptitrace;
namespace fs = std::filesystem;
using cuptitrace::testing::TempDir;

namespace {

OutputNameInputs inputs() {
  OutputNameInputs in;
  in.pid = 77;
  in.host = "node";
  return in;
}

}  // namespace

TEST_CASE("output dir: a missing directory is made, with its parents", "[output]") {
  TempDir tmp;
  const std::string pattern = (tmp.path() / "a/b/%p/run").string();
  const OutputPlace place = prepareOutputDirectory(pattern, inputs());
  CHECK(place.usable);
  CHECK(place.pattern == pattern);
  CHECK(fs::is_directory(tmp.path() / "a/b/77"));
  CHECK(place.message.find("made the output directory") != std::string::npos);
  // Made already: nothing to say the second time.
  CHECK(prepareOutputDirectory(pattern, inputs()).message.empty());
}

TEST_CASE("output dir: a name without a directory stays in the working directory", "[output]") {
  const OutputPlace place = prepareOutputDirectory("cuptitrace-%h-%p", inputs());
  CHECK(place.usable);
  CHECK(place.pattern == "cuptitrace-%h-%p");
  CHECK(place.message.empty());
}

TEST_CASE("output dir: a directory that cannot be made falls back to the temporary one", "[output]") {
  TempDir tmp;
  // A plain file where a directory is wanted: no one, root included, can make it.
  { std::FILE* f = std::fopen((tmp.path() / "file").c_str(), "w"); REQUIRE(f); std::fclose(f); }
  fs::create_directory(tmp.path() / "fallback");
  const std::string pattern = (tmp.path() / "file/sub/run-%p").string();
  const OutputPlace place = prepareOutputDirectory(pattern, inputs(), (tmp.path() / "fallback").string());
  CHECK(place.usable);
  CHECK(place.pattern == (tmp.path() / "fallback").string() + "/run-%p");
  CHECK(place.message.find("cannot write to") != std::string::npos);
  CHECK(place.message.find("the trace goes to") != std::string::npos);
}

TEST_CASE("output dir: an existing directory that refuses files falls back", "[output]") {
  TempDir tmp;
  // /proc/self exists and refuses new files, root included.
  const OutputPlace place = prepareOutputDirectory("/proc/self/run-%p", inputs(), tmp.path().string());
  CHECK(place.usable);
  CHECK(place.pattern == tmp.path().string() + "/run-%p");
  CHECK(place.message.find("cannot write to /proc/self/") != std::string::npos);
}

TEST_CASE("output dir: neither the directory nor the fallback can be written", "[output]") {
  TempDir tmp;
  { std::FILE* f = std::fopen((tmp.path() / "file").c_str(), "w"); REQUIRE(f); std::fclose(f); }
  // /proc refuses new files for everyone.
  const OutputPlace place = prepareOutputDirectory((tmp.path() / "file/run").string(), inputs(), "/proc");
  CHECK_FALSE(place.usable);
  CHECK(place.message.find("nor to /proc/") != std::string::npos);
}
