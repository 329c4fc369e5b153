#include "core/file_output.h"

#include "core/writer_threads.h"
#include "core/fd_stream.h"
#include "core/parse.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

namespace cuptitrace {
namespace {

// Threads for the write calls of one file: none with one writer thread,
// else a quarter of the writer threads (several files are written at once),
// one at least and four at most (a few copy into the page cache as fast as
// memory takes it).
unsigned writeThreadsPerFile() {
  const uint32_t threads = writerThreads();
  if (threads <= 1) return 0;
  return std::min<uint32_t>(4, std::max<uint32_t>(1, threads / 4));
}

// Moves `from` to `to`; without `overwrite`, fails with EEXIST when `to` exists.
int moveIntoPlace(const std::string& from, const std::string& to, bool overwrite) {
  if (overwrite) return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
  // link() never replaces an existing name; the temporary name is removed after.
  if (::link(from.c_str(), to.c_str()) == 0) {
    ::unlink(from.c_str());
    return 0;
  }
  return errno;
}

// An unnamed file in the directory of `path` (O_TMPFILE): a process killed
// while it writes leaves nothing behind. -1 where the file system or the
// kernel has none, or /proc (through which it is linked in) is missing.
int openUnnamed(const std::string& path) {
#ifdef O_TMPFILE
  if (::access("/proc/self/fd", X_OK) != 0) return -1;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  return ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
#else
  (void)path;
  return -1;
#endif
}

// Gives the unnamed file `fd` the name `path`; 0 or an errno.
int linkUnnamed(int fd, const std::string& path, bool overwrite) {
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  if (!overwrite)  // linkat() never replaces an existing name
    return ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
  // Replacing: a name of its own first, then renamed over the old file.
  for (unsigned attempt = 0; attempt < 100; ++attempt) {
    const std::string tmp = path + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      if (errno == EEXIST) continue;
      return errno;
    }
    if (::rename(tmp.c_str(), path.c_str()) == 0) return 0;
    const int error = errno;
    ::unlink(tmp.c_str());
    return error;
  }
  return EEXIST;
}

}  // namespace

bool syncOutputs() {
  const char* value = std::getenv("CUPTITRACE_SYNC");
  if (value == nullptr) return false;
  const std::optional<bool> on = parseBool(value);
  return on.value_or(false);
}

std::string writeFileSafely(const std::string& path, const std::function<void(std::ostream&)>& write,
                            bool overwrite) {
  struct stat existing {};
  if (!overwrite && ::lstat(path.c_str(), &existing) == 0)
    return path + " already exists; not overwritten (set CUPTITRACE_OVERWRITE=1 to replace it)";

  std::string tmpPath;  // empty: the file is unnamed until it is complete
  int fd = openUnnamed(path);
  if (fd < 0) {
    // mkstemp creates a new file (O_CREAT|O_EXCL): a planted symlink is never followed.
    std::vector<char> tmp(path.begin(), path.end());
    const char kSuffix[] = ".partial-XXXXXX";
    tmp.insert(tmp.end(), kSuffix, kSuffix + sizeof(kSuffix));
    fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd < 0) return "cannot create " + path + ": " + std::strerror(errno);
    tmpPath = tmp.data();
    ::fchmod(fd, 0644);
  }

  int error = 0;
  {
    FdStreamBuf buf(fd, writeThreadsPerFile());
    std::ostream out(&buf);
    write(out);
    out.flush();
    error = buf.error();
    // A stream layered on `out` (gzip) that failed marks `out` failed too.
    if (error == 0 && !out) error = EIO;
  }
  if (error == 0 && syncOutputs() && ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) error = errno;
  int moved = 0;
  if (error == 0 && tmpPath.empty()) moved = linkUnnamed(fd, path, overwrite);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    if (!tmpPath.empty()) ::unlink(tmpPath.c_str());
    return "cannot write " + path + ": " + std::strerror(error) + "; no partial file left";
  }
  if (!tmpPath.empty()) {
    moved = moveIntoPlace(tmpPath, path, overwrite);
    if (moved != 0) ::unlink(tmpPath.c_str());
  }
  if (moved != 0) {
    if (moved == EEXIST)
      return path + " already exists; not overwritten (set CUPTITRACE_OVERWRITE=1 to replace it)";
    return "cannot create " + path + ": " + std::strerror(moved);
  }
  return {};
}

std::string writeFileSafelyAt(const std::string& path,
                              const std::function<std::string(const std::string& tmpPath)>& write, bool overwrite) {
  struct stat existing {};
  if (!overwrite && ::lstat(path.c_str(), &existing) == 0)
    return path + " already exists; not overwritten (set CUPTITRACE_OVERWRITE=1 to replace it)";
  std::vector<char> tmp(path.begin(), path.end());
  const char kSuffix[] = ".partial-XXXXXX";
  tmp.insert(tmp.end(), kSuffix, kSuffix + sizeof(kSuffix));
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return "cannot create " + path + ": " + std::strerror(errno);
  const std::string tmpPath(tmp.data());
  ::fchmod(fd, 0644);
  ::close(fd);
  std::string error = write(tmpPath);
  if (error.empty() && syncOutputs()) {
    // The writer closed the file; its data reach the disk before the name does.
    const int rfd = ::open(tmpPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (rfd < 0 || (::fsync(rfd) != 0 && errno != EINVAL && errno != EROFS))
      error = "cannot write " + path + ": " + std::strerror(errno);
    if (rfd >= 0) ::close(rfd);
  }
  if (!error.empty()) {
    ::unlink(tmpPath.c_str());
    return error + "; no partial file left";
  }
  const int moved = moveIntoPlace(tmpPath, path, overwrite);
  if (moved != 0) {
    ::unlink(tmpPath.c_str());
    if (moved == EEXIST)
      return path + " already exists; not overwritten (set CUPTITRACE_OVERWRITE=1 to replace it)";
    return "cannot create " + path + ": " + std::strerror(moved);
  }
  return {};
}

}  // namespace cuptitrace
