// Strict parsers for configuration values: the whole text must match, no
// trailing garbage ("12abc" is rejected), no silent wrap-around.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuptitrace {

// "1", "true", "yes", "on" / "0", "false", "no", "off" (any case); nothing else.
std::optional<bool> parseBool(std::string_view text);
// Decimal digits only, fits in 64 bits.
std::optional<uint64_t> parseUint(std::string_view text);
// Bytes with an optional binary suffix: "4096", "64K", "8M", "8MiB", "1G", "1GB".
std::optional<uint64_t> parseSize(std::string_view text);
// "8M" style text for a byte count (exact when it divides, else bytes).
std::string formatSize(uint64_t bytes);
// A whole number of nanoseconds, microseconds, milliseconds or seconds
// ("500ns", "1us", "2ms", "3s"); a bare number is nanoseconds. Fits in 64 bits.
std::optional<uint64_t> parseDurationNs(std::string_view text);
// "2ms" style text for nanoseconds, in the largest unit that divides them.
std::string formatDuration(uint64_t ns);
// Splits on commas, trims blanks, lower-cases, drops empty items.
std::vector<std::string> splitList(std::string_view text);

}  // namespace cuptitrace
