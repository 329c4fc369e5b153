// The string table when memory runs out inside intern (the NVTX callback's
// boundary catches the exception): the Nth allocation fails, for every N the
// call makes; the table stays whole, every id handed out reads back, and the
// string comes in on the next try.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <string>

#include "core/string_table.h"

#include "failing_new.h"

using failing_new::tAllocations;
using failing_new::tAllocationsLeft;

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
