// Reading the variables: each value checked against the configuration
// table (core/config.cpp), and the CUPTITRACE_ names it does not know.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"

namespace cuptitrace {
namespace {

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string quoted(std::string_view value) {
  // Keep messages one line and short, whatever the value holds.
  std::string out = "\"";
  const size_t limit = 64;
  for (size_t i = 0; i < value.size() && i < limit; ++i) {
    const unsigned char ch = static_cast<unsigned char>(value[i]);
    if (ch < 0x20 || ch == 0x7f) out += '?';
    else out += static_cast<char>(ch);
  }
  if (value.size() > limit) out += "...(" + std::to_string(value.size()) + " bytes)";
  return out + "\"";
}

}  // namespace

Config parseConfig(const EnvLookup& env, std::vector<std::string>& messages) {
  Config config;
  for (const auto& var : configTable()) {
    const bool ok = var.apply(var.defaultValue, config);
    (void)ok;  // defaults are checked by the unit tests
    const char* value = env(var.name);
    if (value == nullptr) continue;
    if (!var.apply(value, config)) {
      messages.push_back(std::string(var.name) + "=" + quoted(value) + " is not valid (accepted: " +
                         var.accepted + "); using the default \"" + var.defaultValue + "\"");
      var.apply(var.defaultValue, config);
    }
  }
  return config;
}

std::vector<std::string> unknownVariableMessages(const char* const* environ) {
  std::vector<std::string> messages;
  if (environ == nullptr) return messages;
  constexpr std::string_view kPrefix = "CUPTITRACE_";
  for (const char* const* e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    if (entry.substr(0, kPrefix.size()) != kPrefix) continue;
    const auto name = entry.substr(0, entry.find('='));
    // Set by the cuptitrace command for its own libraries, not by users.
    if (name == "CUPTITRACE_COMMAND_PID") continue;
    // The project's tests steer failure paths with these (collectors/pm_sampling.h).
    if (name.substr(0, 16) == "CUPTITRACE_TEST_") continue;
    const auto& table = configTable();
    if (std::any_of(table.begin(), table.end(), [&](const ConfigVar& v) { return name == v.name; }))
      continue;
    const ConfigVar* closest = nullptr;
    size_t best = SIZE_MAX;
    for (const auto& v : table) {
      const size_t d = editDistance(name, v.name);
      if (d < best) { best = d; closest = &v; }
    }
    std::string msg = "unknown variable " + quoted(name) + " is ignored";
    if (closest != nullptr && best <= 4) msg += std::string(" (did you mean ") + closest->name + "?)";
    messages.push_back(msg);
  }
  return messages;
}

}  // namespace cuptitrace
