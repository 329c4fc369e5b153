#include <catch2/catch.hpp>

#include "core/demangle.h"
#include "core/output_name.h"
#include "core/string_table.h"
#include "core/utf8.h"

using namespace cuptitrace;

TEST_CASE("output name: %p, %h and %% are expanded, other sequences kept") {
  CHECK(expandOutputName("trace-%h-%p", 1234, "node7") == "trace-node7-1234");
  CHECK(expandOutputName("a%%b", 1, "h") == "a%b");
  CHECK(expandOutputName("x%qy%", 1, "h") == "x%qy%");
}

TEST_CASE("demangle: C++ names demangled, others left alone") {
  CHECK(demangle("_Z3addPfS_S_i") == "add(float*, float*, float*, int)");
  CHECK(demangle("plain_c_kernel") == "plain_c_kernel");
  CHECK(demangle("_Znot valid") == "_Znot valid");
  DemangleCache cache;
  CHECK(cache.get("_Z3addPfS_S_i") == "add(float*, float*, float*, int)");
}

TEST_CASE("string table: ids are stable and distinct") {
  StringTable t;
  CHECK(t.get(kNoString).empty());
  const auto a = t.intern("a");
  const auto b = t.intern("b");
  CHECK(a != b);
  CHECK(t.intern("a") == a);
  CHECK(t.get(b) == "b");
  CHECK(t.intern("") == kNoString);
  CHECK(t.get(999).empty());
}

TEST_CASE("utf8: wide strings convert, invalid code points become U+FFFD") {
  CHECK(wideToUtf8(L"abc") == "abc");
  CHECK(wideToUtf8(L"\u00e9\u4e2d") == "\xC3\xA9\xE4\xB8\xAD");
  const wchar_t emoji[] = {0x1F600, 0};
  CHECK(wideToUtf8(emoji) == "\xF0\x9F\x98\x80");
  const wchar_t bad[] = {static_cast<wchar_t>(0xD800), static_cast<wchar_t>(0x110000), 0};
  CHECK(wideToUtf8(bad) == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(wideToUtf8(nullptr).empty());
}
