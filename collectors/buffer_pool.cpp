#include "collectors/buffer_pool.h"

#include <cstdlib>

namespace cuptitrace {
namespace {
// CUPTI requires activity buffers aligned to 8 bytes (ACTIVITY_RECORD_ALIGNMENT).
constexpr size_t kAlignment = 8;
}  // namespace

BufferPool::BufferPool(size_t bufferSize, uint32_t initial, uint32_t max)
    : bufferSize_((bufferSize + kAlignment - 1) / kAlignment * kAlignment), max_(max < 1 ? 1 : max) {
  free_.reserve(max_);
  all_.reserve(max_);
  for (uint32_t i = 0; i < initial && i < max_; ++i) {
    uint8_t* b = allocate();
    if (b == nullptr) break;
    free_.push_back(b);
  }
}

BufferPool::~BufferPool() {
  for (uint8_t* b : all_) std::free(b);
}

uint8_t* BufferPool::allocate() {
  auto* b = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, bufferSize_));
  if (b != nullptr) all_.push_back(b);
  return b;
}

uint8_t* BufferPool::acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!free_.empty()) {
    uint8_t* b = free_.back();
    free_.pop_back();
    return b;
  }
  if (all_.size() < max_) {
    if (uint8_t* b = allocate()) return b;
  }
  refused_.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void BufferPool::release(uint8_t* buffer) {
  if (buffer == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(buffer);
}

uint32_t BufferPool::allocated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<uint32_t>(all_.size());
}

}  // namespace cuptitrace
