#include "core/spill_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace cuptitrace {
namespace {

using journal::Block;
using journal::BlockHeader;
using journal::ChunkHeader;
using journal::kBlockHeaderBytes;

const char kZeros[journal::kAlign] = {};
constexpr uint64_t kFaultAroundBytes = uint64_t{64} << 10;

uint64_t pageSize() {
  static const uint64_t size = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

SpillFile::SpillFile(std::string path) : path_(std::move(path)) {}

std::unique_ptr<SpillFile> SpillFile::openForReading(const std::string& path, std::string& error) {
  auto file = std::make_unique<SpillFile>(path);
  file->readOnly_ = true;
  file->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file->fd_ < 0) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(file->fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + " is not a regular file";
    return nullptr;
  }
  file->end_ = static_cast<uint64_t>(st.st_size);
  // One mapping of the whole file: it does not grow any more.
  const uint64_t page = pageSize();
  file->segmentBytes_ = std::max<uint64_t>(page, (file->end_ + page - 1) / page * page);
  if (!file->mapSegment(0)) {
    error = file->error();
    return nullptr;
  }
  return file;
}

SpillFile::~SpillFile() {
  for (char* s : segments_)
    if (s != nullptr) ::munmap(s, segmentBytes_);
  if (fd_ >= 0) ::close(fd_);
}

bool SpillFile::fail(const std::string& what, int err) {
  if (error_.empty()) error_ = what + " " + path_ + ": " + std::strerror(err);
  return false;
}

bool SpillFile::create() {
  if (fd_ >= 0) return true;
  if (failed() || readOnly_ || creating_) return false;
  creating_ = true;
  // A journal left by an earlier run that was killed is someone's only copy
  // of that trace: never replaced, this one takes the next free name.
  std::string path = path_;
  for (int n = 2; n < 1000; ++n) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ >= 0 || errno != EEXIST) break;
    path = path_ + "." + std::to_string(n);
  }
  if (fd_ < 0) {
    creating_ = false;
    return fail("cannot create the spill file", errno);
  }
  path_ = path;
  char header[journal::kFileHeaderBytes] = {};
  std::memcpy(header, journal::kMagic, sizeof journal::kMagic);
  const uint32_t version = journal::kJournalVersion;
  std::memcpy(header + 8, &version, sizeof version);
  iovec part{header, sizeof header};
  bool ok = writeAt(0, &part, 1);
  if (ok) end_ = sizeof header;
  if (ok && onCreate) ok = onCreate(*this);
  creating_ = false;
  return ok;
}

bool SpillFile::writeAt(uint64_t offset, const iovec* parts, int count) {
  std::vector<iovec> left(parts, parts + count);
  size_t first = 0;
  while (first < left.size()) {
    const ssize_t n = ::pwritev(fd_, left.data() + first, static_cast<int>(left.size() - first),
                                static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("cannot write to", errno);
    }
    if (n == 0) return fail("cannot write to", ENOSPC);
    offset += static_cast<uint64_t>(n);
    auto done = static_cast<size_t>(n);
    while (first < left.size() && done >= left[first].iov_len) done -= left[first++].iov_len;
    if (first < left.size()) {
      left[first].iov_base = static_cast<char*>(left[first].iov_base) + done;
      left[first].iov_len -= done;
    }
  }
  return true;
}

bool SpillFile::appendBlock(Block type, const void* payload, size_t length) {
  if (readOnly_ || !create() || failed()) return false;
  const BlockHeader h = journal::makeHeader(type, static_cast<uint32_t>(length), journal::crc32c(payload, length));
  const uint64_t padded = journal::alignUp(length);
  iovec parts[3] = {{const_cast<BlockHeader*>(&h), sizeof h},
                    {const_cast<void*>(payload), length},
                    {const_cast<char*>(kZeros), padded - length}};
  if (!writeAt(end_, parts, 3)) return false;
  end_ += kBlockHeaderBytes + padded;
  return true;
}

bool SpillFile::mapSegment(size_t segment) {
  if (segment < segments_.size() && segments_[segment] != nullptr) return true;
  void* p = ::mmap(nullptr, segmentBytes_, PROT_READ, MAP_SHARED, fd_, static_cast<off_t>(segment * segmentBytes_));
  if (p == MAP_FAILED) return fail("cannot map", errno);
  if (segments_.size() <= segment) segments_.resize(segment + 1, nullptr);
  segments_[segment] = static_cast<char*>(p);
  return true;
}

bool SpillFile::keepInSegment(uint64_t total) {
  const uint64_t boundary = (end_ / segmentBytes_ + 1) * segmentBytes_;
  if (end_ + total <= boundary) return true;
  const uint64_t gap = boundary - end_ - kBlockHeaderBytes;
  std::vector<char> zeros(gap, 0);
  return appendBlock(Block::Pad, zeros.data(), zeros.size());
}

