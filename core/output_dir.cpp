#include "core/output_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cuptitrace {
namespace {

// Splits an expanded name at its last slash: ("dir/", "file").
std::string directoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// The template's file part: what follows its last slash (no escape spans a
// slash, so this cut is the same before and after expansion).
std::string_view filePartOf(std::string_view pattern) {
  const size_t slash = pattern.rfind('/');
  return slash == std::string_view::npos ? pattern : pattern.substr(slash + 1);
}

bool isDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string makeDirectories(const std::string& dir) {
  if (dir.empty() || isDirectory(dir)) return {};
  std::string path;
  size_t pos = 0;
  while (pos <= dir.size()) {
    const size_t slash = dir.find('/', pos);
    const size_t end = slash == std::string::npos ? dir.size() : slash;
    path = dir.substr(0, end);
    pos = end + 1;
    if (path.empty() || path == "." || path == "..") continue;
    if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST) return path + ": " + std::strerror(errno);
    if (slash == std::string::npos) break;
  }
  return isDirectory(dir) ? std::string() : dir + ": not a directory";
}

bool directoryWritable(const std::string& dir, std::string* why) {
  std::string probe = (dir.empty() ? std::string("./") : dir) + ".cuptitrace-probe-XXXXXX";
  std::vector<char> name(probe.begin(), probe.end());
  name.push_back('\0');
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    if (why != nullptr) *why = std::strerror(errno);
    return false;
  }
  ::close(fd);
  ::unlink(name.data());
  return true;
}

OutputPlace prepareOutputDirectory(std::string_view pattern, const OutputNameInputs& inputs,
                                   const std::string& fallbackDir) {
  OutputPlace place;
  place.pattern = std::string(pattern);
  const std::string dir = directoryOf(expandOutputName(pattern, inputs, 1));
  std::string why;
  const bool existed = dir.empty() || isDirectory(dir);
  why = makeDirectories(dir);
  if (why.empty() && directoryWritable(dir, &why)) {
    if (!existed) place.message = "made the output directory " + dir;
    return place;
  }
  std::string tmp = fallbackDir;
  if (tmp.empty()) {
    const char* env = std::getenv("TMPDIR");
    tmp = env != nullptr && *env != '\0' ? env : "/tmp";
  }
  if (tmp.back() != '/') tmp += '/';
  std::string tmpWhy;
  if (!directoryWritable(tmp, &tmpWhy)) {
    place.usable = false;
    place.message = "cannot write to " + (dir.empty() ? std::string("the working directory") : dir) + " (" + why +
                    ") nor to " + tmp + " (" + tmpWhy + ")";
    return place;
  }
  place.pattern = tmp + std::string(filePartOf(pattern));
  place.message = "cannot write to " + (dir.empty() ? std::string("the working directory") : dir) + " (" + why +
                  "); the trace goes to " + tmp + " instead";
  return place;
}

}  // namespace cuptitrace
