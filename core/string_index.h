// The string table's index from text to id: which id a string already has.
//
// Open addressing over (hash tag, id) pairs, 8 bytes each, no text: the
// table compares candidates' text itself. It grows like any hash table until
// it reaches its byte budget; from then on a new string takes the slot of the
// oldest id in its probe window. A string forgotten that way and seen again
// gets a new id with the same text: harmless to every output (names are
// text), and it is what keeps a program that names each of millions of NVTX
// ranges differently within its memory cap. A program with fewer distinct
// strings than the budget holds (about a million per 8 MiB) never sees it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/records.h"

namespace cuptitrace {

class StringIndex {
 public:
  // Slots are kept to this many bytes at most (at least one window's worth).
  void setMaxBytes(uint64_t bytes) { maxBytes_ = bytes; }

  // The id whose text `same(id)` accepts among those filed under `hash`;
  // kNoString when none.
  template <typename Same>
  StringId find(uint64_t hash, Same&& same) const {
    if (slots_.empty()) return kNoString;
    const uint32_t tag = tagOf(hash);
    for (size_t i = 0; i < kProbes; ++i) {
      const Slot& s = slots_[(tag + i) & mask_];
      // Slots are never emptied, so no entry of this hash lies past an empty one.
      if (s.id == kNoString) return kNoString;
      if (s.tag == tag && same(s.id)) return s.id;
    }
    return kNoString;
  }

  // Files `id` under `hash`. May allocate (growing); throws bad_alloc then.
  void insert(uint64_t hash, StringId id);

  uint64_t bytes() const { return slots_.capacity() * sizeof(Slot); }
  // Ids forgotten for the budget.
  uint64_t evicted() const { return evicted_; }

 private:
  struct Slot {
    uint32_t tag;
    StringId id;
  };
  static constexpr size_t kProbes = 16;
  static constexpr size_t kInitialSlots = 1024;
  // The slot is found from the tag alone, so that growing needs no text.
  static uint32_t tagOf(uint64_t hash) { return static_cast<uint32_t>(hash ^ (hash >> 32)); }
  bool canGrow() const { return slots_.size() * 2 * sizeof(Slot) <= maxBytes_; }
  void grow();
  // False when the window is full (nothing placed).
  static bool place(std::vector<Slot>& slots, size_t mask, Slot slot);

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t used_ = 0;
  uint64_t maxBytes_ = UINT64_MAX;
  uint64_t evicted_ = 0;
};

}  // namespace cuptitrace
