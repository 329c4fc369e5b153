// A range of one kind's records in store order: the piece of a table that
// one of several writer threads writes (csv/, sqlite/).
#pragma once

#include <cstddef>

#include "core/chunked_vector.h"

namespace cuptitrace {

// f(record) for the records [first, end) of `records` (an end past the
// last: to the last).
template <typename T, typename F>
void forEachIn(const ChunkedVector<T>& records, size_t first, size_t end, F&& f) {
  constexpr size_t kChunk = ChunkedVector<T>::kChunkRecords;
  if (end > records.size()) end = records.size();
  for (size_t i = first; i < end;) {
    const size_t c = i / kChunk, from = i % kChunk;
    const size_t to = from + (end - i) < records.chunkSize(c) ? from + (end - i) : records.chunkSize(c);
    const T* p = records.chunkData(c);
    for (size_t j = from; j < to; ++j) f(p[j]);
    i += to - from;
  }
}

}  // namespace cuptitrace
