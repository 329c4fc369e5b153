// The string table when memory runs out inside intern (the NVTX callback's
// boundary catches the exception): the Nth allocation fails, for every N the
// call makes; the table stays whole, every id handed out reads back, and the
// string comes in on the next try.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <string>

#include "core/string_table.h"

namespace {

// Allocations this thread may still make before one fails; -1: none fails.
thread_local long tAllocationsLeft = -1;
thread_local long tAllocations = 0;

void* allocate(std::size_t n) {
  ++tAllocations;
  if (tAllocationsLeft == 0) {
    tAllocationsLeft = -1;
    throw std::bad_alloc();
  }
  if (tAllocationsLeft > 0) --tAllocationsLeft;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

using namespace cuptitrace;

TEST_CASE("string table faults: an allocation failing in intern leaves the table whole") {
  // Long enough to start a block of its own: intern's every allocation happens.
  const std::string big(300 << 10, 'b');
  long failures = 0;
  for (long n = 0;; ++n) {
    StringTable t;
    const StringId first = t.intern("first");
    bool threw = false;
    StringId id = kNoString;
    tAllocations = 0;
    tAllocationsLeft = n;
    try {
      id = t.intern(big);
    } catch (const std::bad_alloc&) {
      threw = true;
    }
    tAllocationsLeft = -1;
    const bool injected = tAllocations == n + 1 && threw;
    REQUIRE(t.get(first) == "first");
    if (!threw) {
      CHECK(t.get(id) == big);
      break;
    }
    ++failures;
    CHECK(injected);
    // Nothing half-made: the next try gets the string, the one before is intact.
    const StringId again = t.intern(big);
    CHECK(t.get(again) == big);
    CHECK(t.intern("first") == first);
    CHECK(t.get(t.intern("after")) == "after");
  }
  CHECK(failures >= 2);  // the block, its offsets (the index may be allocated too)
}
