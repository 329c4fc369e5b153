// An append-only sequence stored in fixed-size chunks: appending never moves
// what is already stored, and memory grows one chunk at a time.
//
// A full chunk may be spilled: its records then live in a spill file
// (spill_file.h) and are read through a mapping of it, at an address that
// does not change, so readers see no difference. The trace store decides
// which chunks spill; this class only keeps track of where each chunk is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sys/mman.h>

#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "core/spill_file.h"

namespace cuptitrace {

template <typename T, size_t ChunkRecords = 4096>
class ChunkedVector {
 public:
  using value_type = T;
  static constexpr size_t kChunkRecords = ChunkRecords;
  static constexpr size_t kChunkBytes = sizeof(T) * ChunkRecords;

  ChunkedVector() = default;
  ~ChunkedVector() { clear(); }
  ChunkedVector(ChunkedVector&& other) noexcept { *this = std::move(other); }
  ChunkedVector& operator=(ChunkedVector&& other) noexcept {
    if (this != &other) {
      clear();
      chunks_ = std::move(other.chunks_);
      size_ = other.size_;
      inMemory_ = other.inMemory_;
      spill_ = other.spill_;
      other.chunks_.clear();
      other.size_ = other.inMemory_ = 0;
    }
    return *this;
  }
  ChunkedVector(const ChunkedVector&) = delete;
  ChunkedVector& operator=(const ChunkedVector&) = delete;

  // True when the next push_back needs a new chunk.
  bool needsChunk() const { return size_ % ChunkRecords == 0; }

  // Appends up to n of `values`: as many as the last chunk holds (a new
  // chunk when it is full); 0 when no chunk can be had.
  size_t tryAppend(const T* values, size_t n) {
    if (n == 0) return 0;
    if (needsChunk()) {
      Chunk chunk = allocateChunk();
      if (chunk.data == nullptr) return 0;
      chunks_.push_back(chunk);
      ++inMemory_;
    }
    const size_t at = size_ % ChunkRecords, k = n < ChunkRecords - at ? n : ChunkRecords - at;
    std::memcpy(const_cast<T*>(chunks_.back().data) + at, values, k * sizeof(T));
    size_ += k;
    return k;
  }

  void push_back(const T& value) {
    if (!tryPushBack(value)) throw std::bad_alloc();
  }
  // push_back that says false instead of throwing when no chunk can be had.
  bool tryPushBack(const T& value) {
    if (needsChunk()) {
      Chunk chunk = allocateChunk();
      if (chunk.data == nullptr) return false;
      chunks_.push_back(chunk);
      ++inMemory_;
    }
    // The last chunk is never a spilled one while it has room (only full chunks spill).
    const_cast<T*>(chunks_.back().data)[size_ % ChunkRecords] = value;
    ++size_;
    return true;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Memory held by chunks in memory (spilled chunks hold none).
  size_t bytesReserved() const { return inMemory_ * kChunkBytes; }

  // The reference stays valid until the record is removed (clear, truncate,
  // the store's retain), spilled or not.
  const T& operator[](size_t i) const {
    const Chunk& c = chunks_[i / ChunkRecords];
    if (c.spillId != kInMemory) spill_->touch(c.spillId);
    return c.data[i % ChunkRecords];
  }

  template <typename F>
  void forEach(F&& f) const {
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const T* p = chunkData(c);
      const size_t n = chunkSize(c);
      for (size_t j = 0; j < n; ++j) f(p[j]);
    }
  }
  // forEach for a pass that keeps no reference to a record past its call:
  // a spilled chunk's records are read into a buffer of the pass's own
  // rather than mapped in (spill_file.h says why), the mapping used only
  // when that read fails.
  template <typename F>
  void scan(F&& f) const {
    std::unique_ptr<T[]> copy;
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const T* p = chunkRecords(c, copy);
      const size_t n = chunkSize(c);
      for (size_t j = 0; j < n; ++j) f(p[j]);
    }
  }
  // Chunk c's records for such a pass: in memory, or a spilled chunk's read
  // into `copy` (made on first use; mapped when the read fails), valid until
  // the next call with the same `copy`.
  const T* chunkRecords(size_t c, std::unique_ptr<T[]>& copy) const {
    const Chunk& chunk = chunks_[c];
    if (chunk.spillId == kInMemory) return chunk.data;
    if (!copy) copy.reset(new (std::nothrow) T[ChunkRecords]);
    if (copy && spill_->readChunk(chunk.spillId, copy.get(), chunkSize(c) * sizeof(T))) return copy.get();
    return chunkData(c);
  }

