#include "core/string_table.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "core/journal_format.h"
#include "core/spill_file.h"

namespace cuptitrace {
namespace {

// A block's payload: uint32 first id, uint32 count, then count x (uint32
// length, bytes): the journal's STRINGS block (journal_format.h).
constexpr uint32_t kHeaderBytes = 8;
// Small enough that the block still filling, and the part of one sealed
// early for the journal, cost little; large enough that blocks are few.
constexpr uint64_t kBlockBytes = uint64_t{256} << 10;
constexpr uint64_t kMaxIndexBytes = uint64_t{64} << 20;
constexpr uint64_t kMinIndexBytes = uint64_t{64} << 10;

uint32_t load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint64_t hashOf(std::string_view s) { return std::hash<std::string_view>{}(s); }

// A block's memory is a mapping of its own: freed once written to the journal,
// it goes back to the system at once. From the heap, glibc raises its mmap
// threshold after such frees and keeps later blocks in arenas that never
// shrink: with 10 M distinct strings a 512M cap then held 280 MiB more.
struct Unmap {
  size_t bytes = 0;
  void operator()(char* p) const {
    if (p != nullptr) ::munmap(p, bytes);
  }
};

}  // namespace

struct StringTable::Block {
  StringId first = 0;
  uint32_t count = 0;
  uint32_t used = kHeaderBytes;
  uint32_t capacity = 0;
  std::unique_ptr<char, Unmap> memory;  // null once freed
  const char* data = nullptr;      // memory, or the journal's mapping once freed
  std::vector<uint32_t> offsets;   // of strings first, first + kStride, ...
  bool sealed = false;             // no more strings: its count is written
  bool written = false;            // in the journal
  uint32_t spillId = UINT32_MAX;   // the journal's id for touch(); UINT32_MAX: cannot be freed
};

StringTable::StringTable() = default;
StringTable::~StringTable() = default;

void StringTable::setMaxBytes(uint64_t maxBytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  index_.setMaxBytes(std::clamp(maxBytes / 8, kMinIndexBytes, kMaxIndexBytes));
}

uint64_t StringTable::indexBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return index_.bytes();
}

uint64_t StringTable::forgotten() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return index_.evicted();
}

StringId StringTable::intern(std::string_view s) {
  if (s.empty()) return kNoString;
  const uint64_t hash = hashOf(s);
  std::lock_guard<std::mutex> lock(mutex_);
  const StringId found = index_.find(hash, [&](StringId id) { return text(id) == s; });
  if (found != kNoString) return found;
  const StringId id = add(s);
  // Without room in the index the string is only not found again: a second
  // id for the same text later, which no output minds.
  try {
    index_.insert(hash, id);
  } catch (const std::bad_alloc&) {
  }
  account();
  return id;
}

StringId StringTable::append(std::string_view s) {
  std::lock_guard<std::mutex> lock(mutex_);
  const StringId id = add(s);
  try {
    if (!s.empty()) index_.insert(hashOf(s), id);
  } catch (const std::bad_alloc&) {
    // As in intern(): only not found again.
  }
  account();
  return id;
}

StringId StringTable::add(std::string_view s) {
  const uint64_t need = 4 + uint64_t{s.size()};
  Block* b = blocks_.empty() ? nullptr : blocks_.back().get();
  if (b == nullptr || b->sealed || b->used + need > b->capacity) {
    const uint64_t capacity = std::max(kBlockBytes, kHeaderBytes + need);
    if (capacity > UINT32_MAX) throw std::length_error("a string of 4 GiB or more");
    auto made = std::make_unique<Block>();
    void* mapped = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    made->memory = std::unique_ptr<char, Unmap>(static_cast<char*>(mapped), Unmap{capacity});
    made->data = made->memory.get();
    made->capacity = static_cast<uint32_t>(capacity);
    made->first = static_cast<StringId>(next_.load(std::memory_order_relaxed));
    std::memcpy(made->memory.get(), &made->first, 4);
    std::memset(made->memory.get() + 4, 0, 4);
    blocks_.push_back(std::move(made));
    blockBytes_ += capacity + sizeof(Block);
    if (b != nullptr && !b->sealed) seal(*b);
    b = blocks_.back().get();
  }
  if (b->count % kStride == 0) {
    const size_t before = b->offsets.capacity();
    b->offsets.push_back(b->used);
    blockBytes_ += (b->offsets.capacity() - before) * sizeof(uint32_t);
  }
  const auto length = static_cast<uint32_t>(s.size());
  char* at = b->memory.get() + b->used;
  std::memcpy(at, &length, 4);
  if (length != 0) std::memcpy(at + 4, s.data(), length);
  b->used += static_cast<uint32_t>(need);
  ++b->count;
  const auto id = static_cast<StringId>(next_.load(std::memory_order_relaxed));
  next_.store(id + 1, std::memory_order_release);
  return id;
}

void StringTable::seal(Block& b) {
  std::memcpy(b.memory.get() + 4, &b.count, 4);
  b.sealed = true;
}

void StringTable::account() {
  bytes_.store(blockBytes_ + index_.bytes() + blocks_.capacity() * sizeof(blocks_[0]),
               std::memory_order_relaxed);
}

const StringTable::Block* StringTable::blockOf(StringId id) const {
  auto it =
      std::upper_bound(blocks_.begin(), blocks_.end(), id,
                       [](StringId v, const std::unique_ptr<Block>& b) { return v < b->first; });
  return it == blocks_.begin() ? nullptr : std::prev(it)->get();
}

std::string_view StringTable::text(StringId id) const {
  if (id == kNoString || id >= next_.load(std::memory_order_relaxed)) return {};
  const Block* b = blockOf(id);
  if (b == nullptr || id - b->first >= b->count) return {};
  if (!b->memory) file_->touch(b->spillId);
  const uint32_t k = id - b->first;
  uint32_t offset = b->offsets[k / kStride];
  for (uint32_t j = 0; j < k % kStride; ++j) offset += 4 + load32(b->data + offset);
  return {b->data + offset + 4, load32(b->data + offset)};
}

std::string_view StringTable::get(StringId id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return text(id);
}

bool StringTable::writeTo(SpillFile& file, bool everything) {
  std::vector<Block*> todo;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (everything && !blocks_.empty() && !blocks_.back()->sealed && blocks_.back()->count > 0)
      seal(*blocks_.back());
    for (auto& b : blocks_)
      if (b->sealed && !b->written) todo.push_back(b.get());
  }
  // Written without the lock: program threads go on interning. Sealed
  // blocks do not change, and only this thread frees them.
  for (Block* b : todo) {
    uint32_t id = UINT32_MAX;
    if (!file.appendReadableBlock(journal::Block::Strings, b->memory.get(), b->used, id))
      return false;
    std::lock_guard<std::mutex> lock(mutex_);
    b->written = true;
    b->spillId = id;
    file_ = &file;
  }
  return true;
}

uint64_t StringTable::releaseWritten(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t freed = 0;
  for (auto& b : blocks_) {
    if (freed >= bytes) break;
    if (!b->written || !b->memory || b->spillId == UINT32_MAX || file_ == nullptr) continue;
    const char* mapped = static_cast<const char*>(file_->chunkData(b->spillId));
    if (mapped == nullptr) continue;
    b->data = mapped;
    b->memory.reset();
    blockBytes_ -= b->capacity;
    freed += b->capacity;
    released_ += b->used;
  }
  account();
  return freed;
}

}  // namespace cuptitrace
