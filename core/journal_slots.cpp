#include "core/journal_slots.h"

#include <cstring>

namespace cuptitrace::journal {

bool SlotVersions::chunk(uint32_t slot, uint32_t id, const char* records, uint32_t count) {
  auto it = slots_.find(slot);
  const bool replacedChunk = it != slots_.end() && it->second.chunkId != kNoChunk;
  Slot& s = slots_[slot];
  s.parts.assign(1, Part{records, count});
  s.count = count;
  s.chunkId = id;
  return replacedChunk;
}

bool SlotVersions::tail(uint32_t slot, uint32_t first, const char* records, uint32_t count) {
  auto it = slots_.find(slot);
  const uint32_t has = it == slots_.end() ? 0 : it->second.count;
  if (first > has) return false;
  if (first == 0 && count == 0) {
    if (it != slots_.end()) slots_.erase(it);
    return true;
  }
  Slot& s = it == slots_.end() ? slots_[slot] : it->second;
  // Keep the records before `first`: whole parts, then part of one.
  uint32_t kept = 0;
  size_t p = 0;
  while (p < s.parts.size() && kept + s.parts[p].count <= first) kept += s.parts[p++].count;
  if (kept < first) s.parts[p++].count = first - kept;
  s.parts.resize(p);
  if (count > 0) s.parts.push_back({records, count});
  s.count = first + count;
  // Records now come from more than one block, or not from a whole CHUNK.
  s.chunkId = kNoChunk;
  if (s.count == 0) slots_.erase(slot);
  return true;
}

void SlotVersions::copy(const Slot& slot, void* out) const {
  auto* to = static_cast<char*>(out);
  for (const Part& p : slot.parts) {
    const size_t bytes = size_t{p.count} * recordSize_;
    std::memcpy(to, p.records, bytes);
    to += bytes;
  }
}

}  // namespace cuptitrace::journal