  // Frees the chunks in memory and forgets the spilled ones (their file keeps them).
  void clear() { truncate(0); }

  // ---- chunks, for the store ------------------------------------------------

  size_t chunkCount() const { return chunks_.size(); }
  size_t chunkSize(size_t c) const {
    return c + 1 < chunks_.size() ? ChunkRecords : size_ - c * ChunkRecords;
  }
  bool chunkSpilled(size_t c) const { return chunks_[c].spillId != kInMemory; }
  uint32_t chunkSpillId(size_t c) const { return chunks_[c].spillId; }
  // Where spilled chunk `c`'s records lie in the spill file (SpillFile::chunkSource):
  // its descriptor, or -1 for a chunk in memory.
  int chunkSource(size_t c, uint64_t& offset) const {
    return chunkSpilled(c) && spill_ != nullptr ? spill_->chunkSource(chunks_[c].spillId, offset) : -1;
  }
  const T* chunkData(size_t c) const {
    const Chunk& chunk = chunks_[c];
    if (chunk.spillId != kInMemory) spill_->touch(chunk.spillId);
    return chunk.data;
  }
  // Writable records of a chunk in memory.
  T* chunkMemory(size_t c) { return const_cast<T*>(chunks_[c].data); }

  // Chunk `c` (in memory, full) now lives at `mapped` in `file`: its memory is freed.
  void spillChunk(size_t c, const T* mapped, uint32_t id, const SpillFile* file) {
    freeChunk(chunks_[c]);
    chunks_[c] = {mapped, id, false};
    --inMemory_;
    spill_ = file;
  }
  // Brings spilled chunk `c` back into memory holding `records` (n of them);
  // false when no memory could be had.
  bool loadChunk(size_t c, const T* records, size_t n) {
    Chunk chunk = allocateChunk();
    if (chunk.data == nullptr) return false;
    std::memcpy(const_cast<T*>(chunk.data), records, n * sizeof(T));
    chunks_[c] = chunk;
    ++inMemory_;
    return true;
  }
  // Appends a full chunk that already lies in a spill file (recovery);
  // only after full chunks.
  bool appendSpilled(const T* mapped, uint32_t id, const SpillFile* file) {
    if (!needsChunk()) return false;
    chunks_.push_back({mapped, id, false});
    size_ += ChunkRecords;
    spill_ = file;
    return true;
  }
  // Keeps the first n records; chunks past them are freed or forgotten.
  void truncate(size_t n) {
    if (n >= size_) return;
    const size_t keep = (n + ChunkRecords - 1) / ChunkRecords;
    for (size_t c = keep; c < chunks_.size(); ++c) {
      if (chunks_[c].spillId == kInMemory) {
        freeChunk(chunks_[c]);
        --inMemory_;
      }
    }
    chunks_.resize(keep);
    size_ = n;
  }

 private:
  static constexpr uint32_t kInMemory = UINT32_MAX;

  // Chunks are whole pages (sizeof(T) * 4096), mapped on their own: a chunk
  // freed after spilling goes back to the system at once, instead of staying
  // in an allocator arena of the thread that made it.
  static_assert(kChunkBytes % 4096 == 0, "a chunk is whole pages");
  struct Chunk {
    const T* data;     // owned when in memory, else inside the spill file's mapping
    uint32_t spillId;  // kInMemory, or the chunk's id in the spill file
    bool heap;         // owned memory from new[] rather than its own mapping
  };
  // The heap only when the system gives no more mappings (vm.max_map_count).
  static Chunk allocateChunk() {
    void* p = ::mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p != MAP_FAILED) return {static_cast<T*>(p), kInMemory, false};
    return {new (std::nothrow) T[ChunkRecords], kInMemory, true};
  }
  static void freeChunk(const Chunk& chunk) {
    if (chunk.heap) delete[] chunk.data;
    else ::munmap(const_cast<T*>(chunk.data), kChunkBytes);
  }

  std::vector<Chunk> chunks_;
  size_t size_ = 0;
  size_t inMemory_ = 0;
  const SpillFile* spill_ = nullptr;
};

}  // namespace cuptitrace
