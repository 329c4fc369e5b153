// CUPTI activity buffers: a pool allocated up front, reused after each drain,
// grown on demand up to a cap. Past the cap a request is refused and counted;
// CUPTI then drops records and reports them as dropped, which we count too.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace cuptitrace {

class BufferPool {
 public:
  BufferPool(size_t bufferSize, uint32_t initial, uint32_t max);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A free buffer, or nullptr when `max` buffers are already out.
  // Called from CUPTI's bufferRequested: one short lock, no CUPTI call.
  uint8_t* acquire();
  void release(uint8_t* buffer);

  size_t bufferSize() const { return bufferSize_; }
  uint32_t maxBuffers() const { return max_; }
  uint32_t allocated() const;
  uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }

 private:
  uint8_t* allocate();

  const size_t bufferSize_;
  const uint32_t max_;
  mutable std::mutex mutex_;
  std::vector<uint8_t*> free_;
  std::vector<uint8_t*> all_;
  std::atomic<uint64_t> refused_{0};
};

}  // namespace cuptitrace
