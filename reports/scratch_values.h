// Room for one kind of record's values at a time (the durations of every
// kernel, of every API call), handed from one report to the next: mapped
// once, in huge pages where the system gives them, so that the tens of MB a
// large trace needs cost a page fault per 2 MiB, once, not one per 4 KiB
// each time a kind is summarized. Holds at most the largest kind's values,
// as each kind's own buffers did at their peak.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace cuptitrace::reports {

class ScratchValues {
 public:
  ScratchValues() = default;
  ScratchValues(const ScratchValues&) = delete;
  ScratchValues& operator=(const ScratchValues&) = delete;
  ~ScratchValues() { release(); }

  // Room for `n` values; what an earlier call was given is no longer valid.
  uint64_t* get(size_t n) {
    if (n <= capacity_) return data_;
    release();
    const size_t bytes = n * sizeof(uint64_t);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(p, bytes, MADV_HUGEPAGE);  // a hint: without it, ordinary pages
#endif
    data_ = static_cast<uint64_t*>(p);
    capacity_ = n;
    return data_;
  }

 private:
  void release() {
    if (data_ != nullptr) ::munmap(data_, capacity_ * sizeof(uint64_t));
    data_ = nullptr;
    capacity_ = 0;
  }

  uint64_t* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace cuptitrace::reports
