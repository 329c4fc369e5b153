// Any text in any CUPTITRACE_* variable: parsing never crashes, says at most
// one thing per variable, and what it settles on describes itself validly.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/output_name.h"
#include "core/parse.h"

using namespace cuptitrace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& table = configTable();
  const auto& var = table[data[0] % table.size()];
  const std::string value(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string cvalue = value.c_str();  // environment values stop at a NUL

  std::vector<std::string> messages;
  const Config config = parseConfig([&](const char* name) { return var.name == std::string(name) ? cvalue.c_str() : nullptr; },
                                    messages);
  if (messages.size() > 1) std::abort();
  for (const auto& m : messages)
    if (m.find('\n') != std::string::npos || m.size() > 1000) std::abort();
  for (const auto& [name, text] : describeConfig(config)) {
    for (const auto& v : table) {
      Config scratch;
      if (name == v.name && !v.apply(text, scratch)) std::abort();
    }
  }
  parseSize(value);
  parseUint(value);
  parseBool(value);
  splitList(value);
  expandOutputName(value, 42, "host");
  return 0;
}
