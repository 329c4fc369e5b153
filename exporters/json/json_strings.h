// The trace's interned strings as quoted, escaped JSON text, each made once:
// names repeat millions of times in a trace.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/demangle.h"
#include "core/trace.h"
#include "core/json_text.h"

namespace cuptitrace {

class JsonStrings {
 public:
  explicit JsonStrings(const Trace& trace) : trace_(trace) {}

  // The quoted, escaped text of interned string `id`; demangled for kernel
  // names. Never empty once made (quotes).
  const std::string& quoted(StringId id) { return cached(quoted_, id, false); }
  const std::string& quotedKernelName(StringId id) { return cached(kernelNames_, id, true); }

 private:
  const std::string& cached(std::vector<std::string>& cache, StringId id, bool demangled) {
    if (id >= cache.size()) cache.resize(std::max<size_t>(id + 1, trace_.strings.size()));
    std::string& s = cache[id];
    if (s.empty()) {
      const std::string_view raw = trace_.strings.get(id);
      JsonText text;
      if (demangled) {
        text.quoted(demangle(raw));
      } else {
        text.quoted(raw);
      }
      s = text.view();
    }
    return s;
  }

  const Trace& trace_;
  std::vector<std::string> quoted_;
  std::vector<std::string> kernelNames_;
};

}  // namespace cuptitrace
