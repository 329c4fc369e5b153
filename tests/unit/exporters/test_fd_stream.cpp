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

TEST_CASE("fd stream: held bytes and ranges of another file go in order with the buffered ones", "[export]") {
  TempDir dir;
  const std::string text = content();
  // The source file of the ranges: the same bytes, so any range is known.
  const fs::path source = dir.path() / "source";
  {
    std::ofstream s(source, std::ios::binary);
    s << text;
  }
  const int src = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(src >= 0);
  for (unsigned threads : {0u, 1u, 3u, 8u}) {
    const fs::path path = dir.path() / ("mixed-" + std::to_string(threads));
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    std::string expected;
    {
      FdStreamBuf buf(fd, threads, 65536);
      std::ostream out(&buf);
      size_t at = 0, step = 1;
      while (at < text.size()) {
        const size_t n = std::min(step * 4099 % 300007 + 1, text.size() - at);
        switch (step % 3) {
          case 0:
            out.write(text.data() + at, static_cast<std::streamsize>(n));
            break;
          case 1:
            CHECK(buf.putHeld(text.data() + at, n) == 0);
            break;
          default:
            CHECK(buf.putFrom(src, at, n) == 0);
            break;
        }
        expected.append(text, at, n);
        at += n;
        ++step;
        out << '|';  // a buffered byte between each two
        expected += '|';
      }
      out.flush();
      CHECK(buf.error() == 0);
      CHECK(out.good());
    }
    ::close(fd);
    INFO(threads << " threads");
    CHECK(slurp(path) == expected);
  }
  // A range the source does not hold fails the file.
  const fs::path path = dir.path() / "short";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  {
    FdStreamBuf buf(fd, 2, 65536);
    buf.putFrom(src, text.size() - 10, 100);
    CHECK(buf.error() == EIO);
  }
  ::close(fd);
  ::close(src);
}
