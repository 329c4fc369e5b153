// The native trace file: the whole Trace in a compact, versioned binary form
// from which every other output can be produced again.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "core/trace.h"

namespace cuptitrace {

void writeNative(const Trace& trace, std::ostream& out);
// Reads a native trace into `trace` (which must be empty). On failure returns
// false and says why in `error` (bad magic, unsupported version, truncated).
bool readNative(std::istream& in, Trace& trace, std::string& error);

}  // namespace cuptitrace
