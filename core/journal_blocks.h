// Encoding of the journal's METADATA and INFO blocks (journal_format.h):
// the same fields, in the same order, as the native format's METADATA section.
#pragma once

#include <string>
#include <string_view>

#include "core/trace.h"

namespace cuptitrace::journal {

std::string encodeMetadata(const TraceMetadata& meta);
bool decodeMetadata(std::string_view data, TraceMetadata& meta);

// Devices, contexts and the stream, thread, device and context names.
std::string encodeInfo(const Trace& trace);
// Replaces what `trace` has of them.
bool decodeInfo(std::string_view data, Trace& trace);

}  // namespace cuptitrace::journal
