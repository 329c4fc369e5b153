// An append-only sequence stored in fixed-size chunks: appending never moves
// what is already stored, and memory grows one chunk at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace cuptitrace {

template <typename T, size_t ChunkRecords = 4096>
class ChunkedVector {
 public:
  using value_type = T;
  static constexpr size_t kChunkBytes = sizeof(T) * ChunkRecords;

  // True when the next push_back needs a new chunk.
  bool needsChunk() const { return size_ % ChunkRecords == 0; }

  void push_back(const T& value) {
    if (needsChunk()) chunks_.emplace_back(new T[ChunkRecords]);
    chunks_.back()[size_ % ChunkRecords] = value;
    ++size_;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t bytesReserved() const { return chunks_.size() * kChunkBytes; }

  const T& operator[](size_t i) const { return chunks_[i / ChunkRecords][i % ChunkRecords]; }
  T& operator[](size_t i) { return chunks_[i / ChunkRecords][i % ChunkRecords]; }

  template <typename F>
  void forEach(F&& f) const {
    for (size_t i = 0; i < size_; ++i) f((*this)[i]);
  }

  void clear() {
    chunks_.clear();
    size_ = 0;
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace cuptitrace
