#include "collectors/buffer_pool.h"

#include <algorithm>
#include <cstdlib>

namespace cuptitrace {
namespace {
// CUPTI requires activity buffers aligned to 8 bytes (ACTIVITY_RECORD_ALIGNMENT).
constexpr size_t kAlignment = 8;
size_t alignDown(uint64_t n) { return static_cast<size_t>(n / kAlignment * kAlignment); }
}  // namespace

BufferPool::BufferPool(size_t bufferSize, uint32_t initial, uint64_t budget)
    : bufferSize_(std::max(alignDown(bufferSize + kAlignment - 1), kMinBufferBytes)),
      budget_(std::max<uint64_t>(budget, bufferSize_)) {
  const uint32_t most = maxBuffers();
  free_.reserve(most);
  all_.reserve(most);
  for (uint32_t i = 0; i < initial && allocatedBytes_ + bufferSize_ <= budget_; ++i) {
    uint8_t* b = allocate(bufferSize_);
    if (b == nullptr) break;
    free_.push_back({b, bufferSize_});
  }
}

BufferPool::~BufferPool() {
  for (const Buffer& b : all_) std::free(b.data);
}

uint32_t BufferPool::maxBuffers() const {
  const uint64_t n = budget_ / kMinBufferBytes + 1;
  return static_cast<uint32_t>(std::min<uint64_t>(n, UINT32_MAX));
}

uint8_t* BufferPool::allocate(size_t size) {
  auto* b = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, size));
  if (b == nullptr) return nullptr;
  all_.push_back({b, size});
  allocatedBytes_ += size;
  return b;
}

size_t BufferPool::nextSize() const {
  const uint64_t rest = budget_ - allocatedBytes_;
  const size_t share = alignDown(std::min<uint64_t>(bufferSize_, rest / kShareOfRest));
  if (share >= kMinBufferBytes) return share;
  return rest >= kMinBufferBytes ? kMinBufferBytes : 0;
}

std::pair<uint8_t*, size_t> BufferPool::acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!free_.empty()) {
    // The largest: a thread that asks again is likely a busy one.
    auto largest = std::max_element(free_.begin(), free_.end(),
                                    [](const Buffer& a, const Buffer& b) { return a.size < b.size; });
    const Buffer b = *largest;
    *largest = free_.back();
    free_.pop_back();
    return {b.data, b.size};
  }
  if (const size_t size = nextSize(); size != 0 && all_.size() < all_.capacity()) {
    if (uint8_t* b = allocate(size)) return {b, size};
  }
  refused_.fetch_add(1, std::memory_order_relaxed);
  return {nullptr, 0};
}

void BufferPool::release(uint8_t* buffer) {
  if (buffer == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  // A buffer released twice would be handed to two CUPTI threads at once:
  // the second release is refused and counted. So is one not from the pool.
  for (const Buffer& f : free_) {
    if (f.data == buffer) {
      badReleases_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  for (const Buffer& b : all_) {
    if (b.data == buffer) {
      free_.push_back(b);
      return;
    }
  }
  badReleases_.fetch_add(1, std::memory_order_relaxed);
}

uint32_t BufferPool::allocated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<uint32_t>(all_.size());
}

uint64_t BufferPool::allocatedBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocatedBytes_;
}

uint32_t BufferPool::inUse() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<uint32_t>(all_.size() - free_.size());
}

}  // namespace cuptitrace
