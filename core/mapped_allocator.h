// An allocator for large buffers that come and go (the NVTX records a thread
// collects between drains): past 64 KiB each buffer is a mapping of its own,
// so freeing it gives the memory back to the system at once. From the heap,
// glibc raises its mmap threshold after such frees and keeps later buffers
// in arenas that never shrink, past the trace's memory cap.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace cuptitrace {

template <typename T>
struct MappedAllocator {
  using value_type = T;
  static constexpr size_t kMappedFrom = 64 * 1024;

  MappedAllocator() noexcept = default;
  template <typename U>
  MappedAllocator(const MappedAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    const size_t bytes = n * sizeof(T);
    if (bytes >= kMappedFrom) {
      void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      return static_cast<T*>(p);
    }
    void* p = std::malloc(bytes == 0 ? 1 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (p == nullptr) return;
    if (n * sizeof(T) >= kMappedFrom) ::munmap(p, n * sizeof(T));
    else std::free(p);
  }
  template <typename U>
  bool operator==(const MappedAllocator<U>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const MappedAllocator<U>&) const noexcept {
    return false;
  }
};

}  // namespace cuptitrace
