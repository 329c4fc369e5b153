// Kernel filters (CUPTITRACE_KERNEL_INCLUDE / CUPTITRACE_KERNEL_EXCLUDE):
// ECMAScript regular expressions searched in a kernel's demangled name. A
// kernel is kept when it matches the include pattern (or there is none) and
// does not match the exclude pattern. The decoder asks once per distinct name.
#pragma once

#include <memory>
#include <regex>
#include <string>
#include <string_view>

namespace cuptitrace {

// Longest pattern accepted: a regex is compiled recursively, and one that
// long is a mistake rather than a filter.
inline constexpr size_t kMaxKernelPatternBytes = 1024;

// Whether `pattern` compiles (empty is valid: no filter). `why` gets the
// regex library's reason.
bool validKernelPattern(std::string_view pattern, std::string* why = nullptr);

class KernelFilter {
 public:
  KernelFilter() = default;
  // Compiles both patterns; false (and why) when one does not compile, and
  // the filter is then off altogether.
  bool set(std::string_view include, std::string_view exclude, std::string* why = nullptr);
  // True when some pattern is set.
  bool active() const { return include_ != nullptr || exclude_ != nullptr; }
  // Whether a kernel of this name (mangled, as CUPTI gives it) is kept.
  bool keep(std::string_view mangledName) const;

 private:
  std::shared_ptr<const std::regex> include_;
  std::shared_ptr<const std::regex> exclude_;
};

}  // namespace cuptitrace
