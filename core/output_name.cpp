#include "core/output_name.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace cuptitrace {
namespace {

// Numbers tried for %n before giving up on finding a free one.
constexpr uint64_t kMaxSequence = 100000;

bool isNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }

// Length of "{NAME}" at the start of `s` (0 when it is not one).
size_t braceName(std::string_view s) {
  if (s.size() < 3 || s[0] != '{' || !isNameStart(s[1])) return 0;
  size_t i = 2;
  while (i < s.size() && isNameChar(s[i])) ++i;
  return i < s.size() && s[i] == '}' ? i + 1 : 0;
}

// Text from outside (host names, variables) as it goes into a file name:
// control characters would make names no shell prints or types.
void appendClean(std::string& out, std::string_view text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? '_' : c;
  }
}

}  // namespace

bool checkOutputTemplate(std::string_view pattern, std::string* why) {
  auto fail = [&](std::string text) {
    if (why != nullptr) *why = std::move(text);
    return false;
  };
  bool sawSequence = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '/' && sawSequence) return fail("%n must be in the file name, not in a directory");
    if (pattern[i] != '%') continue;
    if (i + 1 == pattern.size()) return fail("a lone % at the end (write %% for a percent sign)");
    const char next = pattern[++i];
    if (next == 'h' || next == 'p' || next == 'r' || next == '%') continue;
    if (next == 'n') {
      sawSequence = true;
      continue;
    }
    if (next == 'q') {
      const size_t length = braceName(pattern.substr(i + 1));
      if (length == 0) return fail("%q needs a variable name in braces, like %q{OMPI_COMM_WORLD_RANK}");
      i += length;
      continue;
    }
    return fail(std::string("unknown escape %") + next + " (known: %h, %p, %r, %q{VAR}, %n, %%)");
  }
  return true;
}

std::string expandOutputName(std::string_view pattern, const OutputNameInputs& inputs, uint64_t sequence,
                             std::vector<std::string>* messages) {
  std::string out;
  std::vector<std::string> missing;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c != '%' || i + 1 == pattern.size()) {
      out += c;
      continue;
    }
    const char next = pattern[++i];
    if (next == 'p') {
      out += std::to_string(inputs.pid);
    } else if (next == 'r') {
      out += inputs.rank >= 0 ? std::to_string(inputs.rank) : "pid" + std::to_string(inputs.pid);
    } else if (next == 'h') {
      appendClean(out, inputs.host);
    } else if (next == 'n') {
      out += std::to_string(sequence);
    } else if (next == '%') {
      out += '%';
    } else if (next == 'q' && braceName(pattern.substr(i + 1)) != 0) {
      const size_t length = braceName(pattern.substr(i + 1));
      const std::string name(pattern.substr(i + 2, length - 2));
      i += length;
      const char* value = inputs.env ? inputs.env(name.c_str()) : nullptr;
      if (value != nullptr) {
        appendClean(out, value);
      } else if (std::find(missing.begin(), missing.end(), name) == missing.end()) {
        missing.push_back(name);
        if (messages != nullptr)
          messages->push_back("CUPTITRACE_OUTPUT: %q{" + name + "}: " + name +
                              " is not set; it expands to nothing");
      }
    } else {
      out += '%';
      out += next;
    }
  }
  return out;
}

std::string expandOutputName(std::string_view pattern, uint32_t pid, std::string_view host) {
  OutputNameInputs inputs;
  inputs.pid = pid;
  inputs.host = std::string(host);
  return expandOutputName(pattern, inputs, 1, nullptr);
}

bool usesSequence(std::string_view pattern) {
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    if (pattern[i + 1] == 'n') return true;
    ++i;  // skip the escaped character ("%%n" is a percent sign and an n)
  }
  return false;
}

namespace {

bool prefixInUse(const std::string& prefix, const std::string& ignore) {
  const size_t slash = prefix.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : prefix.substr(0, slash));
  const std::string base = (slash == std::string::npos ? prefix : prefix.substr(slash + 1)) + ".";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  bool used = false;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    if (name.size() > base.size() && name.compare(0, base.size(), base) == 0 && name != ignore) {
      used = true;
      break;
    }
  }
  ::closedir(d);
  return used;
}

std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool outputPrefixInUse(const std::string& prefix) { return prefixInUse(prefix, {}); }

ClaimedPrefix claimOutputPrefix(std::string_view pattern, const OutputNameInputs& inputs,
                                std::vector<std::string>* messages) {
  ClaimedPrefix claimed;
  claimed.prefix = expandOutputName(pattern, inputs, 1, messages);  // messages said once, here
  if (!usesSequence(pattern)) return claimed;
  for (uint64_t n = 1; n <= kMaxSequence; ++n) {
    const std::string prefix = expandOutputName(pattern, inputs, n, nullptr);
    if (outputPrefixInUse(prefix)) continue;
    const std::string lock = prefix + ".lock";
    const int fd = ::open(lock.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      if (errno == EEXIST) continue;  // another process claimed it first
      // No file can be made there: the exporters say why, once.
      claimed.prefix = prefix;
      return claimed;
    }
    ::close(fd);
    // A process that released this number just before the claim has its
    // outputs in place by then: look again.
    if (prefixInUse(prefix, baseName(lock))) {
      ::unlink(lock.c_str());
      continue;
    }
    claimed.prefix = prefix;
    claimed.lockPath = lock;
    return claimed;
  }
  if (messages != nullptr)
    messages->push_back("CUPTITRACE_OUTPUT: no free number for %n up to " + std::to_string(kMaxSequence) +
                        "; using the process id instead");
  claimed.prefix = expandOutputName(pattern, inputs, inputs.pid, nullptr);
  return claimed;
}

void releaseOutputPrefix(ClaimedPrefix& claimed) {
  if (claimed.lockPath.empty()) return;
  ::unlink(claimed.lockPath.c_str());
  claimed.lockPath.clear();
}

}  // namespace cuptitrace
