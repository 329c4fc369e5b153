#include "core/string_index.h"

namespace cuptitrace {

bool StringIndex::place(std::vector<Slot>& slots, size_t mask, Slot slot) {
  for (size_t i = 0; i < kProbes; ++i) {
    Slot& s = slots[(slot.tag + i) & mask];
    if (s.id == kNoString) {
      s = slot;
      return true;
    }
  }
  return false;
}

void StringIndex::grow() {
  const size_t size = slots_.empty() ? kInitialSlots : slots_.size() * 2;
  std::vector<Slot> bigger(size, Slot{0, kNoString});
  const size_t mask = size - 1;
  size_t used = 0;
  for (const Slot& s : slots_)
    if (s.id != kNoString && place(bigger, mask, s)) ++used;
  evicted_ += used_ - used;
  slots_.swap(bigger);
  mask_ = mask;
  used_ = used;
}

void StringIndex::insert(uint64_t hash, StringId id) {
  if (slots_.empty() || ((used_ + 1) * 2 > slots_.size() && canGrow())) grow();
  const Slot slot{tagOf(hash), id};
  if (place(slots_, mask_, slot)) {
    ++used_;
    return;
  }
  if (canGrow()) {
    grow();
    if (place(slots_, mask_, slot)) {
      ++used_;
      return;
    }
  }
  // At its budget: the oldest id of the window makes way.
  Slot* oldest = &slots_[slot.tag & mask_];
  for (size_t i = 1; i < kProbes; ++i) {
    Slot& s = slots_[(slot.tag + i) & mask_];
    if (s.id < oldest->id) oldest = &s;
  }
  *oldest = slot;
  ++evicted_;
}

}  // namespace cuptitrace
