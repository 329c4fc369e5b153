// Chrome Trace Event JSON for Perfetto (see DESIGN.md "What a user sees").
#pragma once

#include <cstdint>
#include <ostream>

#include "core/trace.h"

namespace cuptitrace {

struct JsonExportStats {
  uint64_t events = 0;   // trace events written (metadata events included)
  uint64_t clamped = 0;  // slices shortened so that no two on one track partially overlap
  uint64_t flows = 0;    // launch -> GPU work arrows written
};

// Writes `trace` as one JSON object {"traceEvents": [...], "metadata": {...}}.
JsonExportStats writeChromeJson(const Trace& trace, std::ostream& out);

}  // namespace cuptitrace
