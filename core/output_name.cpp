#include "core/output_name.h"

namespace cuptitrace {

std::string expandOutputName(std::string_view pattern, uint32_t pid, std::string_view host) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c != '%' || i + 1 == pattern.size()) {
      out += c;
      continue;
    }
    const char next = pattern[++i];
    if (next == 'p') out += std::to_string(pid);
    else if (next == 'h') out += host;
    else if (next == '%') out += '%';
    else {
      out += '%';
      out += next;
    }
  }
  return out;
}

}  // namespace cuptitrace
