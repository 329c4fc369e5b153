// Interned strings: each distinct string is stored once and named by a small id.
//
// Strings count against the trace's memory cap like records do, and spill
// like them. They are kept in blocks of consecutive ids whose bytes are
// exactly the spill journal's STRINGS payload (journal_format.h): a full
// block is written to the journal as it is, and past the cap its memory is
// freed and its strings read back through the journal's mapping. What stays
// in memory per string is a 4-byte offset for every kStride-th id of a block
// and, within the index's budget, an 8-byte slot of the index that finds a
// string's id again (string_index.h).
//
// Program threads intern (NVTX messages, through a per-thread cache in front,
// collectors/nvtx_strings.h); one thread, the store's writer, writes blocks
// to the journal and frees them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/records.h"
#include "core/string_index.h"

namespace cuptitrace {

class SpillFile;

class StringTable {
 public:
  StringTable();
  ~StringTable();
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;

  // Returns the id of `s`, adding it on first sight. Thread-safe.
  StringId intern(std::string_view s);
  // Adds `s` under the next id, even when it is there already: readers of
  // saved traces, whose records name strings by the ids they had.
  StringId append(std::string_view s);

  // The string behind `id` ("" for kNoString or an id never handed out).
  // Valid until the writer frees the block it lies in (releaseWritten):
  // exporters run after collection stops.
  std::string_view get(StringId id) const;

  // Number of ids handed out, kNoString included.
  size_t size() const { return next_.load(std::memory_order_acquire); }

  // The index gets an eighth of the trace's memory cap, at most 64 MiB.
  void setMaxBytes(uint64_t maxBytes);
  // Memory held: blocks in memory, their offsets, the index.
  uint64_t bytesInMemory() const { return bytes_.load(std::memory_order_relaxed); }
  // The index's share of that.
  uint64_t indexBytes() const;
  // Ids the index forgot for its budget (a string seen again then gets a new id).
  uint64_t forgotten() const;

  // Writes the blocks not yet in the journal `file`, in id order; with
  // `everything`, the block still filling too (sealed first: the journal must
  // hold every string a spilled record names). False when writing failed.
  bool writeTo(SpillFile& file, bool everything);
  // Frees the memory of blocks already in the journal, oldest first, until
  // at least `bytes` are freed or none is left; their strings are read from
  // the journal from then on. Returns the bytes freed.
  uint64_t releaseWritten(uint64_t bytes);
  // Bytes of strings read from the journal instead of memory.
  uint64_t releasedBytes() const { return released_; }

 private:
  struct Block;
  // Every kStride-th string of a block has its offset kept.
  static constexpr uint32_t kStride = 16;

  StringId add(std::string_view s);                      // mutex_ held
  std::string_view text(StringId id) const;              // mutex_ held
  const Block* blockOf(StringId id) const;               // mutex_ held
  void seal(Block& b);                                   // mutex_ held
  void account();                                        // mutex_ held

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;  // by first id
  StringIndex index_;
  std::atomic<size_t> next_{1};
  std::atomic<uint64_t> bytes_{0};
  uint64_t blockBytes_ = 0;  // memory of blocks and offsets, mutex_ held
  SpillFile* file_ = nullptr;  // where written blocks are read from once freed
  uint64_t released_ = 0;
};

}  // namespace cuptitrace
