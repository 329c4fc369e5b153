// Interned strings: each distinct string is stored once and named by a small id.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/records.h"

namespace cuptitrace {

class StringTable {
 public:
  StringTable();
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;

  // Returns the id of `s`, adding it on first sight. Thread-safe.
  StringId intern(std::string_view s);

  // The string behind `id` ("" for kNoString or an id never handed out).
  // Safe while no other thread interns; exporters run after collection stops.
  std::string_view get(StringId id) const;

  // Number of ids handed out, kNoString included.
  size_t size() const { return strings_.size(); }

  // Calls f(id, string) for every id from `first` on, under the table's lock,
  // so a reader can run while other threads intern (the spill journal writes
  // the strings interned since its last chunk). Returns the next id.
  template <typename F>
  StringId visitFrom(StringId first, F&& f) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto end = static_cast<StringId>(strings_.size());
    for (StringId id = first; id < end; ++id) f(id, std::string_view(strings_[id]));
    return end < first ? first : end;
  }

 private:
  mutable std::mutex mutex_;
  std::deque<std::string> strings_;  // deque: references stay valid as it grows
  std::unordered_map<std::string_view, StringId> ids_;
};

}  // namespace cuptitrace
