// C++ symbol demangling, with a cache: kernel names repeat millions of times.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

namespace cuptitrace {

// The demangled form of `mangled`, or `mangled` itself when it is not a
// mangled C++ name (extern "C" kernels, already readable names).
std::string demangle(std::string_view mangled);

// Remembers each name's demangled form. Not thread-safe; one per exporter.
class DemangleCache {
 public:
  const std::string& get(std::string_view mangled);

 private:
  std::unordered_map<std::string, std::string> cache_;
};

}  // namespace cuptitrace
