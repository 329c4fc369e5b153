#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>

#include "core/fd_stream.h"
#include "temp_dir.h"

using namespace cuptitrace;
namespace fs = std::filesystem;
using cuptitrace::testing::TempDir;
using cuptitrace::testing::slurp;

namespace {

// Bytes of no pattern a misplaced buffer could hide in, written in pieces of
// odd sizes, some larger than the buffer.
std::string content() {
  std::string s;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < (3u << 20) + 4321; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s.push_back(static_cast<char>(x));
  }
  return s;
}

void writeInPieces(std::ostream& out, const std::string& s) {
  size_t at = 0, piece = 1;
  while (at < s.size()) {
    const size_t n = std::min(piece, s.size() - at);
    out.write(s.data() + at, static_cast<std::streamsize>(n));
    at += n;
    piece = piece * 7 % 100003 + 1;
  }
}

}  // namespace

TEST_CASE("fd stream: the file's bytes are the same with any number of write threads", "[export]") {
  TempDir dir;
  const std::string text = content();
  for (unsigned threads : {0u, 1u, 2u, 3u, 4u, 8u}) {
    for (size_t buffer : {size_t{4096}, size_t{65537}, FdStreamBuf::kDefaultBufferBytes}) {
      const fs::path path = dir.path() / ("out-" + std::to_string(threads) + "-" + std::to_string(buffer));
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      REQUIRE(fd >= 0);
      {
        FdStreamBuf buf(fd, threads, buffer);
        std::ostream out(&buf);
        out << "head:";  // a start the others must not overwrite
        writeInPieces(out, text);
        out.flush();
        CHECK(buf.error() == 0);
        CHECK(out.good());
      }
      ::close(fd);
      INFO(threads << " threads, buffers of " << buffer);
      CHECK(slurp(path) == "head:" + text);
    }
  }
}

TEST_CASE("fd stream: a failed write is kept and later bytes are refused", "[export]") {
  TempDir dir;
  for (unsigned threads : {0u, 3u}) {
    const fs::path path = dir.path() / ("full-" + std::to_string(threads));
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of the signal: a full disk's stand-in
      rlimit limit{256 << 10, 256 << 10};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) ::_exit(2);
      int error = 0;
      bool failedStream = false;
      {
        FdStreamBuf buf(fd, threads, 4096);
        std::ostream out(&buf);
        out << std::string(1 << 20, 'z');
        out.flush();
        error = buf.error();
        failedStream = !out.good();
      }
      ::_exit(error == EFBIG && failedStream ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    INFO(threads << " threads");
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
}