bool SpillFile::appendReadableBlock(Block type, const void* payload, size_t length, uint32_t& id) {
  id = UINT32_MAX;
  if (readOnly_ || !create() || failed()) return false;
  const uint64_t total = kBlockHeaderBytes + journal::alignUp(length);
  if (total > segmentBytes_) return appendBlock(type, payload, length);
  if (!keepInSegment(total)) return false;
  const uint64_t blockOffset = end_;
  if (!appendBlock(type, payload, length)) return false;
  const uint64_t payloadOffset = blockOffset + kBlockHeaderBytes;
  if (!mapSegment(payloadOffset / segmentBytes_)) return false;
  id = addChunk(blockOffset, payloadOffset, length);
  return true;
}

const void* SpillFile::appendChunk(RecordKind kind, uint32_t recordSize, uint32_t slot, const void* records,
                                   uint32_t count, uint32_t& id) {
  if (readOnly_ || !create() || failed()) return nullptr;
  if (beforeChunk && !beforeChunk(*this)) return nullptr;
  const uint64_t bytes = uint64_t{recordSize} * count;
  const uint64_t payload = journal::kChunkHeaderBytes + bytes;
  const uint64_t total = kBlockHeaderBytes + journal::alignUp(payload);
  if (payload > UINT32_MAX || total > segmentBytes_) {
    fail("chunk too large for", EFBIG);
    return nullptr;
  }
  if (!keepInSegment(total)) return nullptr;
  ChunkHeader ch{};
  ch.kind = static_cast<uint8_t>(kind);
  ch.recordSize = recordSize;
  ch.slot = slot;
  ch.count = count;
  const uint32_t crc = journal::crc32c(records, bytes, journal::crc32c(&ch, sizeof ch));
  const BlockHeader h = journal::makeHeader(Block::Chunk, static_cast<uint32_t>(payload), crc);
  const uint64_t padded = journal::alignUp(payload);
  iovec parts[4] = {{const_cast<BlockHeader*>(&h), sizeof h},
                    {&ch, sizeof ch},
                    {const_cast<void*>(records), bytes},
                    {const_cast<char*>(kZeros), padded - payload}};
  const uint64_t blockOffset = end_;
  if (!writeAt(blockOffset, parts, 4)) return nullptr;
  end_ += total;
  const uint64_t recordsOffset = blockOffset + kBlockHeaderBytes + journal::kChunkHeaderBytes;
  if (!mapSegment(recordsOffset / segmentBytes_)) return nullptr;
  id = addChunk(blockOffset, recordsOffset, bytes);
  return chunkData(id);
}

bool SpillFile::appendTail(RecordKind kind, uint32_t recordSize, uint32_t slot, uint32_t first,
                           const void* records, uint32_t count) {
  if (readOnly_ || !create() || failed()) return false;
  if (beforeChunk && !beforeChunk(*this)) return false;
  const uint64_t bytes = uint64_t{recordSize} * count;
  const uint64_t payload = journal::kTailHeaderBytes + bytes;
  if (payload > UINT32_MAX) return fail("tail too large for", EFBIG);
  journal::TailHeader th{};
  th.kind = static_cast<uint8_t>(kind);
  th.recordSize = recordSize;
  th.slot = slot;
  th.first = first;
  th.count = count;
  const uint32_t crc = journal::crc32c(records, bytes, journal::crc32c(&th, sizeof th));
  const BlockHeader h = journal::makeHeader(Block::Tail, static_cast<uint32_t>(payload), crc);
  const uint64_t padded = journal::alignUp(payload);
  // One write, header first: a process killed during it leaves a block cut
  // short (the file ends inside it), which a reader recognises and leaves out.
  iovec parts[4] = {{const_cast<BlockHeader*>(&h), sizeof h},
                    {&th, sizeof th},
                    {const_cast<void*>(records), bytes},
                    {const_cast<char*>(kZeros), padded - payload}};
  if (!writeAt(end_, parts, 4)) return false;
  end_ += kBlockHeaderBytes + padded;
  return true;
}

uint32_t SpillFile::addChunk(uint64_t blockOffset, uint64_t recordsOffset, uint64_t recordsBytes) {
  chunks_.push_back({blockOffset, recordsOffset, recordsBytes});
  resident_.push_back(0);
  return static_cast<uint32_t>(chunks_.size() - 1);
}

const void* SpillFile::chunkData(uint32_t id) const {
  const Chunk& c = chunks_[id];
  const size_t segment = c.recordsOffset / segmentBytes_;
  return segments_[segment] + (c.recordsOffset - segment * segmentBytes_);
}

