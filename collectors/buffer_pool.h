// CUPTI activity buffers, budgeted in bytes.
//
// CUPTI 13 gives every thread that makes CUDA calls an activity buffer of its
// own (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER), so the number of
// buffers in use follows the number of live threads, not the record rate. The
// pool therefore caps bytes, not buffers: the first buffers are full-sized,
// later ones smaller as the budget fills (each takes a small share of what is
// left, down to a floor), so hundreds of threads each get one. Buffers come
// back after each drain and are reused, the largest first. Past the budget a
// request is refused and counted; CUPTI then drops records and counts them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace cuptitrace {

class BufferPool {
 public:
  // The smallest buffer handed out.
  static constexpr size_t kMinBufferBytes = 64 * 1024;
  // A new buffer takes at most this fraction (1/N) of the budget not yet allocated.
  static constexpr uint64_t kShareOfRest = 64;

  // `bufferSize`: the largest buffer; `initial` of them are allocated now;
  // `budget`: the most bytes of buffers allocated at once.
  BufferPool(size_t bufferSize, uint32_t initial, uint64_t budget);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A free buffer and its size, or {nullptr, 0} when the budget is spent.
  // Called from CUPTI's bufferRequested: one short lock, no CUPTI call.
  std::pair<uint8_t*, size_t> acquire();
  void release(uint8_t* buffer);

  size_t bufferSize() const { return bufferSize_; }
  uint64_t budget() const { return budget_; }
  // The most buffers the budget can ever hold (for queues that must not grow).
  uint32_t maxBuffers() const;
  uint32_t allocated() const;
  uint64_t allocatedBytes() const;
  uint32_t inUse() const;
  uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }
  // Releases refused: a buffer already free, or one the pool never gave.
  uint64_t badReleases() const { return badReleases_.load(std::memory_order_relaxed); }

 private:
  struct Buffer {
    uint8_t* data;
    size_t size;
  };
  uint8_t* allocate(size_t size);
  size_t nextSize() const;  // under mutex_

  const size_t bufferSize_;
  const uint64_t budget_;
  mutable std::mutex mutex_;
  std::vector<Buffer> free_;
  std::vector<Buffer> all_;
  uint64_t allocatedBytes_ = 0;
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint64_t> badReleases_{0};
};

}  // namespace cuptitrace
