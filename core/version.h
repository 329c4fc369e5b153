#pragma once

namespace cuptitrace {
inline constexpr const char* kVersion = "0.1.0";
}  // namespace cuptitrace
