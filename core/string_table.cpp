#include "core/string_table.h"

namespace cuptitrace {

StringTable::StringTable() {
  strings_.emplace_back();
  ids_.emplace(std::string_view(strings_.back()), kNoString);
}

StringId StringTable::intern(std::string_view s) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  ids_.emplace(std::string_view(strings_.back()), id);
  return id;
}

std::string_view StringTable::get(StringId id) const {
  if (id >= strings_.size()) return {};
  return strings_[id];
}

}  // namespace cuptitrace
