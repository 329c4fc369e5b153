// A per-thread cache in front of the string table, for names that program
// threads hand over on every call (NVTX messages, scope names): the table
// interns under one mutex, which every thread naming its ranges would take
// on every range. A hit compares the text and takes no lock; only a miss
// goes to the table. Keyed by the text, not its address: a program may reuse
// one buffer for different names.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/string_table.h"

namespace cuptitrace {

class CachedInterner {
 public:
  explicit CachedInterner(StringTable& strings);
  CachedInterner(const CachedInterner&) = delete;
  CachedInterner& operator=(const CachedInterner&) = delete;

  // The id of `s` in the table. Thread-safe.
  StringId intern(std::string_view s);
  StringId intern(const char* s) { return s == nullptr ? kNoString : intern(std::string_view(s)); }

  StringTable& table() { return strings_; }

 private:
  const uint64_t serial_;
  StringTable& strings_;
};

}  // namespace cuptitrace
