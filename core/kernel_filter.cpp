#include "core/kernel_filter.h"

#include "core/demangle.h"

namespace cuptitrace {
namespace {

std::shared_ptr<const std::regex> compile(std::string_view pattern, std::string* why) {
  if (pattern.size() > kMaxKernelPatternBytes) {
    if (why != nullptr) *why = "longer than " + std::to_string(kMaxKernelPatternBytes) + " bytes";
    return nullptr;
  }
  try {
    return std::make_shared<const std::regex>(pattern.begin(), pattern.end(),
                                              std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::exception& e) {
    if (why != nullptr) *why = e.what();
    return nullptr;
  }
}

}  // namespace

bool validKernelPattern(std::string_view pattern, std::string* why) {
  return pattern.empty() || compile(pattern, why) != nullptr;
}

bool KernelFilter::set(std::string_view include, std::string_view exclude, std::string* why) {
  include_.reset();
  exclude_.reset();
  std::string reason;
  auto in = include.empty() ? nullptr : compile(include, &reason);
  if (!include.empty() && in == nullptr) {
    if (why != nullptr) *why = "CUPTITRACE_KERNEL_INCLUDE is not a regular expression: " + reason;
    return false;
  }
  auto ex = exclude.empty() ? nullptr : compile(exclude, &reason);
  if (!exclude.empty() && ex == nullptr) {
    if (why != nullptr) *why = "CUPTITRACE_KERNEL_EXCLUDE is not a regular expression: " + reason;
    return false;
  }
  include_ = std::move(in);
  exclude_ = std::move(ex);
  return true;
}

bool KernelFilter::keep(std::string_view mangledName) const {
  if (!active()) return true;
  const std::string name = demangle(mangledName);
  try {
    if (include_ != nullptr && !std::regex_search(name, *include_)) return false;
    if (exclude_ != nullptr && std::regex_search(name, *exclude_)) return false;
  } catch (const std::exception&) {
    return true;  // a search the regex library gives up on (too complex): keep the kernel
  }
  return true;
}

}  // namespace cuptitrace