bool SpillFile::readChunk(uint32_t id, void* out, uint64_t bytes) const {
  if (fd_ < 0 || id >= chunks_.size() || bytes > chunks_[id].recordsBytes) return false;
  char* to = static_cast<char*>(out);
  uint64_t at = chunks_[id].recordsOffset;
  uint64_t left = bytes;
  while (left > 0) {
    const ssize_t n = ::pread(fd_, to, left, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    to += n;
    at += static_cast<uint64_t>(n);
    left -= static_cast<uint64_t>(n);
  }
  return true;
}

int SpillFile::chunkSource(uint32_t id, uint64_t& offset) const {
  if (fd_ < 0 || id >= chunks_.size()) return -1;
  offset = chunks_[id].recordsOffset;
  return fd_;
}

bool SpillFile::rewriteChunk(uint32_t id, const void* records, uint32_t count) {
  if (readOnly_ || failed() || fd_ < 0 || id >= chunks_.size()) return false;
  const Chunk& c = chunks_[id];
  ChunkHeader ch;
  std::memcpy(&ch, static_cast<const char*>(chunkData(id)) - sizeof ch, sizeof ch);
  const uint64_t bytes = uint64_t{ch.recordSize} * count;
  if (bytes > c.recordsBytes) return false;
  ch.count = count;
  const std::vector<char> zeros(c.recordsBytes - bytes, 0);
  uint32_t crc = journal::crc32c(&ch, sizeof ch);
  crc = journal::crc32c(records, bytes, crc);
  crc = journal::crc32c(zeros.data(), zeros.size(), crc);
  // Payload first, header last: a process killed in between leaves a chunk
  // whose checksum fails, which a reader skips.
  iovec parts[3] = {{&ch, sizeof ch}, {const_cast<void*>(records), bytes}, {const_cast<char*>(zeros.data()), zeros.size()}};
  if (!writeAt(c.recordsOffset - sizeof ch, parts, 3)) return false;
  const BlockHeader h = journal::makeHeader(Block::Chunk, static_cast<uint32_t>(sizeof ch + c.recordsBytes), crc);
  iovec head{const_cast<BlockHeader*>(&h), sizeof h};
  return writeAt(c.blockOffset, &head, 1);
}

bool SpillFile::discardChunk(uint32_t id) {
  if (readOnly_ || failed() || fd_ < 0 || id >= chunks_.size()) return false;
  const Chunk& c = chunks_[id];
  BlockHeader old;
  std::memcpy(&old, static_cast<const char*>(chunkData(id)) - journal::kChunkHeaderBytes - sizeof old, sizeof old);
  const BlockHeader h = journal::makeHeader(Block::Dead, old.length, old.payloadCrc);
  iovec head{const_cast<BlockHeader*>(&h), sizeof h};
  return writeAt(c.blockOffset, &head, 1);
}

const char* SpillFile::mapped(uint64_t offset, uint64_t length) {
  if (fd_ < 0 || offset > end_ || length > end_ - offset) return nullptr;
  const size_t segment = offset / segmentBytes_;
  if (length > 0 && (offset + length - 1) / segmentBytes_ != segment) return nullptr;
  if (!mapSegment(segment)) return nullptr;
  return segments_[segment] + (offset - segment * segmentBytes_);
}

void SpillFile::touchSlow(uint32_t id) const {
  std::lock_guard<std::mutex> lock(residentMutex_);
  if (resident_[id] != 0) return;
  __atomic_store_n(&resident_[id], 1, __ATOMIC_RELEASE);
  residentOrder_.push_back(id);
  residentBytes_ += chunks_[id].recordsBytes;
  // The chunk just touched stays: its reader is about to use it.
  while (residentBytes_ > residentLimit_ && residentOrder_.size() > 1) {
    const uint32_t victim = residentOrder_.front();
    residentOrder_.pop_front();
    __atomic_store_n(&resident_[victim], 0, __ATOMIC_RELEASE);
    residentBytes_ -= chunks_[victim].recordsBytes;
    // A read fault maps in the page cache's pages around it too (the
    // kernel's fault-around, 64 KiB): those of the neighbours go with it.
    const Chunk& c = chunks_[victim];
    const uint64_t begin = c.recordsOffset > kFaultAroundBytes ? c.recordsOffset - kFaultAroundBytes : 0;
    release(begin, c.recordsOffset + c.recordsBytes + kFaultAroundBytes - begin);
  }
}

void SpillFile::release(uint64_t offset, uint64_t length) const {
  // Whole pages around the range: a neighbour that loses a page only faults
  // it in again, while pages left behind would add up over a long file.
  const uint64_t page = pageSize();
  uint64_t begin = offset / page * page;
  const uint64_t end = (offset + length + page - 1) / page * page;
  while (begin < end) {
    const size_t segment = begin / segmentBytes_;
    const uint64_t segmentEnd = std::min<uint64_t>(end, (segment + 1) * segmentBytes_);
    if (segment < segments_.size() && segments_[segment] != nullptr)
      ::madvise(segments_[segment] + (begin - segment * segmentBytes_), segmentEnd - begin, MADV_DONTNEED);
    begin = segmentEnd;
  }
}

bool SpillFile::sync() {
  if (fd_ < 0 || readOnly_) return true;
  if (::fsync(fd_) == 0 || errno == EINVAL || errno == EROFS) return true;
  return fail("cannot flush", errno);
}

bool SpillFile::remove() {
  // Unlinked only: the mappings stay readable until the file object goes.
  if (fd_ < 0) return true;
  return ::unlink(path_.c_str()) == 0;
}

}  // namespace cuptitrace
