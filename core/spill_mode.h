// What the trace store does with records past its memory cap (CUPTITRACE_SPILL).
#pragma once

#include <cstdint>

namespace cuptitrace {

enum class SpillMode : uint8_t {
  Off,     // records past the cap are dropped and counted
  Auto,    // past the cap the oldest full chunks go to the spill file
  Always,  // every chunk goes to the spill file as soon as it is full
};

const char* spillModeName(SpillMode mode);  // "off", "auto", "always"

}  // namespace cuptitrace
