// The file a trace store's chunks go to past its memory cap, and through which
// they are read back: a journal (journal_format.h) written with pwrite and
// read through read-only shared mappings.
//
// Reading needs no copy and no cache: a spilled chunk's records stay at one
// address in the mapping for the file's lifetime, so a `const T&` into them is
// as stable as one into memory. What keeps the process's resident memory
// bounded is `touch`: readers announce the chunk they read, and past a budget
// of touched bytes the oldest chunk's pages are dropped from the mapping
// (MADV_DONTNEED: the next read faults them in again from the page cache).
//
// One writer (the thread that appends to the store); readers run after it, any
// number at a time.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/journal_format.h"
#include "core/records.h"

struct iovec;

namespace cuptitrace {

class SpillFile {
 public:
  // Nothing is created until the first append.
  explicit SpillFile(std::string path);
  // Opens an existing journal for reading only (recovery). nullptr and why
  // when it cannot be opened or mapped.
  static std::unique_ptr<SpillFile> openForReading(const std::string& path, std::string& error);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Run right after the file is created (the metadata block goes first), and
  // before each chunk (the strings its records name). False stops spilling.
  std::function<bool(SpillFile&)> onCreate;
  std::function<bool(SpillFile&)> beforeChunk;

  // Creates the file now (the metadata then is on disk from the start).
  bool start() { return create(); }

  const std::string& path() const { return path_; }
  bool created() const { return fd_ >= 0; }
  bool writable() const { return !readOnly_; }
  // A write failed (disk full, no such directory): nothing more is spilled.
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  uint64_t size() const { return end_; }
  // Stops spilling, saying why (what failed around a write, not the write).
  void stop(const std::string& why) {
    if (error_.empty()) error_ = why;
  }

  // Appends a block; false (and failed()) when it could not be written.
  bool appendBlock(journal::Block type, const void* payload, size_t length);
  // Appends a block that is read back through the mapping (the string
  // table's): it is kept inside one segment, and registered like a chunk, so
  // that readers touch() it by `id`. False (and failed()) when it could not
  // be written; a block too large for a segment is written, with id UINT32_MAX.
  bool appendReadableBlock(journal::Block type, const void* payload, size_t length, uint32_t& id);
  // Appends one chunk of `count` records; returns where the records can be
  // read, and the chunk's id, or nullptr when the write failed.
  const void* appendChunk(RecordKind kind, uint32_t recordSize, uint32_t slot, const void* records,
                          uint32_t count, uint32_t& id);
  // Appends a TAIL block: records [first, first + count) of chunk `slot` of
  // `kind`, which is still filling and stays in memory, so nothing is mapped
  // or registered for reading. Runs beforeChunk first, as a chunk does.
  // False (and failed()) when it could not be written.
  bool appendTail(RecordKind kind, uint32_t recordSize, uint32_t slot, uint32_t first, const void* records,
                  uint32_t count);
  // Writes new contents over a spilled chunk (in-place filtering), keeping
  // its length; `count` records, the rest of the chunk zeroed.
  bool rewriteChunk(uint32_t id, const void* records, uint32_t count);
  // Marks a chunk's block DEAD: its records left the trace.
  bool discardChunk(uint32_t id);

  // Where a chunk's records are mapped.
  const void* chunkData(uint32_t id) const;
  // The first `bytes` of a chunk's records copied into `out` (pread), not
  // mapped: a pass over every record maps each chunk in again once the
  // mapping's window has moved on (touch), which costs a page fault per
  // 64 KiB and, to drop it, a TLB flush on every core the process runs on.
  // False when the file cannot be read there.
  bool readChunk(uint32_t id, void* out, uint64_t bytes) const;
  // Where a chunk's records lie in the file, for a copy the kernel makes
  // (copy_file_range) without mapping or reading them: the file's descriptor,
  // and the records' offset in `offset`; -1 when there is no such chunk.
  int chunkSource(uint32_t id, uint64_t& offset) const;

  // Reading: the mapped bytes at [offset, offset + length), which must lie
  // inside the file (and, while writing, inside one segment); nullptr otherwise.
  const char* mapped(uint64_t offset, uint64_t length);
  // Registers a chunk found in an existing journal: its records' offset and
  // length; returns its id for touch().
  uint32_t addChunk(uint64_t blockOffset, uint64_t recordsOffset, uint64_t recordsBytes);

  // A reader is about to read chunk `id`. Cheap when the chunk was read last.
  void touch(uint32_t id) const {
    if (__atomic_load_n(&resident_[id], __ATOMIC_ACQUIRE) == 0) touchSlow(id);
  }
  // Drops the pages of [offset, offset + length) from this process's memory.
  void release(uint64_t offset, uint64_t length) const;
  // Bytes of spilled chunks kept mapped in at once before the oldest are dropped.
  void setResidentLimit(uint64_t bytes) { residentLimit_ = bytes; }

  // Flushes what was written to the disk (fsync): it survives a SIGKILL and
  // a crash of the machine alike. True when there is nothing to flush.
  bool sync();

  // Deletes the file (the outputs are written; it is no longer needed).
  bool remove();

 private:
  struct Chunk {
    uint64_t blockOffset;    // of the block header
    uint64_t recordsOffset;  // of the first record
    uint64_t recordsBytes;   // the whole chunk's capacity
  };

  bool create();
  bool writeAt(uint64_t offset, const ::iovec* parts, int count);
  // Pads to the next segment when a block of `total` bytes would straddle two.
  bool keepInSegment(uint64_t total);
  bool mapSegment(size_t segment);
  void touchSlow(uint32_t id) const;
  bool fail(const std::string& what, int err);

  std::string path_;
  int fd_ = -1;
  bool readOnly_ = false;
  bool creating_ = false;
  uint64_t end_ = 0;  // where the next block goes
  std::string error_;
  // Writing: mappings of kSegmentBytes, made as chunks reach them. Reading an
  // existing file: one mapping of all of it.
  uint64_t segmentBytes_ = journal::kSegmentBytes;
  std::vector<char*> segments_;
  std::vector<Chunk> chunks_;
  // One flag per chunk: in the reader's working set. Written by readers.
  mutable std::vector<uint8_t> resident_;
  mutable std::mutex residentMutex_;
  mutable std::deque<uint32_t> residentOrder_;
  mutable uint64_t residentBytes_ = 0;
  uint64_t residentLimit_ = uint64_t{16} << 20;
};

}  // namespace cuptitrace
