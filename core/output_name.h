// Output file names from the CUPTITRACE_OUTPUT template.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cuptitrace {

// Expands %p (process id), %h (host name) and %% (a percent sign) in
// `pattern`; any other %-sequence is kept as written.
std::string expandOutputName(std::string_view pattern, uint32_t pid, std::string_view host);

}  // namespace cuptitrace
