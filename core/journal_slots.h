// The versions of one record kind's chunk slots that a journal holds, as its
// reader meets them in file order (journal_format.h): a CHUNK replaces what a
// slot had, a TAIL replaces it from its first record on, a DEAD empties it.
// What is left at the end is each slot's latest version, which recovery
// takes: a full chunk read in place, or records copied from TAIL parts.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace cuptitrace::journal {

class SlotVersions {
 public:
  static constexpr uint32_t kNoChunk = UINT32_MAX;

  // Records lying in the journal's mapping, `count` of them.
  struct Part {
    const char* records;
    uint32_t count;
  };
  struct Slot {
    std::vector<Part> parts;  // in order
    uint32_t count = 0;
    // The spill file's id when the slot is exactly one CHUNK (readable in place).
    uint32_t chunkId = kNoChunk;
  };

  explicit SlotVersions(uint32_t recordSize) : recordSize_(recordSize) {}

  // A CHUNK of `count` records: the slot is it. True when it replaced a
  // CHUNK (a copy written again: the bytes of one of them are not used).
  bool chunk(uint32_t slot, uint32_t id, const char* records, uint32_t count);
  // A TAIL: records [first, first + count). False, and nothing changed, when
  // `first` is past what the slot holds (a version before it was lost).
  bool tail(uint32_t slot, uint32_t first, const char* records, uint32_t count);
  // A DEAD chunk: the slot left the trace.
  void dead(uint32_t slot) { slots_.erase(slot); }

  // The slots that hold records, by slot number.
  const std::map<uint32_t, Slot>& slots() const { return slots_; }

  // Copies a slot's records to `out` (room for slot.count records).
  void copy(const Slot& slot, void* out) const;

 private:
  uint32_t recordSize_;
  std::map<uint32_t, Slot> slots_;
};

}  // namespace cuptitrace::journal
