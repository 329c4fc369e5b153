// A replaced global operator new whose Nth allocation on this thread throws
// bad_alloc: fault injection for the tests of the fault boundaries. Include it
// in one source file of a test binary only (it defines the global operators).
// Every form of new and delete is replaced, the nothrow ones too, so that
// memory from any of them is freed by its own kind (AddressSanitizer checks).
#pragma once

#include <cstdlib>
#include <new>

namespace failing_new {

// Allocations this thread may still make before one fails; -1: none fails.
inline thread_local long tAllocationsLeft = -1;
inline thread_local long tAllocations = 0;

inline void* allocate(std::size_t n) {
  ++tAllocations;
  if (tAllocationsLeft == 0) {
    tAllocationsLeft = -1;
    throw std::bad_alloc();
  }
  if (tAllocationsLeft > 0) --tAllocationsLeft;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

inline void* allocateOrNull(std::size_t n) noexcept {
  try {
    return allocate(n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

}  // namespace failing_new

void* operator new(std::size_t n) { return failing_new::allocate(n); }
void* operator new[](std::size_t n) { return failing_new::allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return failing_new::allocateOrNull(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return failing_new::allocateOrNull(n); }
// GCC at -O1 takes free() of what these operator news return for a mismatch;
// they allocate with malloc, so it is not one.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#pragma GCC diagnostic pop
