#include <catch2/catch.hpp>

#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/file_output.h"
#include "temp_dir.h"

using namespace cuptitrace;
namespace fs = std::filesystem;
using cuptitrace::testing::TempDir;
using cuptitrace::testing::slurp;

namespace {

size_t entries(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

auto writes(const std::string& text) {
  return [text](std::ostream& out) { out << text; };
}

}  // namespace

TEST_CASE("file output: writes the whole file and leaves no temporary", "[export]") {
  TempDir dir;
  const fs::path target = dir.path() / "trace.json";
  const std::string big(3 << 20, 'x');  // past the 1 MiB buffer
  CHECK(writeFileSafely(target.string(), writes(big), false).empty());
  CHECK(slurp(target) == big);
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("file output: an existing file is kept unless overwriting is asked for", "[export]") {
  TempDir dir;
  const fs::path target = dir.path() / "trace.json";
  std::ofstream(target) << "old";
  const std::string error = writeFileSafely(target.string(), writes("new"), false);
  CHECK_THAT(error, Catch::Contains("already exists") && Catch::Contains("CUPTITRACE_OVERWRITE=1"));
  CHECK(slurp(target) == "old");
  CHECK(entries(dir.path()) == 1);
  CHECK(writeFileSafely(target.string(), writes("new"), true).empty());
  CHECK(slurp(target) == "new");
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("file output: a symlink planted at the output path is not followed", "[export]") {
  TempDir dir;
  const fs::path victim = dir.path() / "victim.txt";
  std::ofstream(victim) << "precious";
  const fs::path target = dir.path() / "trace.json";
  fs::create_symlink(victim, target);
  CHECK_THAT(writeFileSafely(target.string(), writes("trace"), false), Catch::Contains("already exists"));
  CHECK(slurp(victim) == "precious");
  // Even when overwriting, the link is replaced, not written through.
  CHECK(writeFileSafely(target.string(), writes("trace"), true).empty());
  CHECK(slurp(victim) == "precious");
  CHECK_FALSE(fs::is_symlink(target));
  CHECK(slurp(target) == "trace");
}

TEST_CASE("file output: a full disk gives an error and no file", "[export]") {
  TempDir dir;
  const fs::path target = dir.path() / "trace.json";
  // In a child: a 64 KiB file size limit stands in for a full disk.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // report EFBIG instead of killing the process
    rlimit limit{64 << 10, 64 << 10};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    const std::string error = writeFileSafely(target.string(), writes(std::string(1 << 20, 'y')), false);
    const bool saysWhy = error.find("cannot write") != std::string::npos &&
                         error.find(target.string()) != std::string::npos;
    ::_exit(saysWhy ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_FALSE(fs::exists(target));
  CHECK(entries(dir.path()) == 0);  // no partial file left either
}

TEST_CASE("file output: nothing in the directory has a name until the file is complete", "[export]") {
  TempDir dir;
  const fs::path target = dir.path() / "trace.json";
  size_t seenWhileWriting = 99;
  const std::string error = writeFileSafely(
      target.string(),
      [&](std::ostream& out) {
        out << "half";
        seenWhileWriting = entries(dir.path());
        out << " and the rest";
      },
      false);
  CHECK(error.empty());
  CHECK(slurp(target) == "half and the rest");
  // An unnamed file (O_TMPFILE) where the file system has them, as here.
  CHECK(seenWhileWriting == 0);
}

TEST_CASE("file output: a process killed while writing leaves no file behind", "[export]") {
  TempDir dir;
  const fs::path target = dir.path() / "trace.json";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    writeFileSafely(target.string(),
                    [](std::ostream& out) {
                      out << std::string(1 << 16, 'x');
                      out.flush();
                      ::kill(::getpid(), SIGKILL);
                    },
                    false);
    ::_exit(3);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  CHECK(entries(dir.path()) == 0);
}

TEST_CASE("file output: overwrite replaces an existing file through an unnamed one", "[export]") {
  TempDir dir;
  const fs::path target = dir.path() / "trace.json";
  REQUIRE(writeFileSafely(target.string(), writes("old"), false).empty());
  CHECK_FALSE(writeFileSafely(target.string(), writes("new"), false).empty());
  CHECK(slurp(target) == "old");
  CHECK(writeFileSafely(target.string(), writes("new"), true).empty());
  CHECK(slurp(target) == "new");
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("file output: CUPTITRACE_SYNC says whether a file reaches the disk before its name", "[export]") {
  const char* before = std::getenv("CUPTITRACE_SYNC");
  const std::string saved = before != nullptr ? before : "";
  ::unsetenv("CUPTITRACE_SYNC");
  CHECK_FALSE(syncOutputs());  // the default: the exit does not wait for the disk
  for (const char* on : {"1", "yes", "true"}) {
    ::setenv("CUPTITRACE_SYNC", on, 1);
    CHECK(syncOutputs());
  }
  for (const char* off : {"0", "off", "sometimes"}) {
    ::setenv("CUPTITRACE_SYNC", off, 1);
    CHECK_FALSE(syncOutputs());
  }
  // Either way the file is whole under its name, by both ways of writing it.
  const std::string text(3 << 20, 's');
  for (const char* sync : {"0", "1"}) {
    ::setenv("CUPTITRACE_SYNC", sync, 1);
    TempDir dir;
    const fs::path streamed = dir.path() / "a.json";
    const fs::path named = dir.path() / "b.sqlite";
    CHECK(writeFileSafely(streamed.string(), writes(text), false).empty());
    CHECK(writeFileSafelyAt(named.string(),
                            [&](const std::string& tmp) {
                              std::ofstream(tmp, std::ios::binary) << text;
                              return std::string();
                            },
                            false)
              .empty());
    CHECK(slurp(streamed) == text);
    CHECK(slurp(named) == text);
    CHECK(entries(dir.path()) == 2);
  }
  if (before != nullptr) ::setenv("CUPTITRACE_SYNC", saved.c_str(), 1);
  else ::unsetenv("CUPTITRACE_SYNC");
}
