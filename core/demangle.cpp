#include "core/demangle.h"

#include <cxxabi.h>

#include <cstdlib>

namespace cuptitrace {

std::string demangle(std::string_view mangled) {
  if (mangled.size() < 2 || mangled[0] != '_' || mangled[1] != 'Z') return std::string(mangled);
  const std::string input(mangled);
  int status = 0;
  char* out = abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) {
    std::free(out);
    return input;
  }
  std::string result(out);
  std::free(out);
  return result;
}

const std::string& DemangleCache::get(std::string_view mangled) {
  auto it = cache_.find(std::string(mangled));
  if (it != cache_.end()) return it->second;
  return cache_.emplace(std::string(mangled), demangle(mangled)).first->second;
}

}  // namespace cuptitrace
